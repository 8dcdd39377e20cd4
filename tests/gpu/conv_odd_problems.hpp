// The odd forward problems the GPU test runs every convolution kernel on (tests/gpu/conv_gpu_test.cpp),
// shared with the host test that checks offline that each forward implicit-GEMM kernel accepts one of
// them (tests/unit/shipped_conv_instances_test.cpp): a kernel no problem reaches would go untested.
#pragma once

#include <vector>

#include "kdecl/registry/conv_instance.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::conv_test {

// Forward problems of each rank (signature fields are set from the kernel under test).
inline std::vector<grouped_conv_problem> odd_problems(int ndim) {
  using P = grouped_conv_problem;
  switch (ndim) {
    case 1:
      return {P{}.batch(2).channels(16, 32).input_size({101}).filter_size({5}).stride({2}).dilation({3}).padding({4}),
              P{}.batch(3).channels(8, 8).groups(2).input_size({33}).filter_size({3}).padding({0}, {2}),
              // C/G = 64: the sm_90 kernel's TMA producer (3-D im2col loads)
              P{}.batch(3).channels(64, 40).input_size({77}).filter_size({3}).stride({2}).padding({1}),
              // a waveform's first convolution (C = 1): the kernels reading channel-padded copies
              P{}.batch(2).channels(1, 32).input_size({403}).filter_size({10}).stride({5}),
              // odd C and K (5, 7): every operand through channel-padded copies
              P{}.batch(3).channels(5, 7).input_size({29}).filter_size({3}).padding({1})};
    case 3:
      return {P{}.batch(1).channels(8, 16).input_size({5, 9, 9}).filter_size({3}).stride({1, 2, 2}).padding({1}),
              P{}.batch(3).channels(16, 16).groups(2).input_size({4, 7, 6}).filter_size({3, 1, 3}).padding({1, 0, 1}),
              // C/G = 64: the sm_90 kernel's TMA producer (5-D im2col loads)
              P{}.batch(2).channels(64, 48).input_size({5, 7, 9}).filter_size({3}).padding({1, 0, 1}, {1, 1, 0}),
              // a video stem (C = 3): the kernels reading channel-padded copies
              P{}.batch(1).channels(3, 16).input_size({4, 15, 13}).filter_size({3, 7, 7}).stride({1, 2, 2})
                  .padding({1, 3, 3}),
              // K/G = 20 and odd C and K: y through a channel-padded copy
              P{}.batch(2).channels(16, 20).input_size({4, 7, 6}).filter_size({3}).padding({1}),
              // Halo tiles (stride1): two 64-channel chunks x 3 filter depths 2 apart (dilation 2 in D)
              P{}.batch(1).channels(128, 40).input_size({6, 9, 17}).filter_size({3}).dilation({2, 1, 1})
                  .padding({2, 1, 1}),
              P{}.batch(1).channels(5, 3).input_size({5, 6, 7}).filter_size({3}).stride({2}).padding({1})};
    default:
      return {
          P{}.batch(1).channels(4, 64).input_size({37, 41}).filter_size({7}).stride({2}).padding({3}),       // stem
          P{}.batch(3).channels(8, 24).input_size({17, 13}).filter_size({3}).dilation({2}).padding({2}),     // dilation 2
          P{}.batch(2).channels(16, 32).input_size({15, 12}).filter_size({3}).stride({2}).padding({0, 1}, {1, 2}),
          P{}.batch(3).channels(64, 128).input_size({14, 14}).filter_size({1}).stride({2}),                  // 1x1 s2
          P{}.batch(3).channels(96, 80).input_size({7, 9}).filter_size({1}),  // 1x1 s1: a GEMM on the input as it lies
          P{}.batch(1).channels(32, 48).groups(2).input_size({9, 11}).filter_size({3}).padding({1}),          // G = 2
          P{}.batch(2).channels(256, 256).groups(32).input_size({14, 14}).filter_size({3}).padding({1}),      // G = 32
          P{}.batch(1).channels(64, 64).input_size({55, 57}).filter_size({3}).padding({1}),                   // odd sizes
          P{}.batch(3).channels(128, 256).input_size({28, 28}).filter_size({3}).stride({2}).padding({1}),
          // Several tiles per block of a persistent kernel (198 tiles of 128x128 on 132 SMs), a ragged
          // N tile, taps that change inside a k-block (C/G = 16).
          P{}.batch(2).channels(16, 320).input_size({64, 66}).filter_size({3}).padding({1}),
          // C/G = 64 (the sm_90 kernel's TMA producer): G = 2 with K/G = 40, dilation 2, asymmetric padding.
          P{}.batch(2).channels(128, 80).groups(2).input_size({19, 23}).filter_size({3}).dilation({2})
              .padding({2, 1}, {1, 3}),
          // C/G = 3 and 13, G = 1 and 2: the kernels reading channel-padded copies
          P{}.batch(2).channels(3, 32).input_size({23, 21}).filter_size({3}).stride({2}).padding({1}),
          P{}.batch(1).channels(26, 48).groups(2).input_size({9, 10}).filter_size({3}).padding({1}),
          // K/G = 20, 7 and 5 (C/G = 16, 5, 3; G = 1 and 3): y through a channel-padded copy, W's
          // output channels padded with zero filters
          P{}.batch(2).channels(16, 20).input_size({13, 15}).filter_size({3}).padding({1}),
          P{}.batch(3).channels(5, 7).input_size({11, 12}).filter_size({3}).stride({2}).padding({1}),
          P{}.batch(1).channels(9, 15).groups(3).input_size({10, 9}).filter_size({3}).padding({1}),
          // Merged groups (groups_to_merge > 1): C/G = K/G = 4 (the weights in 8-byte halves), and
          // C/G = 12 (chunks across two groups) with K/G = 20 (a merged block wider than one tile).
          P{}.batch(3).channels(128, 128).groups(32).input_size({13, 11}).filter_size({3}).padding({1}),
          P{}.batch(2).channels(96, 160).groups(8).input_size({12, 10}).filter_size({5}).stride({2})
              .padding({2, 1}, {1, 2}),
          // Halo tiles (stride1, C/G a multiple of 64): output columns past a tile's edge (W = 21) and
          // a ragged N tile (K = 72) with asymmetric padding; three 64-channel chunks and a 2x3 filter;
          // G = 2 with a 1x5 filter dilated 2 along W (the widest halo: 9 columns); 224 tiles of
          // 8 x 16 pixels (several per block of a persistent kernel, each halo stage reused).
          P{}.batch(3).channels(64, 72).input_size({13, 21}).filter_size({3}).padding({1, 0}, {0, 1}),
          P{}.batch(1).channels(192, 64).input_size({9, 40}).filter_size({2, 3}).padding({1, 1}, {0, 1}),
          P{}.batch(2).channels(128, 64).groups(2).input_size({11, 30}).filter_size({1, 5}).dilation({1, 2})
              .padding({0, 4}),
          P{}.batch(8).channels(64, 64).input_size({56, 60}).filter_size({3}).padding({1}),
          // Streamed rows (stride1_rows, C/G = 64, 3x3): three strips of 192 pixels, the last of 15,
          // and seven output rows in bands of two (the last band one row); G = 2 with K/G = 40 and
          // a filter dilated 2 along W, asymmetric padding.
          P{}.batch(1).channels(64, 40).input_size({9, 401}).filter_size({3}),
          P{}.batch(2).channels(128, 80).groups(2).input_size({19, 23}).filter_size({3}).dilation({1, 2})
              .padding({1, 2}, {0, 1}),
      };
  }
}

// The kernels ConvGpuInstances is the only GPU test of: implicit GEMMs in the forward direction
// (the direct kernels and the backward ones have tests of their own).
inline bool is_forward_implicit_gemm(const conv_instance& k) {
  const auto& key = k.key();
  return key.sig.dir == conv_direction::fwd &&
         (key.algo.pipe == pipeline::cp_async || key.algo.pipe == pipeline::tma_wgmma);
}

}  // namespace kdecl::conv_test
