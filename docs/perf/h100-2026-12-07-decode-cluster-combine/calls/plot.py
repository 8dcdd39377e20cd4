#!/usr/bin/env python3
"""Plots of session 65's decode records (run from this folder's parent: python3 calls/plot.py).
Left: batch-1 decode time against KV length, splits combined in a cluster (call A, --cluster 16) and by the
combine kernel (--cluster 0), cuDNN on a contiguous cache; right: the split plan for 2 blocks per SM against the
occupancy's 3 (call C), speed-up per (batch, KV length), L2 evicted by a write and by a read."""
import collections, glob, os, re
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = os.path.dirname(os.path.abspath(__file__)) + "/.."

def rows(path):
    for line in open(path):
        x = line.split()
        if len(x) > 8 and x[0].isdigit():
            cudnn = float(x[8]) if len(x) > 9 and x[8][0].isdigit() else None
            yield int(x[0]), int(x[1]), int(x[2]), float(x[3]), cudnn

fig, (a, b) = plt.subplots(1, 2, figsize=(13, 4.8))
for tag, label, style in (("c16", "splits combined in a cluster (up to 16)", "o-"), ("c0", "combine kernel (shipped)", "s-")):
    t = collections.defaultdict(list)
    cu = collections.defaultdict(list)
    for f in glob.glob(f"{here}/callA/bench_{tag}_r*.log"):
        for batch, kv, _, us, cudnn in rows(f):
            if batch == 1:
                t[kv].append(us)
                if cudnn: cu[kv].append(cudnn)
    kvs = sorted(t)
    a.plot(kvs, [sum(t[k]) / len(t[k]) for k in kvs], style, label=label)
    if tag == "c0":
        a.plot(kvs, [sum(cu[k]) / len(cu[k]) for k in kvs], "k--", label="cuDNN SDPA, contiguous cache")
a.set_xscale("log", base=2)
a.set_yscale("log")
a.set_xlabel("KV length (batch 1, Hq 32, Hkv 8, D 128, bf16, page 16)")
a.set_ylabel("us per decode (median, L2 evicted by a write)")
a.set_title("Split-KV combine: in a cluster vs a second kernel (H100)")
a.legend(fontsize=8)

for flush, marker in (("write", "o"), ("read", "^")):
    d = collections.defaultdict(list)
    for f in glob.glob(f"{here}/callC/p*_{flush}_r*.log"):
        per = re.search(r"/p(\d)_", f).group(1)
        for batch, kv, _, us, _ in rows(f):
            d[(batch, kv, per)].append(us)
    for i, batch in enumerate((1, 2, 4, 8, 16, 32)):
        kvs = sorted({k for (bb, k, _) in d if bb == batch})
        sp = [(sum(d[(batch, k, "3")]) / len(d[(batch, k, "3")])) / (sum(d[(batch, k, "2")]) / len(d[(batch, k, "2")]))
              for k in kvs]
        b.plot(kvs, sp, marker + ("-" if flush == "write" else ":"), color=f"C{i}",
               label=f"batch {batch}" if flush == "write" else None, alpha=0.9 if flush == "write" else 0.6)
b.axhline(1.0, color="k", lw=0.8)
b.set_xscale("log", base=2)
b.set_xlabel("KV length")
b.set_ylabel("time planned for 3 blocks/SM / for 2 blocks/SM")
b.set_title("Split plan: at most 2 blocks per SM (o solid: L2 dirty, ^ dotted: clean)")
b.legend(fontsize=7, ncol=2)
fig.tight_layout()
fig.savefig(f"{here}/decode_plan_cluster.png", dpi=110)
print("wrote decode_plan_cluster.png")
