// dtype -> the host type that stores one element of it, and its size.
//
// The host types share size and bit layout with the device types
// (kdecl::half ~ __half, float8_e4m3 ~ __nv_fp8_e4m3, ...), so a buffer filled
// on the host can be copied to a device as raw bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kdecl/core/enums.hpp"
#include "kdecl/numeric/bfloat16.hpp"
#include "kdecl/numeric/float8_e4m3.hpp"
#include "kdecl/numeric/float8_e5m2.hpp"
#include "kdecl/numeric/half.hpp"

namespace kdecl {

template <dtype D> struct host_storage;  // undefined for sub-byte and wildcard dtypes
template <> struct host_storage<dtype::fp16> { using type = half; };
template <> struct host_storage<dtype::bf16> { using type = bfloat16; };
template <> struct host_storage<dtype::fp32> { using type = float; };
template <> struct host_storage<dtype::tf32> { using type = float; };  // tf32 data lives in fp32 words
template <> struct host_storage<dtype::fp64> { using type = double; };
template <> struct host_storage<dtype::fp8> { using type = float8_e4m3; };
template <> struct host_storage<dtype::bf8> { using type = float8_e5m2; };
template <> struct host_storage<dtype::int8> { using type = std::int8_t; };
template <> struct host_storage<dtype::int32> { using type = std::int32_t; };

template <dtype D> using host_storage_t = typename host_storage<D>::type;

// True for the dtypes that have a host_storage (whole-byte element types).
constexpr bool has_host_storage(dtype d) {
  switch (d) {
    case dtype::fp16: case dtype::bf16: case dtype::fp32: case dtype::tf32: case dtype::fp64:
    case dtype::fp8: case dtype::bf8: case dtype::int8: case dtype::int32:
      return true;
    default:
      return false;
  }
}

// Bytes per element; 0 for packed sub-byte types (int4, pk_fp4) and the wildcard.
constexpr std::size_t dtype_size_bytes(dtype d) {
  return has_host_storage(d) ? std::size_t(bits_of(d) / 8) : 0;
}

}  // namespace kdecl
