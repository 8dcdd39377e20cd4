#include "sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "kdecl/gemm/gemm_name.hpp"

namespace kdecl::cli {

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / double(v.size()));
}

// The worst tenth: the ratio that 90% of the shapes reach or beat (nearest rank,
// so with fewer than 10 shapes it is the minimum).
double tenth_percentile(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t rank = std::max<std::size_t>(1, std::size_t(std::ceil(0.1 * double(v.size()))));
  return v[rank - 1];
}

double worst_tenth_geomean(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  v.resize(std::max<std::size_t>(1, std::size_t(std::ceil(0.1 * double(v.size())))));
  return geomean(v);
}

namespace {

using nlohmann::json;

const char* vendor_of(const json& r) { return r.contains("cublas_plus_elementwise") ? "cublas_plus_elementwise" : "cublas"; }

// Our figures are there (the vendor's may not be: the host backend has no baseline).
bool timed(const json& r) {
  return r.contains("dispatcher") && r["dispatcher"].contains("ms") && r.contains("best_instance") &&
         r["best_instance"].contains("ms") && !r.contains("error") && !r.contains("run_error");
}

bool measured(const json& r) { return timed(r) && r.contains(vendor_of(r)) && r[vendor_of(r)].contains("ms"); }

double ms_of(const json& r, const char* what) { return r[what]["ms"].get<double>(); }

std::string group_of(const json& r) {
  return fmt::format("{} {}", r.value("dtype", std::string("?")), r.value("layout", std::string("?")));
}

std::string key_of(const json& r) {
  if (r.contains("key")) return r["key"].get<std::string>();
  return fmt::format("{} {}x{}x{}", group_of(r), r.value("m", 0L), r.value("n", 0L), r.value("k", 0L));
}

// "Llama-3-8B q_proj, o_proj; Mistral-7B-v0.1 o_proj" (at most `models` models, then "+N more").
std::string used_by(const json& r, std::size_t models = 3) {
  if (!r.contains("uses") || r["uses"].empty()) return "";
  std::vector<std::pair<std::string, std::string>> by_model;
  for (const auto& u : r["uses"]) {
    const auto model = u.value("model", std::string());
    const auto layer = u.value("layer", std::string());
    auto it = std::find_if(by_model.begin(), by_model.end(), [&](const auto& p) { return p.first == model; });
    if (it == by_model.end()) by_model.emplace_back(model, layer);
    else if (it->second.find(layer) == std::string::npos) it->second += ", " + layer;
  }
  std::string out;
  for (std::size_t i = 0; i < by_model.size() && i < models; ++i)
    out += fmt::format("{}{} {}", i ? "; " : "", by_model[i].first, by_model[i].second);
  if (by_model.size() > models) out += fmt::format("; +{} more", by_model.size() - models);
  // Markdown tables: a '|' inside a cell must be escaped.
  std::string escaped;
  for (char c : out) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return escaped;
}

std::string one_line(std::string s, std::size_t max_chars = 160) {
  for (char& c : s)
    if (c == '\n' || c == '|') c = ' ';
  if (s.size() > max_chars) s = s.substr(0, max_chars - 3) + "...";
  return s;
}

}  // namespace

std::vector<json> read_jsonl(const std::string& path, std::size_t* malformed) {
  std::vector<json> records;
  std::map<std::string, std::size_t> by_key;
  std::size_t bad = 0;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json r = json::parse(line, nullptr, false);
    if (r.is_discarded() || !r.is_object()) {
      ++bad;
      continue;
    }
    const std::string key = key_of(r);
    if (auto it = by_key.find(key); it != by_key.end()) {
      records[it->second] = std::move(r);  // measured again: the later record wins
    } else {
      by_key.emplace(key, records.size());
      records.push_back(std::move(r));
    }
  }
  if (malformed) *malformed = bad;
  return records;
}

void rewrite_jsonl(const std::string& path, const std::vector<json>& records) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", tmp));
    for (const auto& r : records) out << r.dump() << "\n";
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(fmt::format("cannot replace {}", path));
}

std::vector<ratio_summary> summarize(const std::vector<json>& records) {
  std::vector<ratio_summary> out;
  std::map<std::string, std::size_t> index;
  std::map<std::string, std::vector<double>> ratios, best_ratios, choice;
  for (const auto& r : records) {
    const auto g = group_of(r);
    auto [it, fresh] = index.emplace(g, out.size());
    if (fresh) out.push_back({g});
    auto& s = out[it->second];
    ++s.problems;
    if (r.contains("error")) {
      ++s.refused;
      continue;
    }
    if (r.contains("run_error")) {
      ++s.failed;
      continue;
    }
    if (!timed(r)) continue;
    ++s.measured;
    if (!measured(r)) {
      ++s.without_baseline;
      const double ours = ms_of(r, "dispatcher"), best = ms_of(r, "best_instance");
      choice[g].push_back(best / ours);
      if (r["dispatcher"].value("kernel", std::string()) == r["best_instance"].value("kernel", std::string()))
        ++s.picked_best;
      continue;
    }
    const double vendor = ms_of(r, vendor_of(r)), ours = ms_of(r, "dispatcher"), best = ms_of(r, "best_instance");
    const double ratio = vendor / ours;
    ratios[g].push_back(ratio);
    best_ratios[g].push_back(vendor / best);
    choice[g].push_back(best / ours);
    if (ratio < 0.8) ++s.below_080;
    if (s.min_key.empty() || ratio < s.min) {
      s.min = ratio;
      s.min_key = key_of(r);
    }
    if (r["dispatcher"].value("kernel", std::string()) == r["best_instance"].value("kernel", std::string()))
      ++s.picked_best;
  }
  for (auto& s : out) {
    s.geomean = geomean(ratios[s.group]);
    s.p10 = tenth_percentile(ratios[s.group]);
    s.worst_tenth_geomean = worst_tenth_geomean(ratios[s.group]);
    s.best_geomean = geomean(best_ratios[s.group]);
    s.choice_geomean = geomean(choice[s.group]);
    s.choice_p10 = tenth_percentile(choice[s.group]);
  }
  return out;
}

std::string short_kernel_name(const std::string& name) {
  try {
    const auto k = parse_gemm_name(name);
    const auto& a = k.algo;
    return fmt::format("{} {}x{}x{} s{} v{}", to_string(a.pipe), a.tile.m, a.tile.n, a.tile.k, a.stages,
                       a.vector_bytes);
  } catch (const std::exception&) {
    return name;
  }
}

std::string sweep_markdown(const std::vector<json>& records, const std::string& title) {
  std::string md = fmt::format("# {}\n\n", title);
  if (records.empty()) return md + "No results.\n";
  // Where and how: from the records themselves (every line carries them; list what differs).
  std::map<std::string, std::vector<std::string>> seen;
  for (const auto& r : records)
    for (const char* f : {"gpu", "date", "commit", "method"})
      if (r.contains(f) && r[f].is_string()) {
        auto& v = seen[f];
        const auto s = r[f].get<std::string>();
        if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
      }
  auto listed = [&](const char* f) {
    std::string s;
    for (const auto& v : seen[f]) s += (s.empty() ? "" : "; ") + (v.empty() ? std::string("(not recorded)") : v);
    return s.empty() ? std::string("(not recorded)") : s;
  };
  md += fmt::format("GPU: {}. Date: {}. Commit: {}.\n\nMethod: {}\n\n", listed("gpu"), listed("date"),
                    listed("commit"), listed("method"));
  md += "Ratios are cuBLAS time / our time (above 1: faster than cuBLASLt). *Ours* is the dispatcher's choice; "
        "*best* the fastest registered instance screened; the worst tenth is the ratio that 90% of the shapes "
        "reach or beat (nearest rank), with the geometric mean of that tenth beside it.\n\n";

  md += "| dtype, layout | problems | measured | refused | failed | ours/cuBLAS geomean | worst tenth (its geomean) | "
        "minimum (shape) | below 0.80 | best/cuBLAS geomean | ours/best geomean | ours/best worst tenth | "
        "choice was the best |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : summarize(records)) {
    if (s.measured == s.without_baseline) {
      // Nothing to compare with cuBLAS (no shape timed, or the host backend's figures only).
      const auto choice = [&](double v) { return s.measured ? fmt::format("{:.3f}", v) : std::string("-"); };
      md += fmt::format("| {} | {} | {} | {} | {} | - | - | - | - | - | {} | {} | {} |\n", s.group, s.problems,
                        s.measured, s.refused, s.failed, choice(s.choice_geomean), choice(s.choice_p10),
                        s.measured ? fmt::format("{} of {}", s.picked_best, s.measured) : std::string("-"));
      continue;
    }
    md += fmt::format("| {} | {} | {} | {} | {} | **{:.3f}** | **{:.3f}** ({:.3f}) | {:.3f} ({}) | {} | {:.3f} | "
                      "**{:.3f}** | {:.3f} | {} of {} |\n",
                      s.group, s.problems, s.measured, s.refused, s.failed, s.geomean, s.p10, s.worst_tenth_geomean,
                      s.min, s.min_key, s.below_080, s.best_geomean, s.choice_geomean, s.choice_p10, s.picked_best,
                      s.measured);
  }

  // The worst tenth, worst first, per group.
  std::map<std::string, std::vector<std::pair<double, const json*>>> by_group;
  for (const auto& r : records)
    if (measured(r)) by_group[group_of(r)].emplace_back(ms_of(r, vendor_of(r)) / ms_of(r, "dispatcher"), &r);
  for (auto& [g, v] : by_group) {
    std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    const std::size_t n = std::max<std::size_t>(1, std::size_t(std::ceil(0.1 * double(v.size()))));
    md += fmt::format("\n## {}: the worst tenth ({} of {} shapes)\n\n| M | N | K | used by | ours/cuBLAS | best/cuBLAS | "
                      "ours/best | our choice | best instance |\n|---|---|---|---|---|---|---|---|---|\n",
                      g, n, v.size());
    for (std::size_t i = 0; i < n && i < v.size(); ++i) {
      const auto& r = *v[i].second;
      const double vendor = ms_of(r, vendor_of(r));
      md += fmt::format("| {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {} | {} |\n", r["m"].get<long>(),
                        r["n"].get<long>(), r["k"].get<long>(), used_by(r), v[i].first,
                        vendor / ms_of(r, "best_instance"), ms_of(r, "best_instance") / ms_of(r, "dispatcher"),
                        short_kernel_name(r["dispatcher"].value("kernel", std::string())),
                        short_kernel_name(r["best_instance"].value("kernel", std::string())));
    }
  }

  std::string refusals;
  for (const auto& r : records)
    if (r.contains("error") || r.contains("run_error"))
      refusals += fmt::format("| {} | {} | {} | {} |\n", key_of(r), used_by(r), r.contains("error") ? "refused" : "failed",
                              one_line(r.contains("error") ? r["error"].get<std::string>() : r["run_error"].get<std::string>()));
  if (!refusals.empty())
    md += "\n## Refused or failed\n\n| problem | used by | outcome | why |\n|---|---|---|---|\n" + refusals;

  md += "\n## Every shape\n\n| M | N | K | batch | dtype, layout | used by | our choice | ours TFLOP/s | best TFLOP/s | "
        "cuBLAS TFLOP/s | ours/cuBLAS | best/cuBLAS | ours/best |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : records) {
    const auto head = fmt::format("| {} | {} | {} | {} | {} | {} |", r.value("m", 0L), r.value("n", 0L), r.value("k", 0L),
                                  r.value("batch", 1L), group_of(r), used_by(r));
    if (!timed(r)) {
      md += head + fmt::format(" {} | | | | | | |\n", r.contains("error") ? "refused" : r.contains("run_error") ? "failed" : "incomplete");
      continue;
    }
    if (!measured(r)) {  // no vendor baseline (the host backend)
      md += head + fmt::format(" {} | {:.3f} | {:.3f} | - | - | - | {:.3f} |\n",
                               short_kernel_name(r["dispatcher"].value("kernel", std::string())),
                               r["dispatcher"]["tflops"].get<double>(), r["best_instance"]["tflops"].get<double>(),
                               ms_of(r, "best_instance") / ms_of(r, "dispatcher"));
      continue;
    }
    const char* vendor = vendor_of(r);
    const double v = ms_of(r, vendor), ours = ms_of(r, "dispatcher"), best = ms_of(r, "best_instance");
    md += head + fmt::format(" {} | {:.1f} | {:.1f} | {:.1f} | {:.3f} | {:.3f} | {:.3f} |\n",
                             short_kernel_name(r["dispatcher"].value("kernel", std::string())),
                             r["dispatcher"]["tflops"].get<double>(), r["best_instance"]["tflops"].get<double>(),
                             r[vendor]["tflops"].get<double>(), v / ours, v / best, best / ours);
  }
  return md;
}

}  // namespace kdecl::cli
