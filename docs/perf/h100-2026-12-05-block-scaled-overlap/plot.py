#!/usr/bin/env python3
"""Block-scaled fp8 GEMM on an H100: TFLOP/s of the three mainloop builds of call 1 (two rounds each)
and cuBLASLt's in the same runs, per square size. Writes block_scaled_overlap.png beside this file."""
import json, pathlib
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = pathlib.Path(__file__).parent
labels = {"v0": "one partial set (as committed before)", "v1": "one set, scales a k-block ahead",
          "v3": "two partial sets (shipped)"}
sizes, ours, cublas = [2048, 4096, 8192], {}, []
for v in labels:
    for r in (1, 2):
        for line in (here / f"call1/out_{v}_r{r}/gemm_fp8_rcr.jsonl").read_text().splitlines():
            row = json.loads(line)
            ours.setdefault(v, {}).setdefault(row["m"], []).append(row["best_instance"]["tflops"])
            cublas.append((row["m"], row["cublas"]["tflops"]))
fig, ax = plt.subplots(figsize=(8, 4.5))
width = 0.2
for i, v in enumerate(labels):
    ax.bar([x + (i - 1.5) * width for x in range(3)], [sum(ours[v][s]) / len(ours[v][s]) for s in sizes], width,
           label=labels[v])
cb = [sum(t for m, t in cublas if m == s) / sum(1 for m, _ in cublas if m == s) for s in sizes]
ax.bar([x + 1.5 * width for x in range(3)], cb, width, label="cuBLASLt 13.1", color="gray")
ax.set_xticks(range(3), [f"{s}³" for s in sizes])
ax.set_ylabel("TFLOP/s (mean of two rounds)")
ax.set_title("Block-scaled fp8 GEMM (1x128 / 128x128 scales), H100, 2026-12-05")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
fig.savefig(here / "block_scaled_overlap.png", dpi=110)
