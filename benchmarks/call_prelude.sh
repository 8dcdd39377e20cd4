# Sourced first by a device call script (docs/perf/*/calls/*.sh) on the GPU machine, from the
# repository root, with the record's name: `source benchmarks/call_prelude.sh s68`. It unpacks the
# carried binaries (.carryz, benchmarks/carry.sh), puts the vendor libraries and the carried ones on
# LD_LIBRARY_PATH (vendor_libs.sh), and defines
#   R       /tmp/NAME, where the call's logs go (B: .carry/bin; t0: the start, for the timings below)
#   save    packs R into $OUT/NAME.tar.xz: call it after every step, so that a call cut short by its time
#           limit still brings back what it measured
#   t NAME LIMIT CMD...   runs CMD under `timeout LIMIT`, its output in R/NAME.log, and says how it ended
# and writes the GPU's name, driver and clock to R/gpu.txt and the carry's commit to R/commit.txt.
# (Call scripts before session 68 spell the same steps out.)
name=${1:?call_prelude.sh: name the record, e.g. s68}
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/$name B=.carry/bin t0=$(date +%s)
mkdir -p "$R"
save() { tar -C /tmp -cJf "$OUT/$name.tar.xz" "$name"; }
t() {
  local step=$1 limit=$2
  shift 2
  timeout "$limit" "$@" > "$R/$step.log" 2>&1
  echo "$step rc=$? after $(( $(date +%s) - t0 )) s"
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$R/gpu.txt"
cp .carryz/COMMIT "$R/commit.txt"
