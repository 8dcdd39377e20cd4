// The kdecl declaration DSL: builders (gemm(), grouped_conv(), fmha()),
// vocabulary, kernel_set(), expand<Set>(), and validate(key, arch).
#pragma once

#include "kdecl/dsl/constants.hpp"
#include "kdecl/dsl/conv_builder.hpp"
#include "kdecl/dsl/fmha_builder.hpp"
#include "kdecl/dsl/gemm_builder.hpp"
#include "kdecl/dsl/kernel_set.hpp"
#include "kdecl/dsl/wildcard.hpp"
