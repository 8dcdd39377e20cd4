// Reading problem keys (problem_key.cpp, conv_problem_key.cpp): split into
// segments, numbers and names, each failure naming the key, the segment and the rule.
#pragma once

#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "kdecl/core/enums.hpp"

namespace kdecl::tuning::key_text {

[[noreturn]] inline void bad(std::string_view key, std::string_view part, std::string_view rule) {
  throw std::invalid_argument(fmt::format("problem key '{}': '{}' {}", key, part, rule));
}

inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    auto pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

template <class E>
E parse_enum(std::string_view key, std::string_view s) {
  auto v = parse<E>(s);
  if (!v) bad(key, s, "is not a known name");
  return *v;
}

inline std::int64_t parse_int(std::string_view key, std::string_view s) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) bad(key, s, "is not an integer");
  return v;
}

// "m4096n4096k4096b1" -> the four numbers after the given letters.
inline std::vector<std::int64_t> lettered(std::string_view key, std::string_view s, std::string_view letters) {
  std::vector<std::int64_t> out;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < letters.size(); ++i) {
    if (pos >= s.size() || s[pos] != letters[i]) bad(key, s, fmt::format("lacks '{}' at position {}", letters[i], pos));
    std::size_t end = i + 1 < letters.size() ? s.find(letters[i + 1], pos + 1) : s.size();
    if (end == std::string_view::npos) bad(key, s, fmt::format("lacks '{}'", letters[i + 1]));
    out.push_back(parse_int(key, s.substr(pos + 1, end - pos - 1)));
    pos = end;
  }
  return out;
}

inline std::vector<std::int64_t> dashed(std::string_view key, std::string_view s, std::string_view prefix, std::size_t n) {
  if (!s.starts_with(prefix)) bad(key, s, fmt::format("does not start with '{}'", prefix));
  auto parts = split(s.substr(prefix.size()), '-');
  if (parts.size() != n) bad(key, s, fmt::format("does not hold {} numbers", n));
  std::vector<std::int64_t> out;
  for (auto p : parts) out.push_back(parse_int(key, p));
  return out;
}

}  // namespace kdecl::tuning::key_text
