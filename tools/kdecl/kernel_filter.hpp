// `kdecl list --filter EXPR`: terms `field=value` (exact) or `field~text`
// (substring), joined by commas, all of which must hold. Fields are the
// leaves of a kernel's key JSON (dtype_a, layout_b, pipeline, arch, ...), the
// shapes as MxNxK (tile, warps, warp_tile) and per dimension (tile_m, ...),
// plus name, set, op and layout (three letters, e.g. rcr).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kdecl/registry/registry.hpp"

namespace kdecl::cli {

using kernel_fields = std::map<std::string, std::string>;

kernel_fields fields_of(const registered_kernel& kernel);

struct filter_term {
  std::string field;
  bool substring = false;
  std::string value;
};

class kernel_filter {
 public:
  // Throws std::invalid_argument naming the malformed term or unknown field.
  explicit kernel_filter(const std::string& expr);
  bool matches(const kernel_fields& fields) const;

 private:
  std::vector<filter_term> terms_;
};

// The registered kernels that `expr` keeps (every one for an empty expression), for --kernels.
std::unique_ptr<registry> registry_matching(const std::string& expr);

}  // namespace kdecl::cli
