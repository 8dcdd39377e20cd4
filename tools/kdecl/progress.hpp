// A one-line progress bar on stderr for long runs (benchmarks, tuning).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace kdecl::cli {

class progress_bar {
 public:
  progress_bar(std::size_t total, std::string what) : total_(total), what_(std::move(what)) {}

  void step(const std::string& item) {
    ++done_;
    const int width = 30;
    const int filled = total_ ? int(width * done_ / total_) : width;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu %5.1fs %-48.48s", what_.c_str(), filled,
                 "##############################", width - filled, "", done_, total_, elapsed, item.c_str());
    if (done_ == total_) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  std::size_t total_, done_ = 0;
  std::string what_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace kdecl::cli
