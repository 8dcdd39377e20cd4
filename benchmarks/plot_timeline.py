#!/usr/bin/env python3
"""Stacked bars of where an sm_90 GEMM block's time goes, from `kdecl_sm90_timeline timeline` logs.

    benchmarks/plot_timeline.py OUT.png LABEL=LOG [LABEL=LOG ...]

Each log holds, per (tile, shape), the median over blocks of the intervals between the kernel's
clock stamps (kernels/gemm/cuda/sm90/timeline.cuh). One bar per (tile, shape) and log, stacked:
set-up (entry -> ready), wait for the first data, main loop, and the rest (split-K reduction or
epilogue, then exit). The first three shapes only (the fourth, 4096^3, runs for 150-500 us).
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PHASES = [("entry -> ready", "set-up"), ("ready -> first data", "first data"),
          ("first data -> mainloop done", "main loop"), ("mainloop -> tile done", "reduction / epilogue")]


def parse(path):
    runs, cur = {}, None
    for line in open(path):
        m = re.match(r"(\S+ s\d+) (\d+x\d+x\d+): (\d+) blocks", line)
        if m:
            cur = (m.group(1), m.group(2))
            runs[cur] = {}
            continue
        m = re.match(r"\s+(.+?)\s+median\s+([\d.]+) us", line)
        if m and cur:
            runs[cur][m.group(1).strip()] = float(m.group(2))
    return runs


def main():
    out, logs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    data = [(label, parse(path)) for label, path in logs]
    keys = [k for k in data[0][1] if not k[1].startswith("4096x")]
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(keys) * len(data)), 5))
    colors = ["#4c72b0", "#dd8452", "#55a868", "#c44e52"]
    width = 0.8 / len(data)
    for j, (label, runs) in enumerate(data):
        for i, key in enumerate(keys):
            r = runs.get(key, {})
            bottom = 0.0
            for p, (name, short) in enumerate(PHASES):
                v = r.get(name, 0.0)
                ax.bar(i + j * width, v, width * 0.95, bottom=bottom, color=colors[p], alpha=1.0 if j == 0 else 0.6,
                       label=short if i == 0 and j == 0 else None, edgecolor="black" if j > 0 else None, linewidth=0.4)
                bottom += v
            ax.text(i + j * width, bottom + 0.1, label, ha="center", va="bottom", fontsize=6, rotation=90)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(keys))])
    ax.set_xticklabels([f"{k[0]}\n{k[1]}" for k in keys], fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("median over blocks (us, at the maximum SM clock)")
    ax.set_title("sm_90 GEMM: where a block's time goes (clock stamps, one launch each)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
