// How a rule failure becomes a compile error that reads well in g++, nvcc and
// clang: instantiating declaration_error with the rule, target, offending
// values and formatted message as template arguments trips its static_assert,
// and every compiler prints those arguments on the instantiation line
// (g++ prints M as a string, nvcc and clang print the enumerator names).
#pragma once

#include "kdecl/dsl/message.hpp"
#include "kdecl/dsl/rule.hpp"

namespace kdecl::dsl {

template <rule R, arch_id A, long V0, long V1, long V2, message M>
struct declaration_error {
  static_assert(M.text[0] == 0,
                "kdecl: invalid kernel declaration: the rule, target, offending values and message are the "
                "template arguments of declaration_error above");
  static constexpr bool raised = true;
};

}  // namespace kdecl::dsl
