// From tuning-database rows to what the ranking model learns from and is
// judged on: one measured problem per (device, problem key), its kernels'
// median times, the analytical model's estimates, their features and the
// networks it came from. One op at a time (GEMM, convolution or attention); what follows
// the grouping does not depend on the op.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kdecl/tuning/feature_matrix.hpp"
#include "kdecl/tuning/ranking_model.hpp"
#include "kdecl/tuning/tuning_db.hpp"

namespace kdecl::tuning {

struct measured_problem {
  std::string op;               // "gemm", "conv", "fmha"
  std::string key;              // problem_key()
  std::string device;
  int memory_clock_mhz = 0;     // the device's, as its rows record it (0: not recorded)
  std::string signature;        // problem_signature(): what a model is trained per
  std::vector<std::string> kernels;   // name order
  std::vector<double> ms;             // median per kernel
  std::vector<double> estimate_us;    // the analytical model's estimate per kernel
  feature_matrix features;            // the op's features, one row per kernel
  std::set<std::string> models;       // networks whose layers have this shape
  double oracle_ms() const;
};

// A row whose timed launches spread over this ((P90 - P10) / median > 1: the slow tenth took twice
// as long as the fast tenth) timed an excursion of the GPU, not the kernel, and is left out of
// training and evaluation. In the H200 GEMM data of 2026-11-28: 11 of 53,902 rows (3 problems), five
// of them 1.7-2.4x the same kernel's time in the other dtype.
inline constexpr double unreliable_spread = 1.0;

// Successful rows of `op` and `arch` grouped by device and problem; rows spread over
// unreliable_spread and kernels outside `kernel_subset` (when non-empty) are left out;
// problems with fewer than `min_kernels` measured kernels are dropped. Throws std::invalid_argument
// for an op without features or a row whose problem key or kernel name does not parse.
std::vector<measured_problem> measured_problems(const std::vector<measurement>& rows,
                                                const std::vector<problem_source>& sources, const std::string& arch,
                                                const std::set<std::string>& kernel_subset = {},
                                                std::size_t min_kernels = 2, const std::string& op = "gemm");

// Features and relevance labels of one measured problem.
ranking_group ranking_group_of(const measured_problem& p);

// A network's family ("Llama-2-7B" -> "Llama", "Flan-T5-XL" -> "T5"): the split
// of eval-selection trains on some families and tests on the others.
std::string family_of(const std::string& model);

// Selection quality on a set of problems.
struct tier_figures {
  std::string tier;
  std::size_t problems = 0;
  double mean = 0, p10 = 0, worst = 0;   // efficiency = oracle time / chosen time
  double top1_hit = 0;                   // share of problems where the chosen kernel is the oracle
  int top_k_mean_99 = 0;                 // smallest k whose best-of-top-k mean reaches 0.99 (0: never)
  int top_k_all_99 = 0;                  // smallest k whose best-of-top-k reaches 0.99 on every problem (0: never)
  std::vector<double> efficiencies;      // per problem
  struct miss {                          // a problem where the tier chose worst
    std::string problem, chosen, oracle;
    double efficiency = 0;
  };
  std::vector<miss> worst_cases;         // the five lowest efficiencies, lowest first
};

// `order[i]` ranks the kernels of problems[i] best first.
tier_figures figures_of(const std::string& tier, const std::vector<measured_problem>& problems,
                        const std::vector<std::vector<std::size_t>>& order);

// The analytical model's order (smallest estimate first, ties by name).
std::vector<std::size_t> analytical_order(const measured_problem& p);
// The ranking model's order (highest score first, ties in analytical order).
std::vector<std::size_t> model_order(const ranking_model& model, const measured_problem& p);

}  // namespace kdecl::tuning
