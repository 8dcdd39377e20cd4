#!/usr/bin/env bash
# One call on the GPU machine that checks the kernel sets of instances/unverified/ (compiled,
# never run) before they move up to instances/: their GPU tests against the host reference,
# a compute-sanitizer memcheck of one kernel of each, and their speed against the vendor
# library on the same data. Build with them registered and carry:
#   cmake --preset device -B build-conv -DKDECL_UNVERIFIED_SETS=ON -DKDECL_INSTANCE_FILTER=conv_ ...
#   benchmarks/carry.sh build-conv tools/kdecl tests/kdecl_gpu_tests
# (a GEMM build for the block-scaled set: -DKDECL_INSTANCE_FILTER=gemm_; what is not carried is
# skipped and said so). On the GPU machine: benchmarks/unverified.sh [conv|gemm|all]; results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -d .carryz ]] && { benchmarks/unpack_carry.sh || exit 2; }
# shellcheck source=vendor_libs.sh
source benchmarks/vendor_libs.sh  # cuDNN's libraries for kdecl bench conv's baseline
export KDECL_MODEL_DIR="$PWD/models"
export LD_LIBRARY_PATH="$vendor_library_path"
what=${1:-all}
out=${OUT:-device-results}
mkdir -p "$out"
bin=.carry/bin
log() { echo "== $*" | tee -a "$out/summary.txt"; }
status=0
have() { [[ -x $bin/$1 ]] || { log "$1: not carried, skipped"; return 1; }; }

if [[ $what == all || $what == conv ]]; then
  # The fused-epilogue convolutions (instances/unverified/conv_sm90_tma_fused.cpp, conv_cp_async_fused.cpp):
  # each kernel on the odd problems with its own fusion, the halo tiles' resident/streamed weights.
  if have kdecl_gpu_tests; then
    log "conv: ConvGpuInstances with the unverified sets registered"
    timeout 400 "$bin/kdecl_gpu_tests" --gtest_filter='ConvGpuInstances.*' > "$out/conv_gpu_tests.log" 2>&1 || status=1
    grep -E "ComposedEpilogues" "$out/conv_gpu_tests.log" | tee -a "$out/summary.txt"
    grep -E "kernels for|runs checked|PASSED|FAILED" "$out/conv_gpu_tests.log" | tee -a "$out/summary.txt"
  fi
  if have kdecl; then
    for kernel in $("$bin/kdecl" list 2>/dev/null | grep -o 'conv_fwd_2d_bf16_nhwgc_[a-z0-9_]*fused-bias-residual-relu_[a-z_0-9x]*_sm_90'); do
      log "compute-sanitizer memcheck: $kernel"
      compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kdecl" run conv --n 3 --c 64 --k 128 --hw 19,23 \
          --filter 3 --pad 1 --dtype bf16 --bias --residual --activation relu --device cuda --kernel "$kernel" \
          > "$out/memcheck_$kernel.log" 2>&1 || status=1
      grep -E "PASS|FAIL|ERROR SUMMARY" "$out/memcheck_$kernel.log" | tee -a "$out/summary.txt"
    done
    log "conv: a fused depthwise layer (no fused direct kernel): the plain kernel and the epilogue pass, under memcheck"
    compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kdecl" run conv --n 3 --c 64 --k 64 --g 64 --hw 19,23 \
        --filter 3 --pad 1 --dtype bf16 --bias --residual --activation relu --device cuda \
        > "$out/memcheck_composed.log" 2>&1 || status=1
    grep -E "PASS|FAIL|ERROR SUMMARY|pass of its own" "$out/memcheck_composed.log" | tee -a "$out/summary.txt"
    log "conv: bench, ResNet-50 forward with bias + relu, against cuDNN's fused graph"
    timeout 400 "$bin/kdecl" bench conv --problems benchmarks/shapes/conv_resnet50.csv --directions fwd --dtype bf16 \
        --bias --activation relu --device cuda --out "$out/bench_conv_fused" > "$out/bench_conv_fused.log" 2>&1 || status=1
    tail -n 12 "$out/bench_conv_fused.log" | tee -a "$out/summary.txt"
  fi
fi

if [[ $what == all || $what == gemm ]]; then
  # The block-scaled fp8 GEMM (instances/unverified/gemm_sm90_tma_block_scaled.cpp).
  if have kdecl_gpu_tests; then
    log "gemm: ShippedGpuInstances (block-scaled included)"
    timeout 400 "$bin/kdecl_gpu_tests" --gtest_filter='ShippedGpuInstances.*' > "$out/gemm_gpu_tests.log" 2>&1 || status=1
    grep -E "PASSED|FAILED" "$out/gemm_gpu_tests.log" | tee -a "$out/summary.txt"
  fi
  if have kdecl; then
    log "gemm: block-scaled run under memcheck, then bench against cuBLASLt"
    compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kdecl" run gemm --dtype fp8 --block-scaled --m 4097 \
        --n 200 --k 1024 --device cuda > "$out/memcheck_block_scaled.log" 2>&1 || status=1
    grep -E "PASS|FAIL|ERROR SUMMARY" "$out/memcheck_block_scaled.log" | tee -a "$out/summary.txt"
    timeout 300 "$bin/kdecl" bench gemm --sizes 4096 8192 --dtype fp8 --block-scaled --device cuda \
        > "$out/bench_block_scaled.log" 2>&1 || status=1
    tail -n 8 "$out/bench_block_scaled.log" | tee -a "$out/summary.txt"
  fi
fi
exit $status
