// `any`: the DSL's wildcard. It converts to the `any` member of every
// enumeration that has one, and to any_int for integer fields.
#pragma once

#include "kdecl/core/enums.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl::dsl {

struct any_t {
  constexpr operator dtype() const { return dtype::any; }
  constexpr operator pipeline() const { return pipeline::any; }
  constexpr operator epilogue() const { return epilogue::any; }
  constexpr operator scheduler() const { return scheduler::any; }
  constexpr operator tristate() const { return tristate::any; }
  constexpr operator fmha_pipeline() const { return fmha_pipeline::any; }
};
inline constexpr any_t any{};

// An integer field value or `any`.
struct int_or_any {
  int value;
  constexpr int_or_any(int v) : value(v) {}
  constexpr int_or_any(any_t) : value(any_int) {}
};

// A yes/no field value or `any`.
struct flag_or_any {
  tristate value;
  constexpr flag_or_any(bool b) : value(b ? tristate::yes : tristate::no) {}
  constexpr flag_or_any(any_t) : value(tristate::any) {}
};

}  // namespace kdecl::dsl
