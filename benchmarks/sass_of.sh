#!/usr/bin/env bash
# The SASS of the kernels one translation unit of a CUDA build compiles, on a machine without a GPU:
#   benchmarks/sass_of.sh BUILD_DIR TARGET SOURCE [KERNEL_SUBSTRING]   > kernels.sass
# e.g.  benchmarks/sass_of.sh build-device benchmarks/kdecl_sm90_timeline benchmarks/sm90_probe.cu gemm_sm90_kernel
# Recompiles SOURCE with TARGET's own nvcc command (from ninja) keeping the intermediate files, and
# disassembles the device code with nvdisasm. The CUDA toolkit here has no cuobjdump or nvdisasm;
# NVIDIA's `nvidia-cuda-nvdisasm` wheel (PyPI) has one, fetched once into build-sass/. With a
# KERNEL_SUBSTRING, only functions whose mangled name holds it are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 target=$2 source=$3 only=${4:-}
work=$PWD/build-sass/$(basename "$source" .cu)
mkdir -p "$work"
nvdisasm=build-sass/nvdisasm/nvidia/cu13/bin/nvdisasm
if [[ ! -x $nvdisasm ]]; then
  pip download --quiet --no-deps -d build-sass/wheel nvidia-cuda-nvdisasm >&2
  python3 -c "import zipfile, glob; zipfile.ZipFile(glob.glob('build-sass/wheel/*.whl')[0]).extractall('build-sass/nvdisasm')"
  chmod +x "$nvdisasm"
fi
# The compile command ninja runs for SOURCE in TARGET, minus ccache, depfile and output.
cmd=$(ninja -C "$build" -t commands "$target" | grep -F -- "$source" | grep -E "nvcc .* -c " | head -1)
[[ -n $cmd ]] || { echo "sass_of: no nvcc command for $source in $target" >&2; exit 2; }
cmd=${cmd#ccache }
cmd=$(sed -E 's/ -MD -MT [^ ]+ -MF [^ ]+//; s/ -o [^ ]+//' <<< "$cmd")
(cd "$build" && eval "$cmd -o $work/object.o -keep -keep-dir $work") > "$work/compile.log" 2>&1 ||
  { cat "$work/compile.log" >&2; exit 1; }
for cubin in "$work"/*.cubin; do
  if [[ -z $only ]]; then
    "$nvdisasm" -c "$cubin"
  else  # whole functions whose section name holds the substring
    "$nvdisasm" -c "$cubin" | awk -v s="$only" '/^\.text\./ { keep = index($0, s) > 0 } /^\t*\.section\t\.text\./ { keep = index($0, s) > 0 } keep'
  fi
done
