#!/usr/bin/env python3
"""The record's plot: per (batch, KV length) row of call 3's table, the patched kernel's speed-up over the
base (two rounds, median) and both kernels against cuDNN on a contiguous cache and through its paged route.
Run from this folder: python3 calls/plot.py -> decode_merge_prologue.png"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
import summarize as S  # noqa: E402

base = S.decode_rows("results/pending3/full_base_all.log")
new = S.decode_rows("results/pending3/full_new_all.log")
keys = sorted(set(base) & set(new))
labels = [f"{b}x{kv // 1024}k" for b, kv in keys]
med = lambda rs, f: S.median([r[f] for r in rs if r.get(f)])
speedup = [med(base[k], "ours") / med(new[k], "ours") for k in keys]
vs_contig = [med(new[k], "cudnn") / med(new[k], "ours") for k in keys]
vs_paged = [med(new[k], "paged") / med(new[k], "ours") for k in keys]
vs_contig_base = [med(base[k], "cudnn") / med(base[k], "ours") for k in keys]

fig, (a, b) = plt.subplots(2, 1, figsize=(13, 7), sharex=True)
x = range(len(keys))
a.bar(x, speedup, color="tab:green")
a.axhline(1.0, color="k", lw=0.8)
a.set_ylabel("base time / new time")
a.set_ylim(0.95, 1.1)
a.set_title("Split-KV decode, bf16 Hq32/Hkv8/D128, page 16, H100: the merge/prologue patch against the previous kernel")
b.plot(x, vs_contig, "o-", label="new vs cuDNN, contiguous cache")
b.plot(x, vs_paged, "s-", label="new vs cuDNN, paged (same pages)")
b.plot(x, vs_contig_base, "x--", color="gray", label="base vs cuDNN, contiguous")
b.axhline(1.0, color="k", lw=0.8)
b.set_ylabel("cuDNN time / our time")
b.set_xticks(list(x))
b.set_xticklabels(labels, rotation=90)
b.legend()
fig.tight_layout()
fig.savefig("decode_merge_prologue.png", dpi=110)
