#!/usr/bin/env python3
"""The bf16 sweep's ours/cuBLASLt geometric mean by M band: the 2026-12-06 sweep before this session
(h100-2026-12-06-sweep-mid-n-decode) and after (sweep/ here). Run from the repository root:
python3 docs/perf/h100-2026-12-06-retune-mid-n-launch-cost/calls/plot_bands.py"""
import json, lzma, math
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

here = 'docs/perf/h100-2026-12-06-retune-mid-n-launch-cost'
runs = {'before (d1196c0 sets, H200-trained model)': 'docs/perf/h100-2026-12-06-sweep-mid-n-decode/sweep/sweep_bf16_rcr.jsonl.xz',
        'after (128x160 shipped, H100 rcr retune)': f'{here}/sweep/sweep_bf16_rcr.jsonl.xz'}
bands = [(1, 1), (2, 4), (5, 16), (17, 128), (129, 512), (513, 2048), (2049, 1 << 40)]
labels = ['1', '2-4', '5-16', '17-128', '129-512', '513-2048', '>2048']

def ratios(path):
    rows = [json.loads(l) for l in lzma.open(path, 'rt')]
    return [(r['m'], r['cublas']['ms'] / r['dispatcher']['ms']) for r in rows if 'cublas' in r and 'dispatcher' in r]

fig, ax = plt.subplots(figsize=(8, 4))
width = 0.38
for i, (name, path) in enumerate(runs.items()):
    rs = ratios(path)
    g = [math.exp(sum(math.log(x) for m, x in rs if lo <= m <= hi) / max(1, sum(lo <= m <= hi for m, _ in rs)))
         for lo, hi in bands]
    pos = [j + (i - 0.5) * width for j in range(len(bands))]
    ax.bar(pos, g, width, label=f'{name}: {math.exp(sum(math.log(x) for _, x in rs) / len(rs)):.3f} overall')
    for p, v in zip(pos, g):
        ax.text(p, v + 0.005, f'{v:.3f}', ha='center', fontsize=7)
ax.axhline(1.0, color='k', lw=0.8)
ax.set_xticks(range(len(bands)), labels)
ax.set_xlabel('M (tokens)')
ax.set_ylabel('cuBLASLt time / ours (geomean)')
ax.set_ylim(0.85, 1.22)
ax.set_title('bf16 rcr public sweep (702 shapes), H100, by M band')
ax.legend(fontsize=8, loc='upper right')
fig.tight_layout()
fig.savefig(f'{here}/sweep/bands_bf16.png', dpi=120)
