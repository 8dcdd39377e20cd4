// Memory on a device: host memory for the host backend, cudaMalloc'd memory
// for CUDA devices. Owns its bytes; copies to and from host vectors.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "kdecl/core/status.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl {

class buffer {
 public:
  buffer() = default;
  // Throws std::runtime_error naming the device and size when allocation fails.
  buffer(const device& dev, std::size_t bytes);
  ~buffer();
  buffer(buffer&& other) noexcept;
  buffer& operator=(buffer&& other) noexcept;
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

  void upload(const void* host, std::size_t bytes, std::size_t offset = 0);
  void download(void* host, std::size_t bytes, std::size_t offset = 0) const;
  void fill_bytes(unsigned char value);  // e.g. 0xFF to poison an output

  template <class T> void upload(const std::vector<T>& v) { upload(v.data(), v.size() * sizeof(T)); }
  template <class T> std::vector<T> download_as(std::size_t count) const {
    std::vector<T> v(count);
    download(v.data(), count * sizeof(T));
    return v;
  }

 private:
  void release() noexcept;
  device device_{};
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Waits for all work on the device (no-op for the host backend). Error names the CUDA error.
status synchronize(const device& dev);

}  // namespace kdecl
