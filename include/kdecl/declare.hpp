// The declaration surface: DECL_KERNEL_SET / KDECL_KERNEL_SET.
//
//   DECL_KERNEL_SET(my_set,
//       targets(sm_90, host),
//       gemm().dtype(fp16).layout(rcr).tile(128, 256, 64).warps(any).warp_tile(any));
//
// expands to
//  1. a constexpr set value (the DSL names are in scope inside the macro),
//  2. its compile-time validation, on every target, which fails compilation with
//     a readable message on an invalid value, and the wildcard expansion of the
//     targets this translation unit builds (kdecl::dsl::expand_for), and
//  3. a static registrar that, before main(), adds the kernel of every key of the
//     backend this translation unit is compiled for: host with a C++ compiler,
//     CUDA under nvcc, HIP under hipcc. The CMake function kdecl_add_kernel_sets()
//     compiles one source once per backend.
// Neither grows any single constant evaluation or expression with the set
// (docs/dsl.md, "Set size and compiler limits").
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/registry/conv_instance.hpp"
#include "kdecl/registry/kernel_instance.hpp"
#include "kdecl/registry/registry.hpp"

#include "kdecl/kernels/fmha/host/fmha_host.hpp"
#include "kdecl/kernels/conv/host/conv_kernel.hpp"
#include "kdecl/kernels/gemm/host/gemm_kernel.hpp"
#if defined(__HIPCC__)
#include "kdecl/kernels/gemm/hip/gemm_kernel_hip.hpp"
#elif defined(__CUDACC__)
#include "kdecl/kernels/fmha/cuda/fmha_kernel_cuda.cuh"
#include "kdecl/kernels/conv/cuda/conv_kernel_cuda.cuh"
#include "kdecl/kernels/gemm/cuda/gemm_kernel_cuda.cuh"
#endif

namespace kdecl::detail {

// The backend whose kernels this translation unit instantiates.
constexpr backend compiling_backend() {
#if defined(__HIPCC__)
  return backend::hip;
#elif defined(__CUDACC__)
  return backend::cuda;
#else
  return backend::host;
#endif
}

// Maps a key type to its instance class template (one line per operation). Keyed
// on the key's type rather than by partial specialisations on the value: nvcc
// takes instance_for<gemm_key K, B> and instance_for<fmha_key K, B> for one template.
template <class KeyType> struct instance_of_key;
template <> struct instance_of_key<gemm_key> { template <gemm_key K, backend B> using type = gemm_instance_of<K, B>; };
template <> struct instance_of_key<fmha_key> { template <fmha_key K, backend B> using type = fmha_instance_of<K, B>; };
template <> struct instance_of_key<grouped_conv_key> {
  template <grouped_conv_key K, backend B> using type = conv_instance_of<K, B>;
};

template <auto Key, backend B>
struct instance_for {
  using type = typename instance_of_key<std::remove_cvref_t<decltype(Key)>>::template type<Key, B>;
};

// One entry per kernel: makes its instance.
using instance_factory = std::shared_ptr<const kernel_instance> (*)();

template <const auto& Set>
class set_registrar {
  static constexpr backend this_backend = compiling_backend();
  // This backend's keys. Every target of the set is validated, whichever backend
  // builds it: an invalid declaration fails every pass.
  static constexpr auto keys = dsl::expand_for<Set, this_backend>();

  template <std::size_t I>
  static std::shared_ptr<const kernel_instance> make() {
    using instance = typename instance_for<keys[I], this_backend>::type;
    return std::make_shared<const instance>();
  }
  template <std::size_t... I>
  static constexpr std::array<instance_factory, sizeof...(I)> table(std::index_sequence<I...>) {
    return {&make<I>...};
  }
  // A table walked by a loop: a fold expression over the keys would nest one
  // level per key, and clang caps nesting at 256.
  static constexpr auto factories = table(std::make_index_sequence<keys.size()>{});

 public:
  explicit set_registrar(const char* set_name) {
    for (instance_factory make_instance : factories) registry::global().add(make_instance(), set_name);
  }
  // The kernels this translation unit registers: the keys of its backend's targets.
  static constexpr std::size_t registered_kernels() { return keys.size(); }
};

}  // namespace kdecl::detail

#define KDECL_KERNEL_SET(name, ...)                                                           \
  namespace kdecl_sets {                                                                      \
  static constexpr auto name = [] {                                                           \
    using namespace ::kdecl::dsl;                                                             \
    using ::kdecl::dsl::any; /* CUDA headers declare a global ::any */                        \
    return ::kdecl::dsl::kernel_set(__VA_ARGS__);                                             \
  }();                                                                                        \
  static const ::kdecl::detail::set_registrar<name> name##_registrar{#name};                  \
  }

#if !defined(KDECL_NO_SHORT_MACROS)
#define DECL_KERNEL_SET(name, ...) KDECL_KERNEL_SET(name, __VA_ARGS__)
#endif
