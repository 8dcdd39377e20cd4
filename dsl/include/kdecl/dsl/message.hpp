// A fixed-capacity, structural text buffer formatted in constexpr code. It can
// be a template argument, which is how a compile-time error carries its text
// (g++ prints it as a string literal in the instantiation line).
#pragma once

#include <cstddef>
#include <string_view>

namespace kdecl::dsl {

struct message {
  static constexpr std::size_t capacity = 192;
  char text[capacity]{};

  constexpr std::size_t size() const {
    std::size_t n = 0;
    while (n < capacity && text[n] != 0) ++n;
    return n;
  }
  constexpr std::string_view view() const { return {text, size()}; }
  constexpr bool empty() const { return text[0] == 0; }

  // Appends, silently truncating at capacity - 1 (the last byte stays 0).
  constexpr message& operator<<(std::string_view s) {
    std::size_t n = size();
    for (char ch : s) {
      if (n + 1 >= capacity) break;
      text[n++] = ch;
    }
    return *this;
  }
  constexpr message& operator<<(long v) {
    char digits[24]{};
    int len = 0;
    const bool negative = v < 0;
    unsigned long u = negative ? 0ul - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
    do {
      digits[len++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (negative) digits[len++] = '-';
    char forward[24]{};
    for (int i = 0; i < len; ++i) forward[i] = digits[len - 1 - i];
    return *this << std::string_view{forward, static_cast<std::size_t>(len)};
  }
  constexpr message& operator<<(int v) { return *this << static_cast<long>(v); }
  constexpr message& operator<<(const char* s) { return *this << std::string_view{s}; }
};

}  // namespace kdecl::dsl
