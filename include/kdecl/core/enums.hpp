// Vocabulary shared by the DSL, the arch tables, the registry and the kernels.
//
// Every enumeration has one name table, used both to print and to parse, so a
// value and its spelling can never drift apart. `any` members are the DSL's
// wildcard and never appear in a registered kernel key.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kdecl {

enum class dtype : std::uint8_t {
  fp16, bf16, fp32, tf32, fp64, fp8, bf8, int8, int32, int4, pk_fp4, any
};
// fp8 is OCP E4M3 (NVIDIA __nv_fp8_e4m3, AMD fp8); bf8 is E5M2.

enum class layout : std::uint8_t { row, col };

enum class arch_id : std::uint8_t {
  host,
  sm_80, sm_86, sm_89, sm_90,
  gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1200, gfx1201,
};

enum class backend : std::uint8_t { host, cuda, hip };

enum class op_kind : std::uint8_t { gemm, grouped_conv, fmha };

// Main-loop pipelines. AMD names follow CK Tile; NVIDIA and host ones are ours.
enum class pipeline : std::uint8_t {
  mem, compv3, compv4, compv5, compv6, comp_async, preshufflev2,  // AMD (CK Tile)
  cp_async,       // sm_80+: cp.async multi-stage smem ring, ldmatrix, mma.sync
  tma_wgmma,      // sm_90a: TMA + mbarrier ring, warp-specialised wgmma, persistent grid
  host_blocked,   // host: cache-blocked, multi-threaded
  direct_conv,    // convolutions only: direct, memory-bound (smem input tile + halo, CUDA cores; kernels/conv/cuda/direct/)
  gemv,           // GEMM with few rows of A (decode): B streamed from memory on CUDA cores (kernels/gemm/cuda/gemv/)
  any
};

enum class epilogue : std::uint8_t { direct, cshuffle, any };   // direct: registers -> global
// intrawave / interwave: CK's instruction schedules inside a block tile. pingpong
// (tma_wgmma): two consumer warpgroups alternate tiles, one's epilogue under the
// other's main loop.
enum class scheduler : std::uint8_t { intrawave, interwave, pingpong, any };
// block_scaled: fp8 A and B with float scales per 1 x 128 block of A and 128 x 128 block of B
// (DeepGEMM's form; gemm_problem.hpp block_scale_layout).
enum class gemm_variant : std::uint8_t { standard, preshuffle, multi_d, block_scaled };
enum class elementwise : std::uint8_t { pass_through, multi_d_add, relu, gelu, sigmoid, tanh };

// A boolean DSL field that may also be a wildcard.
enum class tristate : std::uint8_t { no, yes, any };

// ---------------------------------------------------------------------------
// Name tables: index == underlying value. `any` is spelled "*".

namespace names {
inline constexpr std::array<std::string_view, 12> dtype{
    "fp16", "bf16", "fp32", "tf32", "fp64", "fp8", "bf8", "int8", "int32", "int4", "pk_fp4", "*"};
inline constexpr std::array<std::string_view, 2> layout{"r", "c"};
inline constexpr std::array<std::string_view, 12> arch_id{
    "host", "sm_80", "sm_86", "sm_89", "sm_90",
    "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1200", "gfx1201"};
inline constexpr std::array<std::string_view, 3> backend{"host", "cuda", "hip"};
inline constexpr std::array<std::string_view, 3> op_kind{"gemm", "grouped_conv", "fmha"};
inline constexpr std::array<std::string_view, 13> pipeline{
    "mem", "compv3", "compv4", "compv5", "compv6", "comp_async", "preshufflev2",
    "cp_async", "tma_wgmma", "host_blocked", "direct_conv", "gemv", "*"};
inline constexpr std::array<std::string_view, 3> epilogue{"direct", "cshuffle", "*"};
inline constexpr std::array<std::string_view, 4> scheduler{"intrawave", "interwave", "pingpong", "*"};
inline constexpr std::array<std::string_view, 4> gemm_variant{"standard", "preshuffle", "multi_d", "block_scaled"};
inline constexpr std::array<std::string_view, 6> elementwise{
    "pass_through", "multi_d_add", "relu", "gelu", "sigmoid", "tanh"};
inline constexpr std::array<std::string_view, 3> tristate{"no", "yes", "*"};
}  // namespace names

namespace detail {
template <class E, std::size_t N>
constexpr std::string_view name_of(E e, const std::array<std::string_view, N>& table) {
  auto i = static_cast<std::size_t>(e);
  return i < N ? table[i] : std::string_view{"?"};
}
template <class E, std::size_t N>
constexpr std::optional<E> parse_with(std::string_view s, const std::array<std::string_view, N>& table) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i] == s) return static_cast<E>(i);
  return std::nullopt;
}
}  // namespace detail

// enum_table<E>::names is the one spelling table of E.
template <class E> struct enum_table;
template <> struct enum_table<dtype> { static constexpr const auto& names = names::dtype; };
template <> struct enum_table<layout> { static constexpr const auto& names = names::layout; };
template <> struct enum_table<arch_id> { static constexpr const auto& names = names::arch_id; };
template <> struct enum_table<backend> { static constexpr const auto& names = names::backend; };
template <> struct enum_table<op_kind> { static constexpr const auto& names = names::op_kind; };
template <> struct enum_table<pipeline> { static constexpr const auto& names = names::pipeline; };
template <> struct enum_table<epilogue> { static constexpr const auto& names = names::epilogue; };
template <> struct enum_table<scheduler> { static constexpr const auto& names = names::scheduler; };
template <> struct enum_table<gemm_variant> { static constexpr const auto& names = names::gemm_variant; };
template <> struct enum_table<elementwise> { static constexpr const auto& names = names::elementwise; };
template <> struct enum_table<tristate> { static constexpr const auto& names = names::tristate; };

template <class E>
concept named_enum = requires { enum_table<E>::names; };

template <named_enum E>
constexpr std::string_view to_string(E v) { return detail::name_of(v, enum_table<E>::names); }

// parse<dtype>("fp16") -> dtype::fp16; nullopt for an unknown spelling (never a silent default).
template <class E>
constexpr std::optional<E> parse(std::string_view s) {
  return detail::parse_with<E>(s, enum_table<E>::names);
}

// All concrete (non-wildcard) values of an enumeration, for iteration.
template <class E>
constexpr std::size_t enum_count() { return enum_table<E>::names.size(); }

constexpr backend backend_of(arch_id a) {
  switch (a) {
    case arch_id::host: return backend::host;
    case arch_id::sm_80: case arch_id::sm_86: case arch_id::sm_89: case arch_id::sm_90:
      return backend::cuda;
    default: return backend::hip;
  }
}

// Bytes per element; sub-byte types report 0 here and use bits_of.
constexpr int bits_of(dtype d) {
  switch (d) {
    case dtype::fp16: case dtype::bf16: return 16;
    case dtype::fp32: case dtype::tf32: case dtype::int32: return 32;
    case dtype::fp64: return 64;
    case dtype::fp8: case dtype::bf8: case dtype::int8: return 8;
    case dtype::int4: case dtype::pk_fp4: return 4;
    case dtype::any: return 0;
  }
  return 0;
}

}  // namespace kdecl
