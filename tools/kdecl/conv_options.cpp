#include "conv_options.hpp"

#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gemm_options.hpp"

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

std::vector<std::string> split_any(const std::string& s, const std::string& separators) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || separators.find(s[i]) != std::string::npos) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::int64_t parse_int(const std::string& what, const std::string& s) {
  std::size_t used = 0;
  std::int64_t v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw std::invalid_argument(fmt::format("{} '{}' is not an integer", what, s));
  return v;
}

// "3", "3,3", "3x3x3": one value per spatial dimension, or one for all.
conv_dims parse_dims(const std::string& what, const std::string& s) {
  const auto parts = split_any(s, ",x");
  if (s.empty() || parts.size() > 3)
    throw std::invalid_argument(fmt::format("{} '{}' is not 1 to 3 integers separated by ',' or 'x'", what, s));
  conv_dims d;
  d.count = int(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) d.v[3 - parts.size() + i] = parse_int(what, parts[i]);
  return d;
}

// "1", "1,1" (symmetric) or "0,1/1,2" (left/right).
void parse_padding(grouped_conv_problem& p, const std::string& what, const std::string& s) {
  const auto slash = s.find('/');
  if (slash == std::string::npos) {
    p.padding(parse_dims(what, s));
  } else {
    p.padding(parse_dims(what + " (left)", s.substr(0, slash)), parse_dims(what + " (right)", s.substr(slash + 1)));
  }
}

// One CSV record's cells: comma-separated, a cell in double quotes may hold commas ("" is a quote).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') cells.back() += '"', ++i;
      else if (ch == '"') quoted = false;
      else cells.back() += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

void conv_options::add_to(CLI::App& app) {
  app.add_option("--n", n, "batch (images)");
  app.add_option("--c", c, "input channels (all groups)");
  app.add_option("--k", k, "output channels (all groups)");
  app.add_option("--g", g, "groups: 1 dense, C = K = G depthwise")->capture_default_str();
  auto* ow = app.add_option("--w", w, "input width of a 1-D convolution");
  auto* ohw = app.add_option("--hw", hw, "input height,width of a 2-D convolution, e.g. 56,56");
  auto* odhw = app.add_option("--dhw", dhw, "input depth,height,width of a 3-D convolution, e.g. 16,56,56");
  ow->excludes(ohw)->excludes(odhw);
  ohw->excludes(odhw);
  app.add_option("--filter", filter, "filter size per dimension, or one for all, e.g. 3 or 1,7");
  app.add_option("--stride", stride, "stride per dimension, or one for all")->capture_default_str();
  app.add_option("--pad", pad, "padding: P, P1,P2 (both sides) or LEFT/RIGHT, e.g. 0,0/1,1")->capture_default_str();
  app.add_option("--dilation", dilation, "dilation per dimension, or one for all")->capture_default_str();
  app.add_option("--direction", direction, "fwd, bwd_data or bwd_weight")->capture_default_str();
  app.add_option("--dtype", dtype,
                 "dtype of input, weight and output: fp16 bf16 fp32, or fp8 bf8 (8-bit input and weights, forward; "
                 "the output bf16)")
      ->capture_default_str();
  app.add_option("--compute", compute, "multiply precision: tf32 lets fp32 data use tensor cores (default: the dtype)");
  app.add_option("--layout", layout, "nwgc nhwgc ndhwgc (channels-last, the default) or gnwc gnhwc gndhwc");
  app.add_flag("--bias", bias, "fwd: fuse a bias (one value per output channel) into the epilogue");
  app.add_flag("--residual", residual, "fwd: fuse the add of a residual tensor (the output's shape) into the epilogue");
  app.add_option("--activation", activation,
                 "fwd: the epilogue's activation, after bias and residual: pass_through relu gelu sigmoid tanh")
      ->capture_default_str();
  app.add_option("--problems", problems,
                 "CSV layer lists (benchmarks/shapes/conv_*.csv) instead of the size flags; direction, dtype and "
                 "layout apply to every layer");
  app.add_option("--device", device, "host, cuda (the first GPU), cuda:N, auto (first GPU, else host), or an arch such as sm_90 "
                                     "(select only: what the dispatcher would pick there)")->capture_default_str();
}

std::vector<conv_direction> parse_directions(const std::string& given, const char* flag) {
  const std::string list = given == "all" ? "fwd,bwd_data,bwd_weight" : given;
  std::vector<conv_direction> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i)
    if (i == list.size() || list[i] == ',') {
      const std::string name = list.substr(start, i - start);
      start = i + 1;
      auto d = parse<conv_direction>(name);
      if (!d || name == "*")
        throw std::invalid_argument(
            fmt::format("{} '{}': '{}' is not fwd, bwd_data or bwd_weight (or all)", flag, given, name));
      out.push_back(*d);
    }
  return out;
}

std::vector<conv_layer> conv_options::layers() const {
  grouped_conv_problem base;
  base.direction(parse_flag<conv_direction>("--direction", direction)).dtype(parse_flag<kdecl::dtype>("--dtype", dtype));
  if (base.in_type == kdecl::dtype::fp8 || base.in_type == kdecl::dtype::bf8) {  // 8-bit data writes bf16, as cuDNN's
    if (base.dir != conv_direction::fwd)
      throw std::invalid_argument(fmt::format("--dtype {}: 8-bit convolutions are forward only (8-bit input and "
                                              "weights, a bf16 output); --direction is {}",
                                              dtype, to_string(base.dir)));
    base.dtypes(base.in_type, base.in_type, kdecl::dtype::bf16);
  }
  if (!compute.empty()) base.compute(parse_flag<kdecl::dtype>("--compute", compute));
  if (!layout.empty()) base.layout(parse_flag<conv_layout>("--layout", layout));
  const auto act = parse<elementwise>(activation);
  if (!act || activation == "*" || !conv_activation(*act))
    throw std::invalid_argument(fmt::format("--activation '{}' is not one a convolution epilogue applies: "
                                            "pass_through, relu, gelu, sigmoid or tanh",
                                            activation));
  base.fuse(conv_fusion{.act = *act, .bias = bias, .residual = residual});
  if (base.fusion.fused() && base.dir != conv_direction::fwd)
    throw std::invalid_argument(fmt::format("--bias, --residual and --activation fuse a forward epilogue; "
                                            "--direction is {}",
                                            direction));

  if (!problems.empty()) {
    for (auto [flag, given] : {std::pair{"--n", n != 0}, {"--c", c != 0}, {"--k", k != 0}, {"--g", g != 1},
                               {"--w/--hw/--dhw", !w.empty() || !hw.empty() || !dhw.empty()},
                               {"--filter", !filter.empty()}, {"--stride", stride != "1"}, {"--pad", pad != "0"},
                               {"--dilation", dilation != "1"}})
      if (given)
        throw std::invalid_argument(fmt::format("{} and --problems exclude each other: the file gives every layer's "
                                                "sizes and geometry",
                                                flag));
    std::vector<conv_layer> all;
    for (const auto& path : problems)
      for (auto& l : read_conv_layers(path, base)) all.push_back(std::move(l));
    return all;
  }

  for (auto [flag, v] : {std::pair{"--n", n}, {"--c", c}, {"--k", k}})
    if (v == 0) throw std::invalid_argument(fmt::format("{} is required (or give --problems FILE)", flag));
  if (w.empty() && hw.empty() && dhw.empty())
    throw std::invalid_argument("the input size is required: --w (1-D), --hw (2-D) or --dhw (3-D)");
  if (filter.empty()) throw std::invalid_argument("--filter is required, e.g. --filter 3");
  grouped_conv_problem p = base;
  p.batch(n).channels(c, k).groups(g);
  const std::string& size = !w.empty() ? w : !hw.empty() ? hw : dhw;
  const char* size_flag = !w.empty() ? "--w" : !hw.empty() ? "--hw" : "--dhw";
  const conv_dims in = parse_dims(size_flag, size);
  const int rank = !w.empty() ? 1 : !hw.empty() ? 2 : 3;
  if (in.count != rank)
    throw std::invalid_argument(fmt::format("{} '{}' needs {} value{}", size_flag, size, rank, rank == 1 ? "" : "s"));
  p.input_size(in).filter_size(parse_dims("--filter", filter)).stride(parse_dims("--stride", stride))
      .dilation(parse_dims("--dilation", dilation));
  parse_padding(p, "--pad", pad);
  if (auto e = p.validate()) throw std::invalid_argument(*e);
  return {conv_layer{"", "", 1, p}};
}

kdecl::device conv_options::target() const {
  gemm_options g;  // the same --device rules as every other command
  g.device = device;
  return g.target();
}

std::vector<conv_layer> read_conv_layers(const std::string& path, const grouped_conv_problem& base) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("--problems '{}': cannot open the file", path));
  static const std::vector<std::string> required = {"network", "layer", "n", "c", "k", "g",
                                                    "input", "filter", "stride", "pad", "dilation"};
  std::map<std::string, std::size_t> column;
  std::vector<conv_layer> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto cells = split_csv(line);
    auto where = [&](const std::string& what) { return fmt::format("{}:{}: {}", path, number, what); };
    if (column.empty()) {  // the header
      for (std::size_t i = 0; i < cells.size(); ++i) column[trim(cells[i])] = i;
      for (const auto& name : required)
        if (!column.count(name))
          throw std::invalid_argument(where(fmt::format("the header lacks column '{}' (needs {})", name,
                                                        fmt::join(required, ","))));
      continue;
    }
    if (cells.size() != column.size())
      throw std::invalid_argument(where(fmt::format("{} cells, the header has {}", cells.size(), column.size())));
    auto cell = [&](const std::string& name) { return trim(cells[column.at(name)]); };
    conv_layer l;
    l.network = cell("network");
    l.layer = cell("layer");
    if (column.count("count")) l.count = int(parse_int(where("count"), cell("count")));
    grouped_conv_problem p = base;
    p.batch(parse_int(where("n"), cell("n")))
        .channels(parse_int(where("c"), cell("c")), parse_int(where("k"), cell("k")))
        .groups(parse_int(where("g"), cell("g")))
        .input_size(parse_dims(where("input"), cell("input")))
        .filter_size(parse_dims(where("filter"), cell("filter")))
        .stride(parse_dims(where("stride"), cell("stride")))
        .dilation(parse_dims(where("dilation"), cell("dilation")));
    parse_padding(p, where("pad"), cell("pad"));
    if (!base.lay) p.lay.reset();  // each row's rank picks its channels-last layout
    if (auto e = p.validate()) throw std::invalid_argument(where(fmt::format("{} {}: {}", l.network, l.layer, *e)));
    l.problem = p;
    out.push_back(std::move(l));
  }
  if (column.empty()) throw std::invalid_argument(fmt::format("--problems '{}': no header line", path));
  if (out.empty()) throw std::invalid_argument(fmt::format("--problems '{}': no layers", path));
  return out;
}

}  // namespace kdecl::cli
