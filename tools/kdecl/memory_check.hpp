// Memory checks before `kdecl run` and `kdecl bench` allocate: what a plan
// needs, set against what the host or device has (memory_available()).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

using memory_parts = std::vector<std::pair<std::string, std::size_t>>;

// "1.50 GiB", "512 B", "16.0 TiB".
std::string format_bytes(std::size_t bytes);

// "A 4.00 MiB, B 4.00 MiB, C 8.00 MiB" (parts of zero bytes left out).
std::string describe(const memory_parts& parts);

// Throws std::invalid_argument (exit 2) when `needed` bytes exceed what `where`
// has, naming both figures, what the bytes are for and what limits them.
void require_memory(const std::string& what, std::size_t needed, const memory_parts& parts,
                    const memory_headroom& have, const std::string& advice);

}  // namespace kdecl::cli
