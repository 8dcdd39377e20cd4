// Compile (and, where an AMD GPU exists, run) test of the HIP MFMA GEMM family.
//
// Build: hipcc -std=c++20 -O3 --offload-arch=gfx90a --offload-arch=gfx940 -I include \
//          tests/hip/gemm_hip_compile.cpp -o gemm_hip_compile
//
// Three layers:
//  1. compile time: static_asserts on the support rules (keys that must be
//     refused, geometry of keys that must be accepted);
//  2. host checks that need no GPU: the OCP -> FNUZ fp8 rewrite against exact
//     decoders, the MFMA output-layout formula, the device-name parser;
//  3. device runs: every instance below against a double-precision host
//     reference (outputs poisoned first, random inputs in [-1, 1] without zeros,
//     relative Frobenius error, exact for int8, untouched slack checked).
//     Without a HIP device (hipGetDeviceCount fails) it says so and exits 0.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kdecl/kernels/gemm/hip/gemm_kernel_hip.hpp"

namespace {

using namespace kdecl;
namespace khip = kdecl::kernels::hip;

// ---------------------------------------------------------------------------
// Keys under test.

struct spec {
  dtype ab = dtype::fp16;
  dtype c = dtype::fp16;
  gemm_layout lay = rcr;
  mnk tile{128, 128, 32};
  mnk warps{2, 2, 1};
  mnk warp_tile{32, 32, 16};
  pipeline pipe = pipeline::compv3;
  epilogue epi = epilogue::cshuffle;
  arch_id arch = arch_id::gfx90a;
  int vector_bytes = 16;
  tristate pad = tristate::yes;
  elementwise ew = elementwise::pass_through;
  int num_d = 0;
  scheduler sched = scheduler::intrawave;
  int stages = -1;  // -1: the pipeline's LDS tile count
};

constexpr gemm_key make_key(spec s) {
  gemm_key k;
  k.sig.a = k.sig.b = k.sig.compute = s.ab;
  k.sig.c = s.c;
  k.sig.acc = default_accumulator(s.ab);
  k.sig.lay = s.lay;
  k.sig.variant = s.num_d > 0 || s.ew != elementwise::pass_through ? gemm_variant::multi_d : gemm_variant::standard;
  k.sig.ew = s.ew;
  k.sig.num_d = s.num_d;
  k.algo.tile = s.tile;
  k.algo.warps = s.warps;
  k.algo.warp_tile = s.warp_tile;
  k.algo.pipe = s.pipe;
  k.algo.stages = s.stages >= 0 ? s.stages : khip::lds_buffers_of(s.pipe);
  k.algo.epi = s.epi;
  k.algo.sched = s.sched;
  k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = s.pad;
  k.algo.vector_bytes = s.vector_bytes;
  k.algo.arch = s.arch;
  return k;
}

using enum dtype;
constexpr auto gfx90a = arch_id::gfx90a;
constexpr auto gfx942 = arch_id::gfx942;
constexpr auto direct = epilogue::direct;

// Every dtype, every layout, all three pipelines, both epilogues, every
// elementwise op, both pads, all three vector widths, both archs.
constexpr gemm_key k_fp16_rcr = make_key({});
constexpr gemm_key k_fp16_rrr = make_key({.lay = rrr, .tile = {128, 64, 32}, .warp_tile = {32, 32, 8},
                                          .pipe = pipeline::compv4, .epi = direct});
constexpr gemm_key k_bf16_crr = make_key({.ab = bf16, .c = bf16, .lay = crr, .tile = {64, 128, 32}, .warps = {1, 4, 1},
                                          .warp_tile = {16, 16, 16}, .pipe = pipeline::compv4, .vector_bytes = 8});
constexpr gemm_key k_bf16_ccr = make_key({.ab = bf16, .c = fp32, .lay = ccr, .tile = {64, 64, 64}, .warps = {4, 1, 1},
                                          .warp_tile = {16, 16, 32}, .pipe = pipeline::mem, .epi = direct});
constexpr gemm_key k_fp32_rcr = make_key({.ab = fp32, .c = fp32, .tile = {64, 64, 16}, .warp_tile = {16, 16, 4},
                                          .epi = direct});
constexpr gemm_key k_fp32_crr = make_key({.ab = fp32, .c = fp32, .lay = crr, .tile = {64, 64, 32},
                                          .warp_tile = {16, 16, 16}, .pipe = pipeline::compv4, .arch = gfx942,
                                          .vector_bytes = 4});
constexpr gemm_key k_int8_rcr = make_key({.ab = int8, .c = int32, .tile = {128, 128, 64}, .warp_tile = {32, 32, 16}});
constexpr gemm_key k_int8_rrr = make_key({.ab = int8, .c = int32, .lay = rrr, .tile = {64, 64, 64},
                                          .warp_tile = {16, 16, 32}, .pipe = pipeline::compv4, .epi = direct,
                                          .arch = gfx942});
constexpr gemm_key k_int8_ccr_i8out = make_key({.ab = int8, .c = int8, .lay = ccr, .tile = {64, 64, 32},
                                                .warp_tile = {16, 16, 16}, .pipe = pipeline::mem, .vector_bytes = 4});
constexpr gemm_key k_fp8_rcr = make_key({.ab = fp8, .c = fp16, .tile = {128, 128, 64}, .warp_tile = {32, 32, 32},
                                         .arch = gfx942});
constexpr gemm_key k_bf8_ccr = make_key({.ab = bf8, .c = fp32, .lay = ccr, .tile = {64, 64, 64},
                                         .warp_tile = {16, 16, 64}, .pipe = pipeline::compv4, .epi = direct,
                                         .arch = gfx942});
constexpr gemm_key k_gelu = make_key({.ew = elementwise::gelu, .num_d = 2});
constexpr gemm_key k_relu = make_key({.tile = {64, 64, 32}, .epi = direct, .arch = gfx942,
                                      .ew = elementwise::relu, .num_d = 1});
constexpr gemm_key k_sigmoid = make_key({.ab = bf16, .c = bf16, .lay = crr, .tile = {64, 64, 32},
                                         .warp_tile = {16, 16, 16}, .ew = elementwise::sigmoid, .num_d = 1});
constexpr gemm_key k_tanh = make_key({.lay = rrr, .tile = {64, 128, 32}, .warps = {1, 4, 1}, .pipe = pipeline::compv4,
                                      .epi = direct, .ew = elementwise::tanh, .num_d = 3});
constexpr gemm_key k_dadd = make_key({.ab = fp32, .c = fp32, .tile = {64, 64, 16}, .warp_tile = {16, 16, 4},
                                      .pipe = pipeline::mem, .ew = elementwise::multi_d_add, .num_d = 2});
constexpr gemm_key k_fp16_nopad = make_key({.pipe = pipeline::compv4, .arch = gfx942, .pad = tristate::no});

// ---------------------------------------------------------------------------
// Layer 1: compile-time rules.

constexpr bool refused(spec s) { return khip::hip_gemm_unsupported(make_key(s)) != nullptr; }

static_assert(refused({.sched = scheduler::interwave}), "interwave is not implemented");
static_assert(refused({.ab = fp8, .c = fp16, .warp_tile = {32, 32, 16}}), "no fp8 MFMA on gfx90a");
static_assert(refused({.ab = int8, .c = int32, .warp_tile = {32, 32, 8}, .arch = gfx942}),
              "gfx942 int8 MFMA has k = 16");
static_assert(!refused({.ab = int8, .c = int32, .tile = {128, 128, 32}, .warp_tile = {32, 32, 16}, .arch = gfx942}));
static_assert(refused({.pipe = pipeline::compv4, .stages = 1}), "compv4 keeps two LDS tiles");
static_assert(refused({.pipe = pipeline::compv5}), "compv5 is not implemented");
static_assert(refused({.lay = {layout::row, layout::col, layout::col}}), "C must be row-major");
static_assert(refused({.warp_tile = {4, 64, 16}}), "4x64 warp tiles are not implemented");
static_assert(refused({.warp_tile = {32, 32, 32}}), "fp16 fragment above 16 bytes");
static_assert(refused({.tile = {256, 256, 64}, .pipe = pipeline::compv4}), "LDS above 64 KiB");
static_assert(refused({.tile = {256, 256, 32}, .warps = {1, 1, 1}}), "too many accumulators");
static_assert(refused({.ab = fp16, .c = int32}), "float GEMM cannot write int32");
static_assert(refused({.lay = crr, .tile = {100, 128, 32}, .warps = {1, 4, 1}, .warp_tile = {16, 16, 16}}),
              "tile.m must be a multiple of warps.m * warp_tile.m");

// Geometry of an accepted key: 128x128x32 fp16, 2x2 waves, 32x32x16 warp tile, one LDS buffer.
constexpr khip::hip_gemm_geometry geo_fp16 = khip::geometry_of(k_fp16_rcr);
static_assert(geo_fp16.threads == 256 && geo_fp16.rep_m == 2 && geo_fp16.rep_n == 2);
static_assert(geo_fp16.k_repeat == 2 && geo_fp16.fragment_bytes == 16 && geo_fp16.accumulators == 64);
static_assert(geo_fp16.lds_row_a == 40 && geo_fp16.lds_mainloop_bytes == 2 * 128 * 40 * 2);
static_assert(geo_fp16.c_vector == 8 && geo_fp16.lds_epilogue_bytes == 4 * 32 * 36 * 4);

// ---------------------------------------------------------------------------
// Host-side element codecs (test-local): quantize doubles to a dtype and back.

double decode_minifloat(std::uint8_t b, int exp_bits, int man_bits, int bias) {
  const int sign = b >> 7;
  const int e = (b >> man_bits) & ((1 << exp_bits) - 1);
  const int f = b & ((1 << man_bits) - 1);
  const double mag = e == 0 ? std::ldexp(f, 1 - bias - man_bits) : std::ldexp((1 << man_bits) + f, e - bias - man_bits);
  return sign ? -mag : mag;
}
// OCP E4M3: NaN at magnitude 0x7f, no infinities. OCP E5M2: IEEE-like, inf 0x7c, NaN 0x7d..0x7f.
double decode_e4m3(std::uint8_t b) { return (b & 0x7f) == 0x7f ? NAN : decode_minifloat(b, 4, 3, 7); }
double decode_e5m2(std::uint8_t b) {
  if ((b & 0x7f) == 0x7c) return b & 0x80 ? -INFINITY : INFINITY;
  return (b & 0x7f) > 0x7c ? NAN : decode_minifloat(b, 5, 2, 15);
}
// FNUZ (CDNA3) readings: bias one larger, 0x80 the only NaN, no infinities.
double decode_e4m3_fnuz(std::uint8_t b) { return b == 0x80 ? NAN : decode_minifloat(b, 4, 3, 8); }
double decode_e5m2_fnuz(std::uint8_t b) { return b == 0x80 ? NAN : decode_minifloat(b, 5, 2, 16); }

std::uint8_t encode_nearest(double v, double (*decode)(std::uint8_t)) {
  int best = 0;
  double best_err = INFINITY;
  for (int b = 0; b < 256; ++b) {
    const double d = decode(static_cast<std::uint8_t>(b));
    if (std::isnan(d) || std::isinf(d)) continue;
    const double err = std::fabs(d - v);
    if (err < best_err) best_err = err, best = b;
  }
  return static_cast<std::uint8_t>(best);
}

std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}
float bf16_value(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int size_of(dtype d) { return bits_of(d) / 8; }

// Writes v (already representable) as dtype d at p.
void encode(dtype d, double v, unsigned char* p) {
  switch (d) {
    case fp16: { const _Float16 h = static_cast<_Float16>(v); std::memcpy(p, &h, 2); break; }
    case bf16: { const std::uint16_t h = bf16_bits(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    case fp32: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    case fp8: *p = encode_nearest(v, decode_e4m3); break;
    case bf8: *p = encode_nearest(v, decode_e5m2); break;
    case int8: { const auto i = static_cast<std::int8_t>(v); std::memcpy(p, &i, 1); break; }
    case int32: { const auto i = static_cast<std::int32_t>(v); std::memcpy(p, &i, 4); break; }
    default: std::abort();
  }
}
double decode(dtype d, const unsigned char* p) {
  switch (d) {
    case fp16: { _Float16 h; std::memcpy(&h, p, 2); return static_cast<double>(h); }
    case bf16: { std::uint16_t h; std::memcpy(&h, p, 2); return bf16_value(h); }
    case fp32: { float f; std::memcpy(&f, p, 4); return f; }
    case fp8: return decode_e4m3(*p);
    case bf8: return decode_e5m2(*p);
    case int8: { std::int8_t i; std::memcpy(&i, p, 1); return i; }
    case int32: { std::int32_t i; std::memcpy(&i, p, 4); return i; }
    default: std::abort();
  }
}
// Nearest representable value of dtype d.
double quantize(dtype d, double v) {
  unsigned char buf[4];
  encode(d, v, buf);
  return decode(d, buf);
}

// ---------------------------------------------------------------------------
// Layer 2: host checks that need no GPU.

int host_failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("HOST CHECK FAILED: %s\n", what);
    ++host_failures;
  }
}

void check_fnuz_rewrite() {
  for (int b = 0; b < 256; ++b) {
    const auto byte = static_cast<std::uint32_t>(b);
    const auto e4 = static_cast<std::uint8_t>(khip::ocp_to_fnuz<dtype::fp8>(byte) & 0xffu);
    const auto e5 = static_cast<std::uint8_t>(khip::ocp_to_fnuz<dtype::bf8>(byte) & 0xffu);
    const double o4 = decode_e4m3(static_cast<std::uint8_t>(b)), o5 = decode_e5m2(static_cast<std::uint8_t>(b));
    expect(std::isnan(o4) ? std::isnan(decode_e4m3_fnuz(e4)) : decode_e4m3_fnuz(e4) == o4 / 2, "E4M3 OCP->FNUZ halves");
    expect(std::isnan(o5) || std::isinf(o5) ? std::isnan(decode_e5m2_fnuz(e5)) : decode_e5m2_fnuz(e5) == o5 / 2,
           "E5M2 OCP->FNUZ halves");
  }
  // Bytes are independent inside a word.
  expect(khip::ocp_to_fnuz<dtype::fp8>(0x7f803801u) == 0x80003801u, "E4M3 rewrite packs four bytes");
  expect(khip::product_scale(fp8, fp8, gfx942) == 4.0f && khip::product_scale(fp16, fp16, gfx942) == 1.0f,
         "product_scale");
}

template <int MN>
void check_out_layout() {
  std::vector<int> seen(MN * MN, 0);
  for (int lane = 0; lane < 64; ++lane)
    for (int v = 0; v < MN * MN / 64; ++v) ++seen[khip::mfma_out_row<MN>(v, lane) * MN + lane % MN];
  bool once = true;
  for (int s : seen) once = once && s == 1;
  expect(once, "MFMA output layout covers the tile once");
}

void check_arch_names() {
  expect(khip::arch_from_gcn_name("gfx90a:sramecc+:xnack-") == gfx90a, "gfx90a name");
  expect(khip::arch_from_gcn_name("gfx942:sramecc+:xnack-") == gfx942, "gfx942 name");
  expect(khip::arch_from_gcn_name("gfx940") == gfx942, "gfx940 name");
  expect(!khip::arch_from_gcn_name("gfx1100").has_value(), "gfx1100 name");
}

// ---------------------------------------------------------------------------
// Layer 3: device runs against a double reference.

struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) {
    if (hipMalloc(&ptr, bytes == 0 ? 1 : bytes) != hipSuccess) ptr = nullptr;
  }
  ~device_buffer() {
    if (ptr) (void)hipFree(ptr);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

// A strided-batched matrix as stored: bytes on the host plus the logical values.
struct host_matrix {
  dtype type;
  std::int64_t rows, cols, ld, stride, batch;  // rows x cols as stored (row-major storage of the stored view)
  std::vector<unsigned char> bytes;
  host_matrix(dtype t, std::int64_t r, std::int64_t c, std::int64_t b)
      : type(t), rows(r), cols(c), ld((c + 15) / 16 * 16 + 16), stride(r * ld + 64), batch(b),
        bytes(static_cast<std::size_t>(stride * b * size_of(t)), 0xff) {}
  std::size_t size() const { return bytes.size(); }
  unsigned char* at(std::int64_t bi, std::int64_t r, std::int64_t c) {
    return bytes.data() + (bi * stride + r * ld + c) * size_of(type);
  }
  double get(std::int64_t bi, std::int64_t r, std::int64_t c) { return decode(type, at(bi, r, c)); }
  // Random non-zero values in [-1, 1] (integers in [-16, 16] for int types).
  void fill(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> ui(-16, 16);
    for (std::int64_t bi = 0; bi < batch; ++bi)
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) {
          double v = 0;
          while (v == 0) v = (type == int8 || type == int32) ? ui(rng) : quantize(type, u(rng));
          encode(type, v, at(bi, r, c));
        }
  }
};

double apply_ew(elementwise e, double x) {
  switch (e) {
    case elementwise::relu: return x > 0 ? x : 0;
    case elementwise::gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case elementwise::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case elementwise::tanh: return std::tanh(x);
    default: return x;
  }
}

double tolerance(dtype ab, dtype c) {
  if (ab == int8) return 0.0;
  if (ab == fp32 && c == fp32) return 1e-5;
  return 1e-2;
}

// Runs kernel K on an m x n x k x batch problem; returns true on pass or skip.
template <gemm_key K>
bool run_case(const char* name, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, float alpha,
              float beta) {
  using kernel = kernels::gemm_kernel<K, backend::hip>;
  if (auto other = khip::device_arch_mismatch(K.algo.arch)) {
    std::printf("skip  %-28s %s\n", name, other->c_str());
    return true;
  }
  std::mt19937 rng(1234);
  const gemm_signature& s = K.sig;
  const bool a_row = s.lay.a == layout::row, b_row = s.lay.b == layout::row;
  host_matrix A(s.a, a_row ? m : k, a_row ? k : m, batch), B(s.b, b_row ? k : n, b_row ? n : k, batch);
  host_matrix C(s.c, m, n, batch);
  std::vector<host_matrix> D;
  for (int i = 0; i < s.num_d; ++i) D.emplace_back(s.c, m, n, batch);
  A.fill(rng);
  B.fill(rng);
  for (auto& d : D) d.fill(rng);
  if (beta != 0.0f) C.fill(rng);  // otherwise C stays 0xff poison
  const std::vector<unsigned char> c_before = C.bytes;

  gemm_problem p;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.lda = A.ld, p.ldb = B.ld, p.ldc = C.ld, p.ldd = s.num_d > 0 ? D[0].ld : C.ld;
  p.stride_a = A.stride, p.stride_b = B.stride, p.stride_c = C.stride, p.stride_d = s.num_d > 0 ? D[0].stride : C.stride;
  p.sig = s;

  device_buffer da(A.size()), db(B.size()), dc(C.size());
  std::vector<device_buffer*> dd;
  for (auto& d : D) dd.push_back(new device_buffer(d.size()));
  bool ok = da.ptr && db.ptr && dc.ptr;
  ok = ok && hipMemcpy(da.ptr, A.bytes.data(), A.size(), hipMemcpyHostToDevice) == hipSuccess;
  ok = ok && hipMemcpy(db.ptr, B.bytes.data(), B.size(), hipMemcpyHostToDevice) == hipSuccess;
  ok = ok && hipMemcpy(dc.ptr, C.bytes.data(), C.size(), hipMemcpyHostToDevice) == hipSuccess;
  for (std::size_t i = 0; i < D.size(); ++i)
    ok = ok && dd[i]->ptr && hipMemcpy(dd[i]->ptr, D[i].bytes.data(), D[i].size(), hipMemcpyHostToDevice) == hipSuccess;

  gemm_args args;
  args.a = da.ptr, args.b = db.ptr, args.c = dc.ptr, args.alpha = alpha, args.beta = beta;
  for (std::size_t i = 0; i < D.size(); ++i) args.d[i] = dd[i]->ptr;

  std::string failure;
  if (!ok) failure = "device allocation or copy failed";
  if (failure.empty())
    if (auto why = kernel::why_not(p, args)) failure = "why_not: " + *why;
  if (failure.empty()) {
    const status st = kernel::run(p, args, nullptr);
    if (!st) failure = "run: " + st.message();
  }
  if (failure.empty() && hipDeviceSynchronize() != hipSuccess) failure = "kernel execution failed";
  if (failure.empty() && hipMemcpy(C.bytes.data(), dc.ptr, C.size(), hipMemcpyDeviceToHost) != hipSuccess)
    failure = "copy back failed";
  for (auto* b : dd) delete b;

  double err2 = 0, ref2 = 0;
  std::int64_t mismatches = 0, nans = 0, slack_changed = 0;
  if (failure.empty()) {
    std::vector<unsigned char> before = c_before;
    host_matrix old = C;
    old.bytes = before;
    for (std::int64_t bi = 0; bi < batch; ++bi)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (std::int64_t kk = 0; kk < k; ++kk)
            acc += (a_row ? A.get(bi, i, kk) : A.get(bi, kk, i)) * (b_row ? B.get(bi, kk, j) : B.get(bi, j, kk));
          double v = double(alpha) * acc;
          if (beta != 0.0f) v += double(beta) * old.get(bi, i, j);
          for (auto& d : D) v += d.get(bi, i, j);
          v = apply_ew(s.ew, v);
          const double out = C.get(bi, i, j);
          if (std::isnan(out)) ++nans;
          double expected = v;
          if (s.c == int32 || s.c == int8) {  // round to nearest, saturate: must match exactly
            const double lim = s.c == int8 ? 127.0 : 2147483647.0;
            expected = std::fmin(std::fmax(std::nearbyint(v), -lim - 1), lim);
            if (out != expected) ++mismatches;
          }
          err2 += (out - expected) * (out - expected);
          ref2 += expected * expected;
        }
    // Bytes outside the m x n region of every batch entry must be untouched.
    std::vector<bool> inside(C.size(), false);
    for (std::int64_t bi = 0; bi < batch; ++bi)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          for (int byte = 0; byte < size_of(s.c); ++byte)
            inside[static_cast<std::size_t>(C.at(bi, i, j) - C.bytes.data()) + byte] = true;
    for (std::size_t i = 0; i < C.size(); ++i)
      if (!inside[i] && C.bytes[i] != c_before[i]) ++slack_changed;
  }
  const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  const double tol = tolerance(s.a, s.c);
  if (failure.empty() && nans > 0) failure = std::to_string(nans) + " NaN outputs";
  if (failure.empty() && mismatches > 0) failure = std::to_string(mismatches) + " integer mismatches";
  if (failure.empty() && !(rel <= tol)) failure = "relative error above " + std::to_string(tol);
  if (failure.empty() && slack_changed > 0) failure = std::to_string(slack_changed) + " bytes written outside C";
  std::printf("%s  %-28s m=%lld n=%lld k=%lld batch=%lld alpha=%g beta=%g  rel_err=%.3e  %s\n",
              failure.empty() ? "pass" : "FAIL", name, static_cast<long long>(m), static_cast<long long>(n),
              static_cast<long long>(k), static_cast<long long>(batch), alpha, beta, rel, failure.c_str());
  return failure.empty();
}

// Ragged sizes for padded kernels, tile multiples for unpadded ones; two scalings each.
template <gemm_key K>
int run_instance(const char* name) {
  const bool pad = K.algo.pad_m == tristate::yes;
  const std::int64_t m = pad ? 200 : 2 * K.algo.tile.m;
  const std::int64_t n = pad ? 136 : 3 * K.algo.tile.n;
  const std::int64_t k = pad ? 100 : 4 * K.algo.tile.k;
  const bool integer = K.sig.a == int8;
  int failures = 0;
  failures += !run_case<K>(name, m, n, k, 3, 1.0f, 0.0f);
  failures += !run_case<K>(name, m, n, k, 2, integer ? 2.0f : 0.75f, integer ? 1.0f : 0.5f);
  return failures;
}

}  // namespace

int main() {
  check_fnuz_rewrite();
  check_out_layout<16>();
  check_out_layout<32>();
  check_arch_names();
  std::printf("host checks: %s\n", host_failures == 0 ? "pass" : "FAIL");

  int devices = 0;
  const hipError_t e = hipGetDeviceCount(&devices);
  if (e != hipSuccess || devices == 0) {
    std::printf("gemm_hip_compile: 17 HIP GEMM instances compiled for gfx90a and gfx940, but no HIP device is "
                "present (%s): nothing was run.\n", hipGetErrorName(e));
    return host_failures == 0 ? 0 : 1;
  }

  int failures = 0;
  failures += run_instance<k_fp16_rcr>("fp16 rcr compv3 cshuffle");
  failures += run_instance<k_fp16_rrr>("fp16 rrr compv4 direct");
  failures += run_instance<k_bf16_crr>("bf16 crr compv4 cshuffle vb8");
  failures += run_instance<k_bf16_ccr>("bf16 ccr mem direct ->fp32");
  failures += run_instance<k_fp32_rcr>("fp32 rcr compv3 direct");
  failures += run_instance<k_fp32_crr>("fp32 crr compv4 vb4 gfx942");
  failures += run_instance<k_int8_rcr>("int8 rcr compv3 cshuffle");
  failures += run_instance<k_int8_rrr>("int8 rrr compv4 gfx942");
  failures += run_instance<k_int8_ccr_i8out>("int8 ccr mem ->int8 vb4");
  failures += run_instance<k_fp8_rcr>("fp8 rcr gfx942 ->fp16");
  failures += run_instance<k_bf8_ccr>("bf8 ccr gfx942 ->fp32");
  failures += run_instance<k_gelu>("fp16 multi_d gelu 2D");
  failures += run_instance<k_relu>("fp16 multi_d relu 1D gfx942");
  failures += run_instance<k_sigmoid>("bf16 multi_d sigmoid 1D");
  failures += run_instance<k_tanh>("fp16 multi_d tanh 3D");
  failures += run_instance<k_dadd>("fp32 multi_d add 2D mem");
  failures += run_instance<k_fp16_nopad>("fp16 rcr no-pad gfx942");
  std::printf("%s: %d failing runs\n", failures + host_failures == 0 ? "PASS" : "FAIL", failures + host_failures);
  return failures + host_failures == 0 ? 0 : 1;
}
