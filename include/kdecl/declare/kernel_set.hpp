// The operation-independent half of the declaration surface: the registrar that
// expands a set for the backend being compiled and the DECL_KERNEL_SET macro.
// kdecl/declare.hpp includes it with every operation's kernels; a translation
// unit that declares sets of one operation may include only kdecl/declare/<op>.hpp.
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

template <class> inline constexpr bool dependent_false = false;

// Maps a key type to its instance class template. Each operation's header
// (kdecl/declare/gemm.hpp, conv.hpp, fmha.hpp) specialises it and brings in that
// operation's kernels only, so that a translation unit of GEMM sets does not
// parse the attention and convolution kernels. Keyed on the key's type rather
// than by partial specialisations on the value: nvcc takes instance_for<gemm_key
// K, B> and instance_for<fmha_key K, B> for one template.
template <class KeyType>
struct instance_of_key {
  static_assert(dependent_false<KeyType>,
                "no kernels are included for this operation: include kdecl/declare.hpp (every operation) "
                "or the operation's kdecl/declare/<op>.hpp");
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
    // Owned through the base class: one control-block type for every key (make_shared's is one per
    // instance type, a few KB of code each: a fifth of the object of a 2,000-key host declaration).
    return std::shared_ptr<const kernel_instance>(static_cast<const kernel_instance*>(new instance()));
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
