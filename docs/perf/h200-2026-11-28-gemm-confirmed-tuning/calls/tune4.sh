#!/usr/bin/env bash
# Call 4: confirm again (7 rounds, up to 16 kernels within 0.7) the problems whose confirmation
# spread over 50% or left first-pass rows within 0.75 of the confirmed fastest; the anomalous first.
cd "$(dirname "$0")/.."
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
K=$PWD/.carry/bin/kdecl
export LD_LIBRARY_PATH=$PWD/.carry/lib
db=/tmp/t4.db; rm -f $db*
xz -dc .dev/seed.jsonl.xz > /tmp/seed.jsonl
$K tune --db $db --import /tmp/seed.jsonl
end=$((SECONDS + ${BUDGET:-300}))
for f in .dev/re/*.csv; do
  b=$(basename $f .csv); b=${b#*_}; dt=${b%_*}; lay=${b#*_}
  left=$((end - SECONDS)); ((left > 5)) || break
  $K tune gemm --problems $f --dtype $dt --layout $lay --db $db --commit "$(cat .carry/COMMIT)" --iters 12 \
     --confirm 16 --confirm-within 0.7 --confirm-rounds 7 --target-ms 10 --time-budget $left 2>/dev/null | grep measurements
done
$K tune --db $db --export /tmp/t4.jsonl > /dev/null
xz -c /tmp/t4.jsonl > $OUT/tuning_sm90.jsonl.xz
grep -c 'confirmed_rounds":7' /tmp/t4.jsonl
