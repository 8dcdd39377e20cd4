#!/usr/bin/env python3
# The learned model's choice on every H100 rcr problem of the tuning rows (the sweep's layers), asked of
# `kdecl select --device sm_90` (an offline sm_90 device: the reference part's memory clock, the H100's),
# and its efficiency by the rows' own timings (fastest measured / chosen's). In-sample: these rows are
# in the model's training data. Usage:
#   xz -dk models/gemm_sm_90.tuning.jsonl.xz
#   analysis/h100_rcr_choices.py KDECL MODEL.json ROWS.jsonl OUT.json [OTHER_OUT.json: compare]
import json, math, os, re, subprocess, sys, collections
from concurrent.futures import ThreadPoolExecutor

kdecl, model, rows_path, out = sys.argv[1:5]
times = collections.defaultdict(dict)
for line in open(rows_path):
    x = json.loads(line)
    if x.get('kind') != 'measurement' or x.get('error') or 'H100' not in x['device_name']:
        continue
    if '/rcr/standard/' in x['problem_key']:
        times[x['problem_key']][x['kernel']] = x['median_ms']

def choose(key):
    m = re.search(r'gemm/(\w+)-.*?/rcr/standard/m(\d+)n(\d+)k(\d+)b(\d+)/ld(\d+)-(\d+)-(\d+)', key)
    dt, M, N, K, B, lda, ldb, ldc = m.groups()
    if B != '1' or (lda, ldb, ldc) != (K, K, N):
        return None
    env = dict(os.environ, KDECL_TUNING_MODEL=model)
    o = subprocess.run([kdecl, 'select', 'gemm', '--m', M, '--n', N, '--k', K, '--dtype', dt, '--device', 'sm_90'],
                       capture_output=True, text=True, env=env).stdout
    chosen = o.split('selected ')[1].split()[0]
    t = times[key]
    return [key, dt, int(M), int(N), int(K), min(t.values()) / t[chosen] if chosen in t else float('nan'), chosen]

with ThreadPoolExecutor(3) as ex:
    res = [r for r in ex.map(choose, list(times)) if r]
json.dump(res, open(out, 'w'))
e = sorted(r[5] for r in res if not math.isnan(r[5]))
print(f'{model}: {len(res)} problems, mean {sum(e)/len(e):.4f}, P10 {e[len(e)//10]:.4f}, worst {e[0]:.4f}, '
      f'top-1 {sum(x >= 0.999 for x in e)/len(e):.3f}')
def short(kernel):
    return kernel[5:].replace('_padmnk_sm_90', '').replace('_tma_wgmma_cshuffle', '')

if len(sys.argv) > 5:
    old = {r[0]: r for r in json.load(open(sys.argv[5]))}
    changed = [(old[r[0]], r) for r in res if r[0] in old and old[r[0]][6] != r[6]]
    g = math.exp(sum(math.log(n[5] / o[5]) for o, n in changed) / max(1, len(changed)))
    print(f'{len(changed)} choices differ from {sys.argv[5]}; geometric mean of new / old efficiency {g:.4f}')
    for o, n in sorted(changed, key=lambda c: c[1][5] / c[0][5]):
        print(f'  {n[1]} {n[2]}x{n[3]}x{n[4]}: {o[5]:.3f} -> {n[5]:.3f}  ({short(o[6])} -> {short(n[6])})')
