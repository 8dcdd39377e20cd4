#include "bias_option.hpp"

namespace kdecl::cli {

bool apply_bias_option(fmha_problem& p, const std::string& bias) {
  if (bias == "none") return true;
  if (bias == "alibi") {
    p.alibi();
    return true;
  }
  const auto colon = bias.find(':');
  const std::string kind = bias.substr(0, colon), scope = colon == std::string::npos ? "" : bias.substr(colon + 1);
  if ((kind != "elementwise" && kind != "keys") || !(scope.empty() || scope == "b" || scope == "h" || scope == "1"))
    return false;
  const bool per_batch = scope.empty() || scope == "b", per_head = scope.empty() || scope == "h";
  if (kind == "keys") p.key_bias(per_batch, per_head);
  else p.elementwise_bias(per_batch, per_head);
  return true;
}

}  // namespace kdecl::cli
