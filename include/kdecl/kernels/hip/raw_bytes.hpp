// A register-resident bundle of Bytes bytes, the unit of every vector memory
// access in the HIP GEMM (global loads, LDS stores and LDS fragment reads).
//
// Its alignment equals its size, so dereferencing a suitably aligned pointer to
// it compiles to one global_load_dwordxN / ds_read_bN instead of N scalar ones.
// Typed elements are read and written with shifts at (after unrolling) constant
// offsets, which become register moves and bit-field operations.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <type_traits>

namespace kdecl::kernels::hip {

template <int Bytes>
struct alignas(Bytes) raw_bytes {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "raw_bytes: 4, 8 or 16 bytes");
  // One vector value (not an array): moved as a whole, it stays one memory instruction.
  using words_t = std::uint32_t __attribute__((ext_vector_type(Bytes / 4)));
  words_t words;

  // Element `index` of type T (1, 2, 4 or 8 bytes). Implemented with shifts on
  // the words rather than memcpy so the bundle never needs a stack slot.
  template <class T>
  __device__ T get(int index) const {
    constexpr int size = static_cast<int>(sizeof(T));
    static_assert(size == 1 || size == 2 || size == 4 || size == 8, "raw_bytes::get: element size");
    if constexpr (size == 8) {
      using pair_t = std::uint32_t __attribute__((ext_vector_type(2)));
      const pair_t pair = {words[2 * index], words[2 * index + 1]};
      return __builtin_bit_cast(T, pair);
    } else {
      using bits_t = unsigned_of<size>;
      const int byte = index * size;
      return __builtin_bit_cast(T, static_cast<bits_t>(words[byte / 4] >> (8 * (byte % 4))));
    }
  }

  template <class T>
  __device__ void set(int index, T value) {
    constexpr int size = static_cast<int>(sizeof(T));
    static_assert(size == 1 || size == 2 || size == 4, "raw_bytes::set: element size");
    const int byte = index * size;
    const int shift = 8 * (byte % 4);
    const std::uint32_t mask = (size == 4 ? 0xffffffffu : ((1u << (8 * size)) - 1u)) << shift;
    const std::uint32_t bits = static_cast<std::uint32_t>(__builtin_bit_cast(unsigned_of<size>, value)) << shift;
    words[byte / 4] = (words[byte / 4] & ~mask) | bits;
  }

 private:
  template <int Size>
  using unsigned_of = std::conditional_t<Size == 1, std::uint8_t, std::conditional_t<Size == 2, std::uint16_t, std::uint32_t>>;
};

// Vector load / store of a bundle at p (p aligned to Bytes). They move the words
// vector itself, never the struct: an aggregate copy becomes a memcpy, which
// can leave the bundle in scratch memory instead of registers.
template <int Bytes>
__device__ inline raw_bytes<Bytes> load_bytes(const void* p) {
  raw_bytes<Bytes> r;
  r.words = *static_cast<const typename raw_bytes<Bytes>::words_t*>(p);
  return r;
}
template <int Bytes>
__device__ inline void store_bytes(void* p, const raw_bytes<Bytes>& r) {
  *static_cast<typename raw_bytes<Bytes>::words_t*>(p) = r.words;
}

template <int Bytes>
__device__ inline raw_bytes<Bytes> zero_bytes() {
  raw_bytes<Bytes> r;
  r.words = typename raw_bytes<Bytes>::words_t(0u);
  return r;
}

}  // namespace kdecl::kernels::hip
