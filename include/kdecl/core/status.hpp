// Result of an operation that can fail for a reason the caller should read.
#pragma once

#include <string>
#include <utility>

namespace kdecl {

class [[nodiscard]] status {
 public:
  static status ok() { return status{}; }
  static status error(std::string why) { return status{std::move(why)}; }

  bool is_ok() const { return message_.empty(); }
  explicit operator bool() const { return is_ok(); }
  const std::string& message() const { return message_; }

 private:
  status() = default;
  explicit status(std::string why) : message_(std::move(why)) {
    if (message_.empty()) message_ = "unspecified error";
  }
  std::string message_;
};

}  // namespace kdecl
