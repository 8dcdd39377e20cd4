"""fp8 forward convolutions before (session 63, 12d0c86) and after the division-free gather (47e331b),
beside our bf16 kernels and cuDNN's bf16 (ResNet-50 batch 32, H100): python3 calls/plot.py (from this folder)."""
import json
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

def load(path):
    return {r["label"]: r for r in map(json.loads, open(path))}

old8 = load("../h100-2026-12-07-fp8-conv-prefill-features/results/conv_fp8.jsonl")
new8, bf16 = load("results/conv_fp8.jsonl"), load("results/conv_bf16.jsonl")
labels = list(new8)
us = lambda r: r["dispatcher"]["ms"] * 1000
series = [("fp8, 64-bit divisions (12d0c86)", [us(old8[k]) for k in labels]),
          ("fp8, division-free gather (47e331b)", [us(new8[k]) for k in labels]),
          ("bf16, ours", [us(bf16[k]) for k in labels]),
          ("bf16, cuDNN", [bf16[k]["cudnn"]["ms"] * 1000 for k in labels])]
fig, ax = plt.subplots(figsize=(10, 4.6))
w = 0.2
for i, (name, vals) in enumerate(series):
    ax.bar([x + (i - 1.5) * w for x in range(len(labels))], vals, w, label=name)
ax.set_xticks(range(len(labels)))
ax.set_xticklabels([k.replace("resnet50 ", "") for k in labels], rotation=40, ha="right", fontsize=8)
ax.set_yscale("log")
ax.set_ylabel("microseconds per launch (log)")
ax.set_title("ResNet-50 forward layers, batch 32, H100: 8-bit data against bf16", fontsize=10)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig("fp8_gather.png", dpi=110)
