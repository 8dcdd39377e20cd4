// Device memory a launch sequence needs for itself (flipped weights, padded copies, fp32
// partials): the caller's workspace where it is large and aligned enough, else
// stream-ordered memory of its own (cudaMallocAsync), freed on the same stream when the
// scratch goes out of scope, after the launches queued before that. Every kernel that
// lends itself workspace takes it through this one helper, so that a caller who lends
// less than workspace_bytes() still gets a correct result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"

namespace kdecl::kernels::cuda {

class stream_scratch {
 public:
  // `wanted` bytes whose first is `align`-aligned (align a power of two; the caller's block is
  // taken where it holds wanted bytes from its first aligned one). `what` names the use in errors.
  stream_scratch(void* lent, std::size_t lent_bytes, std::size_t wanted, std::size_t align, cudaStream_t stream,
                 const char* what)
      : stream_(stream) {
    if (lent != nullptr) {
      const std::uintptr_t first = aligned(reinterpret_cast<std::uintptr_t>(lent), align);
      const std::size_t lost = first - reinterpret_cast<std::uintptr_t>(lent);
      if (lost <= lent_bytes && lent_bytes - lost >= wanted) {
        base_ = reinterpret_cast<unsigned char*>(first);
        return;
      }
    }
    // cudaMallocAsync's blocks are aligned to at least 256 bytes; ask for the slack anyway.
    void* own = nullptr;
    if (const cudaError_t err = cudaMallocAsync(&own, wanted + align, stream); err != cudaSuccess) {
      why_ = std::string(what) + ": cudaMallocAsync of " + std::to_string(wanted) + " bytes: " +
             cudaGetErrorString(err);
      return;
    }
    owned_ = own;
    base_ = reinterpret_cast<unsigned char*>(aligned(reinterpret_cast<std::uintptr_t>(own), align));
  }
  stream_scratch(const stream_scratch&) = delete;
  stream_scratch& operator=(const stream_scratch&) = delete;
  ~stream_scratch() {
    if (owned_ != nullptr) cudaFreeAsync(owned_, stream_);
  }

  // The aligned memory; null where the allocation failed (then error() says why).
  unsigned char* get() const { return base_; }
  status error() const { return base_ ? status::ok() : status::error(why_); }
  explicit operator bool() const { return base_ != nullptr; }

 private:
  static std::uintptr_t aligned(std::uintptr_t p, std::size_t align) { return (p + align - 1) / align * align; }
  cudaStream_t stream_;
  unsigned char* base_ = nullptr;
  void* owned_ = nullptr;
  std::string why_;
};

// What a kernel's why_not checks in place of scratch memory not yet taken: a pointer aligned as
// stream_scratch's memory of that alignment will be (never dereferenced).
inline void* scratch_stand_in(std::size_t align) { return reinterpret_cast<void*>(std::uintptr_t{align}); }

}  // namespace kdecl::kernels::cuda
