// Command-line flags that describe grouped-convolution problems (select and run conv):
// one problem from --n --c --k --g --w/--hw/--dhw --filter --stride --pad --dilation,
// or layer lists from --problems FILE... (benchmarks/shapes/conv_*.csv).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

// One layer of a --problems file.
struct conv_layer {
  std::string network, layer;  // where it comes from
  int count = 1;               // how often the network has it
  grouped_conv_problem problem;
};

struct conv_options {
  std::int64_t n = 0, c = 0, k = 0, g = 1;
  std::string w, hw, dhw;  // spatial input size of a 1-D, 2-D or 3-D problem
  std::string filter, stride = "1", pad = "0", dilation = "1";
  std::string direction = "fwd", dtype = "fp16", compute, layout;
  bool bias = false, residual = false;  // the fused forward epilogue's inputs
  std::string activation = "pass_through";
  std::vector<std::string> problems;  // CSV files of layers
  std::string device = "auto";

  void add_to(CLI::App& app);
  // The problems the flags describe: the files' layers in order, or the one problem of the size flags.
  // Throws std::invalid_argument naming the flag, file line or column and value.
  std::vector<conv_layer> layers() const;
  kdecl::device target() const;
};

// "fwd,bwd_data" -> the directions; "all" = fwd, bwd_data, bwd_weight. Throws
// std::invalid_argument naming `flag` and the bad entry.
std::vector<conv_direction> parse_directions(const std::string& list, const char* flag = "--directions");

// Reads a layer list: a header line naming the columns network, layer, n, c, k, g,
// input, filter, stride, pad, dilation (and optionally count, source), then one
// layer per line; '#' starts a comment line. Spatial values are x-separated
// (56x56, 3x3x3); pad is symmetric (1x1) or left/right (0x0/1x1).
std::vector<conv_layer> read_conv_layers(const std::string& path, const grouped_conv_problem& base);

}  // namespace kdecl::cli
