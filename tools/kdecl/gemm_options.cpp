#include "gemm_options.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdecl::cli {
namespace {

template <class E>
E parse_flag(const std::string& flag, const std::string& value) {
  auto v = parse<E>(value);
  if (!v || value == "*") {
    std::vector<std::string> names;
    for (auto n : enum_table<E>::names)
      if (n != "*") names.emplace_back(n);
    throw std::invalid_argument(fmt::format("{} '{}' is not one of: {}", flag, value, fmt::join(names, ", ")));
  }
  return *v;
}

// A whole string as a decimal int (std::stoi would take "1x" as 1).
std::optional<int> whole_int(const std::string& text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

CLI::Validator decimal_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
        auto [end, ec] = std::from_chars(first, text.data() + text.size(), v);
        if (ec == std::errc::result_out_of_range) return fmt::format("{} is out of the 64-bit integer range", text);
        if (ec != std::errc{} || end != text.data() + text.size() || first == end || *first == '+')
          return fmt::format("{} is not a decimal integer", text);
        text = std::to_string(v);
        return {};
      },
      "INT", "decimal integer");
}

void gemm_options::add_to(CLI::App& app, bool sizes_required) {
  auto* om = app.add_option("--m", m, "rows of A and C")->transform(decimal_integer());
  auto* on = app.add_option("--n", n, "columns of B and C")->transform(decimal_integer());
  auto* ok = app.add_option("--k", k, "columns of A, rows of B")->transform(decimal_integer());
  if (sizes_required) {
    om->required();
    on->required();
    ok->required();
  }
  app.add_option("--batch", batch, "strided batch count")->capture_default_str()->transform(decimal_integer());
  app.add_option("--lda", lda, "leading dimension of A (0: packed)")->transform(decimal_integer());
  app.add_option("--ldb", ldb, "leading dimension of B (0: packed)")->transform(decimal_integer());
  app.add_option("--ldc", ldc, "leading dimension of C (0: packed)")->transform(decimal_integer());
  app.add_option("--dtype", dtype,
                 "dtype of A, B and C: fp16 bf16 fp32 fp64 fp8 bf8 int8 (int8: C int32; fp8/bf8: C bf16, as "
                 "cuBLASLt's GEMMs of those types write; tf32 is --dtype fp32 --compute tf32)")
      ->capture_default_str();
  app.add_option("--dtypes", dtypes, "dtypes of A,B,C when they differ, e.g. int8,int8,int32");
  app.add_option("--compute", compute, "multiply precision: tf32 lets fp32 data use tensor cores");
  app.add_option("--layout", layout, "layouts of A, B, C: rcr rrr crr ccr rcc rrc crc ccc (r row-, c column-major)")
      ->capture_default_str();
  app.add_option("--multi-d", multi_d, "fuse D tensors and an op, OP:N, e.g. gelu:1 or multi_d_add:2");
  app.add_flag("--preshuffle", preshuffle, "B is stored pre-shuffled (preshuffle variant)");
  app.add_flag("--block-scaled", block_scaled,
               "fp8/bf8 A and B scaled per block: a float per 1 x 128 block of A and per 128 x 128 block of B "
               "(DeepGEMM's form; packed scales, random in run)");
  app.add_option("--alpha", alpha, "C = alpha*A*B + beta*C")->capture_default_str();
  app.add_option("--beta", beta, "C = alpha*A*B + beta*C")->capture_default_str();
  app.add_option("--device", device, "host, cuda (the first GPU), cuda:N, auto (first GPU, else host), or an arch such as sm_90 "
                                     "(select only: what the dispatcher would pick there)")->capture_default_str();
}

gemm_problem gemm_options::problem() const {
  gemm_problem p;
  p.sizes(m, n, k).batched(batch).leading_dims(lda, ldb, ldc);
  p.dtype(parse_flag<kdecl::dtype>("--dtype", dtype));
  // int8 GEMMs write int32 and fp8/bf8 GEMMs bf16 by default, as cuBLASLt's usually do:
  // --dtypes int8,int8,int8 or fp8,fp8,fp8 asks for 8-bit C.
  if (p.sig.a == kdecl::dtype::int8) p.sig.c = kdecl::dtype::int32;
  if (p.sig.a == kdecl::dtype::fp8 || p.sig.a == kdecl::dtype::bf8) p.sig.c = kdecl::dtype::bf16;
  if (!dtypes.empty()) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= dtypes.size(); ++i)
      if (i == dtypes.size() || dtypes[i] == ',') {
        parts.push_back(dtypes.substr(start, i - start));
        start = i + 1;
      }
    if (parts.size() != 3) throw std::invalid_argument(fmt::format("--dtypes '{}' is not A,B,C", dtypes));
    auto a = parse_flag<kdecl::dtype>("--dtypes", parts[0]);
    p.dtype(a).dtypes(a, parse_flag<kdecl::dtype>("--dtypes", parts[1]), parse_flag<kdecl::dtype>("--dtypes", parts[2]));
  }
  if (!compute.empty()) p.compute(parse_flag<kdecl::dtype>("--compute", compute));
  if (layout.size() != 3 || layout.find_first_not_of("rc") != std::string::npos)
    throw std::invalid_argument(fmt::format("--layout '{}' is not three letters r or c (A, B, C), e.g. rcr", layout));
  auto l = [](char c) { return c == 'r' ? kdecl::layout::row : kdecl::layout::col; };
  p.layout({l(layout[0]), l(layout[1]), l(layout[2])});
  if (!multi_d.empty()) {
    auto colon = multi_d.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument(fmt::format("--multi-d '{}' is not OP:N, e.g. gelu:1", multi_d));
    auto op = parse_flag<elementwise>("--multi-d op", multi_d.substr(0, colon));
    auto nd = whole_int(multi_d.substr(colon + 1));
    if (!nd)
      throw std::invalid_argument(fmt::format("--multi-d '{}': '{}' is not a number", multi_d, multi_d.substr(colon + 1)));
    p.multi_d(op, *nd);
  }
  if (preshuffle) p.preshuffled_b();
  if (block_scaled) {
    if (preshuffle || !multi_d.empty())
      throw std::invalid_argument("--block-scaled is a GEMM variant of its own: not with --preshuffle or --multi-d");
    p.block_scaled({0, p.aligned_scale_ld_b(), 0, 0});
  }
  if (auto e = p.validate()) throw std::invalid_argument(*e);
  return p;
}

void gemm_options::check_scalars() const {
  for (auto [flag, v] : {std::pair{"--alpha", alpha}, {"--beta", beta}})
    if (!std::isfinite(v)) throw std::invalid_argument(fmt::format("{} {} is not a finite number", flag, v));
}

device gemm_options::target() const {
  std::vector<std::string> skipped;
  auto all = available_devices(&skipped);
  if (device == "auto") return all.size() > 1 ? all[1] : all[0];
  if (device == "host") return all[0];
  // "cuda": the first CUDA device; "cuda:N": the one of ordinal N.
  if (device == "cuda" || device.rfind("cuda:", 0) == 0) {
    const bool first = device == "cuda";
    const int ordinal = first ? 0 : whole_int(device.substr(5)).value_or(-1);
    for (const auto& d : all)
      if (d.kind() == backend::cuda && (first || d.ordinal == ordinal)) return d;
    std::string msg = fmt::format("--device {}: no such CUDA device in this build/machine ({} found)", device,
                                  all.size() - 1);
    for (const auto& s : skipped) msg += "; " + s;
    throw std::invalid_argument(msg);
  }
  // An arch name is a device for offline selection: what the dispatcher would pick there.
  if (auto arch = parse<arch_id>(device); arch && *arch != arch_id::host)
    return kdecl::device{*arch, -1, fmt::format("{} (offline: selection only)", device)};
  throw std::invalid_argument(fmt::format("--device '{}' is not host, cuda, cuda:N, auto or an arch name (sm_90, ...)", device));
}

}  // namespace kdecl::cli
