// The explicit im2col gather of the sm_90 8-bit forward convolution (kernels/conv/cuda/im2col.cuh)
// on the GPU against its definition computed here, bit for bit: 1-, 2- and 3-D filters with
// strides, dilations and padding, groups, padded input strides, 8- and 16-bit elements; chunks of
// one tap's channels (one 16-byte load) and element-wise ones (C/G of 3 and 5, an odd pointer);
// the columns past taps x C/G zeroed; the division-free decode (fast_divmod) and the 64-bit one
// (wide_indices) alike. The columns are poisoned first.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kdecl/kernels/conv/cuda/im2col.cuh"

namespace kdecl {
namespace {

using kernels::cuda::im2col_geometry;

bool have_gpu() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

struct layer {
  std::string name;
  std::int64_t images, groups, channels;  // C/G
  std::int64_t in[3], filter[3], stride[3], dilation[3], pad[3];
  std::int64_t pos_pad = 0;   // elements between pixels beyond the channels (a padded input)
  std::int64_t in_offset = 0; // elements the input pointer is moved by (0: 16-byte aligned)
};

im2col_geometry geometry_of(const layer& l, std::int64_t elem_bytes) {
  im2col_geometry g;
  g.images = l.images;
  g.groups = l.groups;
  g.channels = l.channels;
  for (int d = 0; d < 3; ++d) {
    g.in[d] = l.in[d];
    g.filter[d] = l.filter[d];
    g.stride[d] = l.stride[d];
    g.dilation[d] = l.dilation[d];
    g.pad_left[d] = l.pad[d];
    g.out[d] = (l.in[d] + 2 * l.pad[d] - l.dilation[d] * (l.filter[d] - 1) - 1) / l.stride[d] + 1;
  }
  // Channels-last: [image][d0][d1][d2][group][channel], pixels pos_pad elements apart beyond the channels.
  g.in_group = l.channels;
  g.in_pos[2] = l.groups * l.channels + l.pos_pad;
  g.in_pos[1] = g.in_pos[2] * l.in[2];
  g.in_pos[0] = g.in_pos[1] * l.in[1];
  g.in_image = g.in_pos[0] * l.in[0];
  const std::int64_t v = 16 / elem_bytes;
  g.ld = (g.width() + v - 1) / v * v + v;  // a chunk of slack past the width: zeroed
  return g;
}

template <class T>
std::vector<T> reference(const std::vector<T>& in, std::int64_t in_offset, const im2col_geometry& g) {
  std::vector<T> col(std::size_t(g.groups * g.rows() * g.ld), T{});
  for (std::int64_t grp = 0; grp < g.groups; ++grp)
    for (std::int64_t row = 0; row < g.rows(); ++row) {
      const std::int64_t image = row / g.out_positions(), pos = row % g.out_positions();
      const std::int64_t o[3] = {pos / (g.out[1] * g.out[2]), pos / g.out[2] % g.out[1], pos % g.out[2]};
      for (std::int64_t j = 0; j < g.width(); ++j) {
        const std::int64_t tap = j / g.channels, c = j % g.channels;
        const std::int64_t t[3] = {tap / (g.filter[1] * g.filter[2]), tap / g.filter[2] % g.filter[1], tap % g.filter[2]};
        std::int64_t at = in_offset + image * g.in_image + grp * g.in_group + c;
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
          const std::int64_t i = o[d] * g.stride[d] - g.pad_left[d] + t[d] * g.dilation[d];
          inside = inside && i >= 0 && i < g.in[d];
          at += i * g.in_pos[d];
        }
        if (inside) col[std::size_t(grp * g.rows() * g.ld + row * g.ld + j)] = in[std::size_t(at)];
      }
    }
  return col;
}

template <class T>
void check(const layer& l, bool wide) {
  SCOPED_TRACE(l.name + (wide ? " (64-bit indices)" : "") + ", " + std::to_string(sizeof(T)) + "-byte elements");
  const im2col_geometry g = geometry_of(l, sizeof(T));
  const std::size_t in_elems = std::size_t(l.in_offset + g.in_image * g.images + 16);
  std::vector<T> in(in_elems);
  std::mt19937 rng(17);
  for (auto& x : in) x = T(rng() % 250 + 1);  // never 0: a zero where a value belongs shows
  const std::vector<T> expect = reference(in, l.in_offset, g);
  T *d_in = nullptr, *d_col = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, in_elems * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_col, expect.size() * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_in, in.data(), in_elems * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_col, 0xA5, expect.size() * sizeof(T)), cudaSuccess);  // poisoned
  const status s = kernels::cuda::im2col<T>(d_in + l.in_offset, d_col, g, nullptr, wide);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<T> got(expect.size());
  ASSERT_EQ(cudaMemcpy(got.data(), d_col, got.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  std::size_t wrong = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expect[i]) {
      ++wrong;
      if (first == got.size()) first = i;
    }
  EXPECT_EQ(wrong, 0u) << "first at element " << first << " (row " << first / std::size_t(g.ld) << ", column "
                       << first % std::size_t(g.ld) << "): " << int(got[first]) << " for " << int(expect[first]);
  cudaFree(d_in);
  cudaFree(d_col);
}

const std::vector<layer>& layers() {
  static const std::vector<layer> all = {
      // name, N, G, C/G, in (D, H, W), filter, stride, dilation, pad, pixel padding, pointer offset
      {"RGB stem 7x7/2", 2, 1, 3, {1, 37, 41}, {1, 7, 7}, {1, 2, 2}, {1, 1, 1}, {0, 3, 3}},
      {"3x3 pad 1, 64 channels", 2, 1, 64, {1, 15, 17}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 1, 1}},
      {"grouped 3-D, dilated", 2, 3, 5, {5, 9, 7}, {3, 3, 2}, {2, 1, 2}, {1, 2, 1}, {1, 2, 0}},
      {"1-D, 32 channels, strided", 3, 2, 32, {1, 1, 61}, {1, 1, 5}, {1, 1, 3}, {1, 1, 1}, {0, 0, 2}},
      {"padded pixels, odd pointer", 2, 1, 32, {1, 9, 11}, {1, 3, 3}, {1, 2, 1}, {1, 1, 1}, {0, 1, 1}, 3, 1},
  };
  return all;
}

TEST(Im2colGpu, MatchesItsDefinitionBitForBit) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  for (const layer& l : layers())
    for (bool wide : {false, true}) {
      check<std::uint8_t>(l, wide);
      check<std::uint16_t>(l, wide);
    }
}

}  // namespace
}  // namespace kdecl
