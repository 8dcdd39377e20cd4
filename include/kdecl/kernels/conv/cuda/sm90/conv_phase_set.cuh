// Several convolutions in one launch of the sm_90 convolution kernel: backward-data's
// stride phases (conv_bwd_data_sm90.cuh), each a forward convolution of its own geometry,
// weights, TMA maps and output pixel map. The kernel's persistent blocks walk the units of
// all of them as one list (phase 0's units first, then phase 1's, ...), so a layer of small
// phases costs one launch, not one per phase, and no phase waits for another's tail.
//
// What the kernel body (conv_sm90_kernel.cuh) asks of its parameters, for one convolution
// (any params with `out.sched`) or a phase set:
//   launch_units(p)        units of work in the launch
//   locate_unit(p, u)      unit u: the parameters of its convolution and its tile
//   launch_splits(p)       K splits per tile (a cluster launch when > 1)
#pragma once

#include "kdecl/kernels/gemm/cuda/sm90/tile_scheduler.cuh"

namespace kdecl::kernels::cuda::sm90 {

// A phase set of up to Capacity phases (a kernel's choice: 2-D stride 2 has 4 phases, 3-D
// stride 2 has 8; more are launched in sets of that many). Each phase's parameters (with their
// TMA maps) take about 1.7 KB of the kernel's parameter space (32 KB on sm_90 since CUDA 12.1),
// and a launch copies all Capacity of them, used or not.
template <class Phase, int Capacity>
struct phase_set_params {
  static constexpr int capacity = Capacity;
  Phase phase[Capacity];
  int count;                        // phases in use, >= 1
  int first_unit[Capacity + 1];     // phase i's units are [first_unit[i], first_unit[i + 1])
};

// One unit of work of a launch: the parameters of the convolution it belongs to, and its tile.
template <class Phase>
struct located_unit {
  const Phase* p;
  tile_work w;
};

// A launch of one convolution: every unit is its own.
template <class Params>
__device__ __forceinline__ int launch_units(const Params& p) {
  return p.out.sched.units();
}
template <class Params>
__device__ __forceinline__ located_unit<Params> locate_unit(const Params& p, int unit) {
  return {&p, p.out.sched.at(unit)};
}
template <class Params>
__device__ __forceinline__ int launch_splits(const Params& p) {
  return p.out.sched.splits;
}

// A phase set. Its phases are few: a linear walk finds the unit's.
template <class Phase, int Capacity>
__device__ __forceinline__ int launch_units(const phase_set_params<Phase, Capacity>& s) {
  return s.first_unit[s.count];
}
template <class Phase, int Capacity>
__device__ __forceinline__ located_unit<Phase> locate_unit(const phase_set_params<Phase, Capacity>& s, int unit) {
  int i = 0;
  while (i + 1 < s.count && unit >= s.first_unit[i + 1]) ++i;
  return {&s.phase[i], s.phase[i].out.sched.at(unit - s.first_unit[i])};
}
// Every phase of a set splits K the same number of times (the launch's cluster size).
template <class Phase, int Capacity>
__device__ __forceinline__ int launch_splits(const phase_set_params<Phase, Capacity>& s) {
  return s.phase[0].out.sched.splits;
}

}  // namespace kdecl::kernels::cuda::sm90
