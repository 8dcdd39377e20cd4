// Launches timed in turns, each after an L2 eviction: the decode benchmarks' method
// (kdecl_bench_decode, `kdecl bench fmha --paged`). A decode reads tens of MB at most at small
// batches, which would otherwise sit in the H100's 50 MB L2 from the launch before; and what
// drifts over a row's measurements (clocks, the memory's state) must fall on every candidate
// alike, so each round launches every candidate once, in an order rotated by one per round.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "l2_evict.cuh"

namespace kdecl::bench {

// A turn that may fail without stopping the others (a vendor baseline's graph): after a failure
// it does nothing and `note` says why (prefix + the exception's message); a caller reads a turn
// with a note as not timed. `note` must outlive the turn.
template <class Run>
std::function<void()> noted_turn(std::string& note, Run run, std::string prefix = {}) {
  return [&note, run = std::move(run), prefix = std::move(prefix)] {
    if (!note.empty()) return;
    try {
      run();
    } catch (const std::exception& e) {
      note = prefix + e.what();
    }
  };
}

class evicting_turns {
 public:
  // read_eviction: evict with a read of the buffer (clean L2) instead of a write (the L2 left
  // full of dirty lines, which the timed launch writes back to DRAM as it brings its own bytes in).
  explicit evicting_turns(bool read_eviction = false, std::size_t flush_bytes = std::size_t(256) << 20)
      : read_(read_eviction), flush_bytes_(flush_bytes) {
    check(cudaMalloc(&flush_, flush_bytes_), "cudaMalloc of the eviction buffer");
    check(cudaMemset(flush_, 0x3C, flush_bytes_), "cudaMemset");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~evicting_turns() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaFree(flush_);
  }
  evicting_turns(const evicting_turns&) = delete;
  evicting_turns& operator=(const evicting_turns&) = delete;

  // The median milliseconds of each of fns over `reps` rounds (at least one), after one untimed
  // launch of each (first-launch costs). Throws std::runtime_error on a CUDA error.
  std::vector<double> medians(int reps, const std::vector<std::function<void()>>& fns) {
    for (const auto& fn : fns) fn();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<std::vector<double>> times(fns.size());
    for (int r = 0; r < std::max(1, reps); ++r)
      for (std::size_t i = 0; i < fns.size(); ++i) {
        const std::size_t f = (i + std::size_t(r)) % fns.size();
        check(evict_l2(flush_, flush_bytes_, read_, (r * int(fns.size()) + int(i)) & 0xFF), "L2 eviction");
        check(cudaEventRecord(start_), "cudaEventRecord");
        fns[f]();
        check(cudaEventRecord(stop_), "cudaEventRecord");
        check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
        times[f].push_back(ms);
      }
    std::vector<double> out;
    for (auto& t : times) {
      std::sort(t.begin(), t.end());
      out.push_back(t.empty() ? 0.0 : t[t.size() / 2]);
    }
    return out;
  }

  bool read_eviction() const { return read_; }

 private:
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
  bool read_;
  std::size_t flush_bytes_;
  void* flush_ = nullptr;
  cudaEvent_t start_{}, stop_{};
};

}  // namespace kdecl::bench
