// The process's cuDNN handle and error checks, shared by the convolution and
// attention baselines (cudnn_conv.cpp, cudnn_sdpa.cpp). CUDA builds with cuDNN only.
#pragma once

#include <string>

#include <cudnn.h>

namespace kdecl::cli {

// Created on first use (after checking that the loaded libcudnn has the headers'
// major version: cuDNN keeps its ABI only within one), bound to the default stream.
cudnnHandle_t cudnn_handle();

// Throws std::runtime_error naming `what`, cuDNN's status and its last error message.
void cudnn_check(cudnnStatus_t status, const char* what);

// "9.19.0 (built with 9.19.0)"; throws when the major versions differ.
std::string cudnn_version_string();

}  // namespace kdecl::cli
