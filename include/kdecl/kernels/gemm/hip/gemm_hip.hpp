// kdecl::kernels::hip::gemm<K>: the AMD (CDNA2 gfx90a, CDNA3 gfx942) MFMA GEMM.
//
// C = ew(alpha * op(A) op(B) + beta * C_old + sum_i D_i), strided-batched.
// A workgroup of warps.m x warps.n wavefronts computes one tile.m x tile.n block
// of C: K tiles move global -> registers -> LDS (tile_loader.hpp), each wave
// runs rep_m x rep_n MFMA warp tiles out of LDS (block_gemm.hpp), and the fused
// epilogue writes C directly or through LDS (epilogue_hip.hpp).
// Which keys compile is decided by hip_gemm_unsupported() (gemm_hip_geometry.hpp).
#pragma once

#include <hip/hip_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/hip/fp8_fnuz.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_geometry.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_kernel.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_params.hpp"
#include "kdecl/kernels/hip/hip_arch.hpp"

namespace kdecl::kernels::hip {

template <gemm_key K>
struct gemm {
  static_assert(hip_gemm_require_supported(K));
  static constexpr hip_gemm_geometry geo = geometry_of(K);
  static constexpr int max_grid_yz = 65535;

  static std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& args) {
    if (!(p.sig == K.sig)) return std::string("hip gemm: the problem's signature differs from the kernel's");
    if (p.m < 0 || p.n < 0 || p.k < 0 || p.batch < 1 || p.batch > INT_MAX)
      return std::string("hip gemm: negative size, or batch outside 1..INT_MAX");
    if (K.algo.pad_m == tristate::no && p.m % K.algo.tile.m != 0) return std::string("hip gemm: m is not a multiple of tile.m and pad_m is off");
    if (K.algo.pad_n == tristate::no && p.n % K.algo.tile.n != 0) return std::string("hip gemm: n is not a multiple of tile.n and pad_n is off");
    if (K.algo.pad_k == tristate::no && p.k % K.algo.tile.k != 0) return std::string("hip gemm: k is not a multiple of tile.k and pad_k is off");
    if ((p.m + K.algo.tile.m - 1) / K.algo.tile.m > max_grid_yz) return std::string("hip gemm: m needs more than 65535 row tiles");
    if (p.lda < p.cols_a() || p.ldb < p.cols_b() || p.ldc < p.cols_c() || (K.sig.num_d > 0 && p.ldd < p.cols_c()))
      return std::string("hip gemm: a leading dimension is smaller than its matrix's row length (problem not normalized?)");
    if (!fits_int(p.rows_a(), p.lda) || !fits_int(p.rows_b(), p.ldb) || !fits_int(p.rows_c(), p.ldc) ||
        (K.sig.num_d > 0 && !fits_int(p.rows_c(), p.ldd)) || p.k > INT_MAX)
      return std::string("hip gemm: an operand needs offsets beyond 32 bits");
    if (p.m == 0 || p.n == 0) return std::nullopt;  // nothing to write
    if (args.c == nullptr || (p.k > 0 && (args.a == nullptr || args.b == nullptr)))
      return std::string("hip gemm: null A, B or C pointer");
    for (int i = 0; i < K.sig.num_d; ++i)
      if (args.d[i] == nullptr) return std::string("hip gemm: null D pointer");
    // Vector loads of A and B: vector_bytes; vector C/D accesses in cshuffle: c_vector elements.
    const int vb = K.algo.vector_bytes;
    const int cvb = K.algo.epi == epilogue::cshuffle ? geo.c_vector * geo.c_bytes : geo.c_bytes;
    if (!aligned(args.a, p.lda, p.stride_a, p.batch, geo.a_bytes, vb) ||
        !aligned(args.b, p.ldb, p.stride_b, p.batch, geo.b_bytes, vb))
      return std::string("hip gemm: A or B (pointer, leading dim or batch stride) not aligned to vector_bytes");
    if (!aligned(args.c, p.ldc, p.stride_c, p.batch, geo.c_bytes, cvb))
      return std::string("hip gemm: C (pointer, leading dim or batch stride) not aligned for the epilogue's vectors");
    for (int i = 0; i < K.sig.num_d; ++i)
      if (!aligned(args.d[i], p.ldd, p.stride_d, p.batch, geo.c_bytes, cvb))
        return std::string("hip gemm: a D tensor (pointer, ldd or stride_d) not aligned for the epilogue's vectors");
    if (auto mismatch = device_arch_mismatch(K.algo.arch)) return mismatch;
    hipFuncAttributes attributes{};
    if (hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&gemm_hip_kernel<K>)) != hipSuccess)
      return std::string("hip gemm: this binary holds no code object of the kernel for the current device");
    return std::nullopt;
  }

  static status run(const gemm_problem& p, const gemm_args& args, void* stream) {
    if (p.m == 0 || p.n == 0 || p.batch == 0) return status::ok();
    gemm_hip_params params{};
    params.a = args.a;
    params.b = args.b;
    params.c = args.c;
    for (int i = 0; i < max_d_tensors; ++i) params.d[i] = args.d[i];
    params.m = static_cast<int>(p.m);
    params.n = static_cast<int>(p.n);
    params.k = static_cast<int>(p.k);
    params.batch = static_cast<int>(p.batch);
    params.lda = static_cast<int>(p.lda);
    params.ldb = static_cast<int>(p.ldb);
    params.ldc = static_cast<int>(p.ldc);
    params.ldd = static_cast<int>(p.ldd);
    params.stride_a = p.stride_a;
    params.stride_b = p.stride_b;
    params.stride_c = p.stride_c;
    params.stride_d = p.stride_d;
    params.alpha = args.alpha * product_scale(K.sig.a, K.sig.b, K.algo.arch);
    params.beta = args.beta;

    const dim3 grid(static_cast<unsigned>((p.n + K.algo.tile.n - 1) / K.algo.tile.n),
                    static_cast<unsigned>((p.m + K.algo.tile.m - 1) / K.algo.tile.m),
                    static_cast<unsigned>(p.batch < max_grid_yz ? p.batch : max_grid_yz));
    const dim3 block(static_cast<unsigned>(geo.threads));
    hipLaunchKernelGGL(gemm_hip_kernel<K>, grid, block, 0, static_cast<hipStream_t>(stream), params);
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return status::error(std::string("hip gemm: launch failed: ") + hipGetErrorString(err));
    return status::ok();
  }

  static std::size_t workspace_bytes(const gemm_problem&) { return 0; }

 private:
  // Offsets inside one matrix, up to rows * ld plus one tile of overhang at a
  // padded edge (formed, never dereferenced), fit a signed 32-bit int.
  static bool fits_int(std::int64_t rows, std::int64_t ld) {
    const std::int64_t overhang = K.algo.tile.m + K.algo.tile.n + K.algo.tile.k;
    return rows * ld + overhang <= INT_MAX;
  }

  // Pointer, leading dimension and (when batched) batch stride are multiples of `bytes`.
  static bool aligned(const void* ptr, std::int64_t ld, std::int64_t stride, std::int64_t batch, int elem, int bytes) {
    if (reinterpret_cast<std::uintptr_t>(ptr) % static_cast<std::uintptr_t>(bytes) != 0) return false;
    if ((ld * elem) % bytes != 0) return false;
    return batch == 1 || (stride * elem) % bytes == 0;
  }
};

}  // namespace kdecl::kernels::hip
