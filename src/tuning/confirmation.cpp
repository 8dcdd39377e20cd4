#include "kdecl/tuning/confirmation.hpp"

#include <algorithm>
#include <numeric>

namespace kdecl::tuning {

std::vector<std::size_t> kernels_to_confirm(const std::vector<measurement>& rows, const confirm_policy& policy) {
  if (policy.kernels < 2 || policy.rounds < 1) return {};
  for (const auto& r : rows)
    if (r.confirmed_rounds >= policy.rounds) return {};
  std::vector<std::size_t> timed;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].median_ms && *rows[i].median_ms > 0) timed.push_back(i);
  // Fastest first; ties by name, so that the choice does not depend on row order.
  std::stable_sort(timed.begin(), timed.end(), [&](std::size_t a, std::size_t b) {
    if (*rows[a].median_ms != *rows[b].median_ms) return *rows[a].median_ms < *rows[b].median_ms;
    return rows[a].kernel < rows[b].kernel;
  });
  std::vector<std::size_t> out;
  for (std::size_t i : timed) {
    if (out.size() >= std::size_t(policy.kernels)) break;
    if (*rows[timed.front()].median_ms / *rows[i].median_ms < policy.within) break;
    out.push_back(i);
  }
  if (out.size() < 2) out.clear();
  return out;
}

}  // namespace kdecl::tuning
