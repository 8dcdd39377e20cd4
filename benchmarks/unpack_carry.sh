#!/usr/bin/env bash
# On the GPU machine: unpacks .carryz/ (benchmarks/carry.sh) into .carry/, unless a
# warm machine still holds the same .carry/ from an earlier call.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f .carryz/carry.tar.zst ]] || { echo "unpack_carry: no .carryz/carry.tar.zst (run benchmarks/carry.sh here, carry .carryz)" >&2; exit 2; }
if [[ -f .carry/COMMIT && -f .carryz/COMMIT ]] && cmp -s .carry/COMMIT .carryz/COMMIT && [[ .carry/COMMIT -nt .carryz/carry.tar.zst ]]; then
  exit 0
fi
rm -rf .carry && mkdir -p .carry
.carryz/zstd -q -d --long=30 -c .carryz/carry.tar.zst | tar -C .carry -xf -
touch .carry/COMMIT
