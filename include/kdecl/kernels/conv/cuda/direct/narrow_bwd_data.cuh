// Backward-data of dense layers with few input channels (C <= 8: stems), on
// tensor cores. The plan, the tile and why this formulation are in
// kernels/conv/narrow_bwd_data_plan.hpp; run by the direct_conv backward-data
// kernels (direct_bwd_data.cuh) for such layers. sm_80 and later (mma.sync, ldmatrix,
// cp.async), 16-bit data, fp32 accumulation.
//
// A block computes a th x tw tile of one stride phase's lattice of dx pixels of one image,
// dx depth (3-D) and group. Per depth tap of that depth's phase (one for 1-D and 2-D: the
// accumulators carry over the depth taps) and per chunk of 32 dy channels it stages the dy pixels the tile's taps read
// ((th + spread_y) x (tw + spread_x) pixels, 80 bytes each) and, per tap of the phase and
// 16 channels, the weights as the lanes' B fragments (C padded to 8 with zeros); then each
// warp runs its 16-pixel row groups through every tap: one ldmatrix.x4 (a row address per
// pixel: dy pixel (i + base_y - min base_y, j + base_x - min base_x) of the staged tile)
// and one m16n8k16 per tap and 16 channels. dy rows and columns outside the tensor are
// staged as zeros; pixels a phase's taps never reach get zeros.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/cuda/direct/narrow_bwd_data_decl.cuh"
#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/dynamic_smem.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"

namespace kdecl::kernels::cuda::direct {

struct narrow_bwd_data_params {
  const void* dy;
  const void* wei;
  void* dx;
  int di, hi, wi, dout, ho, wo;  // dx (computed) and dy (read) sizes
  int c, k;                     // channels per group of dx and dy
  int fz, fy, fx, sz, sy, sx, dlz, dly, dlx, pz, py, px;
  long long dx_n, dx_g, dx_d, dx_h, dx_w;  // element strides; channels packed
  long long dy_n, dy_g, dy_d, dy_h, dy_w;
  long long w_g, w_k, w_z, w_y, w_x;
  int th, tw;                   // tile of a phase's lattice
  int tiles_x, tiles;           // tiles along the lattice width; tiles per phase
  int staged_bytes;             // the largest staged dy tile (a multiple of 16); the weights follow
  int vector16;                 // stage dy in 16-byte copies (K/G a multiple of 8, aligned)
};

template <class T>
__device__ __forceinline__ void narrow_mma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) sm80::mma_bf16(d, a, b);
  else sm80::mma_fp16(d, a, b);
}

template <class T>
__device__ __forceinline__ std::uint32_t pack_pair(T lo, T hi) {
  static_assert(sizeof(T) == 2);
  return std::uint32_t(*reinterpret_cast<const unsigned short*>(&lo)) |
         (std::uint32_t(*reinterpret_cast<const unsigned short*>(&hi)) << 16);
}

// GPW: 16-pixel row groups per warp (the tile's th * tw / 128).
template <class T, int GPW>
__global__ void __launch_bounds__(narrow_bwd_data_plan::threads)
    narrow_bwd_data_kernel(const __grid_constant__ narrow_bwd_data_params p) {
  using plan = narrow_bwd_data_plan;
  constexpr int KC = plan::chunk_k, PITCH = plan::pitch, KS = KC / 16, THREADS = plan::threads;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ narrow_taps taps_y, taps_x;

  const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int phases = p.sy * p.sx;
  const int phase = int(blockIdx.x) % phases, tile = int(blockIdx.x) / phases % p.tiles;
  const int iz = int(blockIdx.x) / phases / p.tiles;  // the dx depth (0 in 1-D and 2-D)
  const int phy = phase / p.sx, phx = phase % p.sx;
  const int ty = tile / p.tiles_x, tx = tile % p.tiles_x;
  const long long n = blockIdx.y, g = blockIdx.z;

  if (tid == 0) taps_y = narrow_phase_taps(phy, p.py, p.fy, p.dly, p.sy);
  if (tid == 32) taps_x = narrow_phase_taps(phx, p.px, p.fx, p.dlx, p.sx);
  __syncthreads();
  const int ny = taps_y.count, nx = taps_x.count;

  float acc[GPW][4];
#pragma unroll
  for (int q = 0; q < GPW; ++q)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[q][j] = 0.0f;

  const int cw = p.tw / 16;  // row groups per lattice row of the tile
  if (ny > 0 && nx > 0) {
    const int min_by = taps_y.base[ny - 1], min_bx = taps_x.base[nx - 1];
    const int rows = p.th + taps_y.base[0] - min_by, cols = p.tw + taps_x.base[0] - min_bx;
    const int oy_lo = ty * p.th + min_by, ox_lo = tx * p.tw + min_bx;
    T* dy_s = reinterpret_cast<T*>(smem);
    const std::uint32_t dy_s_addr = sm80::smem_address(dy_s);
    uint2* w_s = reinterpret_cast<uint2*>(smem + p.staged_bytes);
    const T* dy_image = static_cast<const T*>(p.dy) + n * p.dy_n + g * p.dy_g;
    const T* w_group = static_cast<const T*>(p.wei) + g * p.w_g;

    // Each lane's ldmatrix row (pixel) and channel half, per row group: its offset in the
    // staged tile for the phase's first tap offsets (0, 0).
    const int row_in_group = (lane & 7) + ((lane >> 3) & 1) * 8, k_half = (lane >> 4) * 8;
    int lane_offset[GPW];
#pragma unroll
    for (int q = 0; q < GPW; ++q) {
      const int group = warp * GPW + q;
      lane_offset[q] = ((group / cw) * cols + (group % cw) * 16 + row_in_group) * PITCH + k_half;
    }

    const int staged_pixels = rows * cols;
    const int weight_slots = ny * nx * KS * 32;
    // The depth taps that reach dx depth iz (the same for the whole block): dy depth oz = (iz + pz -
    // fz * dlz) / sz where exact and inside dy. 1-D and 2-D layers have the one tap fz = 0 at oz = iz = 0.
    for (int fz = 0; fz < p.fz; ++fz) {
      const int rz = iz + p.pz - fz * p.dlz;
      if (rz < 0 || rz % p.sz != 0 || rz / p.sz >= p.dout) continue;
      const T* dy = dy_image + (rz / p.sz) * p.dy_d;
      const T* w = w_group + fz * p.w_z;
      for (int k0 = 0; k0 < p.k; k0 += KC) {
        __syncthreads();  // the previous chunk's reads are done
        if (p.vector16) {
          for (int v = tid; v < staged_pixels * (KC / 8); v += THREADS) {
            const int part = v % (KC / 8), pix = v / (KC / 8);
            const int oy = oy_lo + pix / cols, ox = ox_lo + pix % cols, kk = k0 + part * 8;
            const bool inside = oy >= 0 && oy < p.ho && ox >= 0 && ox < p.wo && kk < p.k;
            const T* src = inside ? dy + oy * p.dy_h + ox * p.dy_w + kk : dy;
            sm80::cp_async<16>(dy_s_addr + std::uint32_t((pix * PITCH + part * 8) * 2), src, inside ? 16 : 0);
          }
        } else {
          for (int e = tid; e < staged_pixels * KC; e += THREADS) {
            const int ch = e % KC, pix = e / KC;
            const int oy = oy_lo + pix / cols, ox = ox_lo + pix % cols, kk = k0 + ch;
            const bool inside = oy >= 0 && oy < p.ho && ox >= 0 && ox < p.wo && kk < p.k;
            dy_s[pix * PITCH + ch] = inside ? dy[oy * p.dy_h + ox * p.dy_w + kk] : T(0.0f);
          }
        }
        // B fragments: lane l holds w[k][c = l / 4] for k = 2 (l % 4) + {0, 1} and + {8, 9}.
        for (int e = tid; e < weight_slots; e += THREADS) {
          const int l = e & 31, step = (e >> 5) % KS, t = (e >> 5) / KS;
          const int c = l >> 2, kb = k0 + step * 16 + (l & 3) * 2;
          const T* wt = w + taps_y.tap[t / nx] * p.w_y + taps_x.tap[t % nx] * p.w_x + c;
          auto at = [&](int kk) { return kk < p.k && c < p.c ? wt[kk * p.w_k] : T(0.0f); };
          w_s[e] = make_uint2(pack_pair(at(kb), at(kb + 1)), pack_pair(at(kb + 8), at(kb + 9)));
        }
        if (p.vector16) {
          sm80::cp_async_commit();
          sm80::cp_async_wait<0>();
        }
        __syncthreads();

        for (int a = 0; a < ny; ++a)
          for (int b = 0; b < nx; ++b) {
            const int tap_offset = ((taps_y.base[a] - min_by) * cols + taps_x.base[b] - min_bx) * PITCH;
            const uint2* wt = w_s + (a * nx + b) * KS * 32 + lane;
#pragma unroll
            for (int step = 0; step < KS; ++step) {
              const uint2 bw = wt[step * 32];
              const std::uint32_t bf[2] = {bw.x, bw.y};
#pragma unroll
              for (int q = 0; q < GPW; ++q) {
                std::uint32_t af[4];
                sm80::ldmatrix_x4(af, dy_s_addr + std::uint32_t((lane_offset[q] + tap_offset + step * 16) * 2));
                narrow_mma<T>(acc[q], af, bf);
              }
            }
          }
      }
    }
  }

  // Lane l holds pixels l / 4 and l / 4 + 8 of its row groups, channels 2 (l % 4) + {0, 1}.
  T* dx = static_cast<T*>(p.dx) + n * p.dx_n + g * p.dx_g + iz * p.dx_d;
  const int c0 = (lane & 3) * 2;
#pragma unroll
  for (int q = 0; q < GPW; ++q) {
    const int group = warp * GPW + q;
    const int iy = phy + p.sy * (ty * p.th + group / cw);
    if (iy >= p.hi) continue;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int ix = phx + p.sx * (tx * p.tw + (group % cw) * 16 + (lane >> 2) + half * 8);
      if (ix >= p.wi) continue;
      T* out = dx + iy * p.dx_h + ix * p.dx_w;
#pragma unroll
      for (int j = 0; j < 2; ++j)
        if (c0 + j < p.c) out[c0 + j] = T(acc[q][half * 2 + j]);
    }
  }
}

template <class T, int GPW>
cudaError_t narrow_bwd_data_launch(const narrow_bwd_data_params& kp, dim3 grid, int smem, cudaStream_t stream,
                                   int device) {
  auto kernel = narrow_bwd_data_kernel<T, GPW>;
  // The default limit (48 KiB) counts the static tap lists too.
  if (smem + narrow_bwd_data_plan::static_smem > 48 * 1024) {
    const cudaError_t err = allow_dynamic_smem(kernel, smem, device);
    if (err != cudaSuccess) return err;
  }
  kernel<<<grid, narrow_bwd_data_plan::threads, smem, stream>>>(kp);
  return cudaGetLastError();
}

// The launch: the plan's tile for the device's shared memory, one block per tile, phase,
// dx depth, image and group.
template <class T>
status narrow_bwd_data<T>::run(const grouped_conv_problem& p, const grouped_conv_args& a, bool vector16,
                               void* stream) {
  using plan = narrow_bwd_data_plan;
  const device_info dev = current_device_info();  // once a launch: each ask is a runtime call
  if (dev.ordinal < 0) return status::error("no CUDA device");
  const int smem_optin = dev.max_smem_optin;
  const auto t = plan::tile_for(p, plan::dynamic_capacity(smem_optin));
  if (!t)
    return status::error("narrow-channel backward-data: no tile fits the device's " + std::to_string(smem_optin) +
                         " bytes of shared memory per block");
  if (p.n == 0 || p.c == 0) return status::ok();
  const plan::dim_plan y = plan::plan_dim(p, 1), x = plan::plan_dim(p, 2);
  const auto out = p.output_dims();

  narrow_bwd_data_params kp{};
  kp.dy = a.out;
  kp.wei = a.wei;
  kp.dx = a.in;
  kp.di = int(p.input_dims[0]);
  kp.hi = int(p.input_dims[1]);
  kp.wi = int(p.input_dims[2]);
  kp.dout = int(out[0]);
  kp.ho = int(out[1]);
  kp.wo = int(out[2]);
  kp.c = int(p.c_per_group());
  kp.k = int(p.k_per_group());
  kp.fz = int(p.filter_dims[0]);
  kp.fy = int(p.filter_dims[1]);
  kp.fx = int(p.filter_dims[2]);
  kp.sz = int(p.stride_dims[0]);
  kp.sy = int(p.stride_dims[1]);
  kp.sx = int(p.stride_dims[2]);
  kp.dlz = int(p.dilation_dims[0]);
  kp.dly = int(p.dilation_dims[1]);
  kp.dlx = int(p.dilation_dims[2]);
  kp.pz = int(p.pad_left_dims[0]);
  kp.py = int(p.pad_left_dims[1]);
  kp.px = int(p.pad_left_dims[2]);
  kp.dx_n = p.in_strides.n;
  kp.dx_g = p.in_strides.g;
  kp.dx_d = p.in_strides.spatial[0];
  kp.dx_h = p.in_strides.spatial[1];
  kp.dx_w = p.in_strides.spatial[2];
  kp.dy_n = p.out_strides.n;
  kp.dy_g = p.out_strides.g;
  kp.dy_d = p.out_strides.spatial[0];
  kp.dy_h = p.out_strides.spatial[1];
  kp.dy_w = p.out_strides.spatial[2];
  kp.w_g = p.wei_strides.g;
  kp.w_k = p.wei_strides.n;
  kp.w_z = p.wei_strides.spatial[0];
  kp.w_y = p.wei_strides.spatial[1];
  kp.w_x = p.wei_strides.spatial[2];
  kp.th = t->th;
  kp.tw = t->tw;
  kp.tiles_x = (x.lattice + t->tw - 1) / t->tw;
  kp.tiles = ((y.lattice + t->th - 1) / t->th) * kp.tiles_x;
  kp.staged_bytes = int((t->th + y.spread) * (t->tw + x.spread) * plan::pitch * 2);
  kp.vector16 = vector16 ? 1 : 0;

  const long smem = plan::smem_bytes(p, *t);
  const dim3 grid(unsigned(long(kp.tiles) * kp.sy * kp.sx * kp.di), unsigned(p.n), unsigned(p.g));
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t err;
  switch (t->groups_per_warp()) {
    case 4: err = narrow_bwd_data_launch<T, 4>(kp, grid, int(smem), s, dev.ordinal); break;
    case 2: err = narrow_bwd_data_launch<T, 2>(kp, grid, int(smem), s, dev.ordinal); break;
    default: err = narrow_bwd_data_launch<T, 1>(kp, grid, int(smem), s, dev.ordinal); break;
  }
  if (err != cudaSuccess)
    return status::error(std::string("narrow-channel backward-data launch: ") + cudaGetErrorString(err));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda::direct
