#include "cudnn_handle.hpp"

#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

namespace kdecl::cli {
namespace {

std::string dotted(std::size_t v) { return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100); }

}  // namespace

std::string cudnn_version_string() {
  const std::size_t loaded = cudnnGetVersion();
  const std::string s = fmt::format("{} (built with {})", dotted(loaded), dotted(CUDNN_VERSION));
  if (loaded / 10000 != CUDNN_MAJOR)
    throw std::runtime_error(fmt::format(
        "the loaded libcudnn is {}, this binary was built with cuDNN {}: cuDNN keeps its ABI only within one major "
        "version (put a libcudnn.so.{} first on LD_LIBRARY_PATH)",
        dotted(loaded), dotted(CUDNN_VERSION), CUDNN_MAJOR));
  return s;
}

void cudnn_check(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  char detail[1024] = {};
  cudnnGetLastErrorString(detail, sizeof detail);
  throw std::runtime_error(fmt::format("cuDNN {}: {}{}{}", what, cudnnGetErrorString(status), detail[0] ? ": " : "",
                                       detail));
}

cudnnHandle_t cudnn_handle() {
  static std::once_flag once;
  static cudnnHandle_t handle = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    try {
      (void)cudnn_version_string();
      cudnn_check(cudnnCreate(&handle), "create a handle (are cuDNN's sub-libraries on LD_LIBRARY_PATH?)");
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!handle) throw std::runtime_error(failure);
  return handle;
}

}  // namespace kdecl::cli
