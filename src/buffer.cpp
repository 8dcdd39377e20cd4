#include "kdecl/runtime/buffer.hpp"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#if KDECL_WITH_CUDA_RUNTIME
#include <cuda_runtime.h>
#endif

namespace kdecl {
namespace {

[[noreturn]] void fail(const device& dev, std::string_view what, std::string_view why) {
  throw std::runtime_error(fmt::format("{} on {}: {}", what, dev.description, why));
}

#if KDECL_WITH_CUDA_RUNTIME
void check(const device& dev, cudaError_t e, std::string_view what) {
  if (e != cudaSuccess) fail(dev, what, cudaGetErrorString(e));
}
#endif

void require_backend(const device& dev) {
  if (dev.kind() == backend::host) return;
#if KDECL_WITH_CUDA_RUNTIME
  if (dev.kind() == backend::cuda) return;
#endif
  fail(dev, "buffer", fmt::format("this build has no runtime for the {} backend", to_string(dev.kind())));
}

}  // namespace

buffer::buffer(const device& dev, std::size_t bytes) : device_(dev), bytes_(bytes) {
  require_backend(dev);
  if (bytes == 0) return;
  if (dev.kind() == backend::host) {
    data_ = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!data_) fail(dev, "allocating", fmt::format("{} bytes: out of memory", bytes));
    return;
  }
#if KDECL_WITH_CUDA_RUNTIME
  check(dev, cudaSetDevice(dev.ordinal), "selecting device");
  check(dev, cudaMalloc(&data_, bytes), fmt::format("allocating {} bytes", bytes));
#endif
}

buffer::~buffer() { release(); }

buffer::buffer(buffer&& o) noexcept
    : device_(std::move(o.device_)), data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

buffer& buffer::operator=(buffer&& o) noexcept {
  if (this != &o) {
    release();
    device_ = std::move(o.device_);
    data_ = std::exchange(o.data_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void buffer::release() noexcept {
  if (!data_) return;
  if (device_.kind() == backend::host) std::free(data_);
#if KDECL_WITH_CUDA_RUNTIME
  else cudaFree(data_);
#endif
  data_ = nullptr;
}

void buffer::upload(const void* host, std::size_t bytes, std::size_t offset) {
  if (offset + bytes > bytes_)
    fail(device_, "upload", fmt::format("{} bytes at offset {} exceed the buffer's {} bytes", bytes, offset, bytes_));
  if (bytes == 0) return;
  char* dst = static_cast<char*>(data_) + offset;
  if (device_.kind() == backend::host) { std::memcpy(dst, host, bytes); return; }
#if KDECL_WITH_CUDA_RUNTIME
  check(device_, cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice), "upload");
#endif
}

void buffer::download(void* host, std::size_t bytes, std::size_t offset) const {
  if (offset + bytes > bytes_)
    fail(device_, "download", fmt::format("{} bytes at offset {} exceed the buffer's {} bytes", bytes, offset, bytes_));
  if (bytes == 0) return;
  const char* src = static_cast<const char*>(data_) + offset;
  if (device_.kind() == backend::host) { std::memcpy(host, src, bytes); return; }
#if KDECL_WITH_CUDA_RUNTIME
  check(device_, cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost), "download");
#endif
}

void buffer::fill_bytes(unsigned char value) {
  if (bytes_ == 0) return;
  if (device_.kind() == backend::host) { std::memset(data_, value, bytes_); return; }
#if KDECL_WITH_CUDA_RUNTIME
  check(device_, cudaMemset(data_, value, bytes_), "fill");
#endif
}

status synchronize(const device& dev) {
#if KDECL_WITH_CUDA_RUNTIME
  if (dev.kind() == backend::cuda) {
    cudaSetDevice(dev.ordinal);
    if (auto e = cudaDeviceSynchronize(); e != cudaSuccess)
      return status::error(fmt::format("{}: {}", dev.description, cudaGetErrorString(e)));
  }
#else
  (void)dev;
#endif
  return status::ok();
}

}  // namespace kdecl
