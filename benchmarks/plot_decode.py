#!/usr/bin/env python3
"""Paged decode against the copy bandwidth and cuDNN, from kdecl_bench_decode's text output.

usage: plot_decode.py OUT.png LABEL=FILE[:GREP] [LABEL=FILE[:GREP] ...]

Each series is the rows of FILE (kdecl_bench_decode's table lines; with GREP, only the lines
that contain it, e.g. the "[--cache fp8]" tags the call scripts append) as
(batch, kv) -> kdecl's share of the copy bandwidth. A series labelled "cudnn" takes the cuDNN
column of its rows instead (cuDNN's bytes per second over the same copy bandwidth). One bar group
per (batch, kv) that every kdecl series has, the issue's 85% and 70% bars drawn.
"""
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)%\s*(.*)$")


def series(spec, cudnn):
    path, _, grep = spec.partition(":")
    out = {}
    for line in open(path):
        if grep and grep not in line:
            continue
        m = ROW.match(line)
        if not m:
            continue
        batch, kv = int(m.group(1)), int(m.group(2))
        ours_gbs, copy_gbs = float(m.group(5)), float(m.group(7))
        if cudnn:
            rest = m.group(9).split()
            if len(rest) < 2 or not rest[1].isdigit():
                continue
            out[(batch, kv)] = float(rest[1]) / copy_gbs
        else:
            out[(batch, kv)] = ours_gbs / copy_gbs
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    png = sys.argv[1]
    named = []
    for arg in sys.argv[2:]:
        label, _, spec = arg.partition("=")
        named.append((label, series(spec, label.lower().startswith("cudnn"))))
    # The (batch, kv) rows every kdecl series has.
    ours = [s for label, s in named if not label.lower().startswith("cudnn")]
    keys = sorted(set.intersection(*(set(s) for s in ours)) if ours else {k for _, s in named for k in s})
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(keys) + 2), 4.5))
    width = 0.8 / len(named)
    for i, (label, s) in enumerate(named):
        xs = [j + (i - (len(named) - 1) / 2) * width for j, k in enumerate(keys) if k in s]
        ys = [100 * s[k] for k in keys if k in s]
        ax.bar(xs, ys, width, label=label)
    for bar, style in ((85, "--"), (70, ":")):
        ax.axhline(bar, color="grey", linestyle=style, linewidth=1)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{b} x {kv // 1024}k" for b, kv in keys], rotation=30)
    ax.set_ylabel("% of the copy bandwidth")
    ax.set_xlabel("batch x KV length (Hq 32, Hkv 8, D 128, page 16)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
