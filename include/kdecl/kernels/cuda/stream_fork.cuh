// Independent launches of one call spread over a few side streams, forked from the
// caller's stream and joined back to it, so that the GPU runs them side by side:
// launches whose grids fill only part of the device (the stride phases of a
// backward-data convolution, cuda/sm90/conv_bwd_data_sm90.cuh) then share it, and
// their tails overlap. The side streams and their events are made once per device
// and kept for the life of the process. Forking records an event on the caller's
// stream that each side stream waits for; joining records one per side stream that
// the caller's stream waits for: everything later on the caller's stream runs
// after all of them, as if they had been launched there (stream capture records such
// cross-stream dependencies too; no test captures a fork yet).
// One call forks at a time per device (a mutex): the events are reused.
#pragma once

#include <array>
#include <mutex>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"

namespace kdecl::kernels::cuda {

inline constexpr int side_streams_max = 4;

struct side_streams {
  cudaStream_t stream[side_streams_max]{};
  cudaEvent_t fork = nullptr, join[side_streams_max]{};
  std::mutex busy;
  cudaError_t made = cudaErrorNotReady;
};

// The current device's side streams, made on first use (made != cudaSuccess if that failed).
inline side_streams& side_streams_of_current_device() {
  static std::array<side_streams, 64> all;
  static std::mutex making;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= int(all.size())) dev = 0;
  side_streams& s = all[std::size_t(dev)];
  std::lock_guard<std::mutex> lock(making);
  if (s.made == cudaErrorNotReady) {
    cudaError_t err = cudaEventCreateWithFlags(&s.fork, cudaEventDisableTiming);
    for (int i = 0; i < side_streams_max && err == cudaSuccess; ++i) {
      err = cudaStreamCreateWithFlags(&s.stream[i], cudaStreamNonBlocking);
      if (err == cudaSuccess) err = cudaEventCreateWithFlags(&s.join[i], cudaEventDisableTiming);
    }
    s.made = err;
  }
  return s;
}

// launch(i, stream) for i = 0 .. count-1, on side streams forked from `main` (launch i on
// side stream i mod side_streams_max) and joined back; on `main` itself when count is 1.
// Stops at the first launch that fails (after joining what was launched) and returns it.
template <class Launch>
status fork_join(cudaStream_t main, int count, Launch&& launch) {
  if (count <= 1) return count == 1 ? launch(0, main) : status::ok();
  side_streams& s = side_streams_of_current_device();
  if (s.made != cudaSuccess)
    return status::error(std::string("side streams for concurrent launches: ") + cudaGetErrorString(s.made));
  std::lock_guard<std::mutex> lock(s.busy);
  const int used = count < side_streams_max ? count : side_streams_max;
  if (const cudaError_t err = cudaEventRecord(s.fork, main); err != cudaSuccess)
    return status::error(std::string("fork event: ") + cudaGetErrorString(err));
  for (int i = 0; i < used; ++i) cudaStreamWaitEvent(s.stream[i], s.fork, 0);
  const auto join = [&] {
    for (int i = 0; i < used; ++i) {
      cudaEventRecord(s.join[i], s.stream[i]);
      cudaStreamWaitEvent(main, s.join[i], 0);
    }
  };
  for (int i = 0; i < count; ++i)
    if (status done = launch(i, s.stream[i % used]); !done.is_ok()) {
      join();
      return done;
    }
  join();
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
