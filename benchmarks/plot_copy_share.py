#!/usr/bin/env python3
"""Share of the measured copy bandwidth per layer, before and after a change, from `kdecl bench conv`
JSON lines: the dispatcher's choice in each file and cuDNN from the second, one bar group per layer
moving at least MIN_MB megabytes (the issue's bandwidth bar applies to those), with the bar drawn.
usage: plot_copy_share.py BEFORE.jsonl AFTER.jsonl OUT.png [MIN_MB=8] [BAR=0.8]
"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def rows(path):
    out = {}
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            if r.get("dispatcher") and r.get("cudnn"):
                out[r["describe"]] = r
    return out


def main():
    before, after, png = rows(sys.argv[1]), rows(sys.argv[2]), sys.argv[3]
    min_mb = float(sys.argv[4]) if len(sys.argv) > 4 else 8.0
    bar = float(sys.argv[5]) if len(sys.argv) > 5 else 0.8
    keys = sorted((k for k in after if after[k]["bytes"] >= min_mb * 1e6 and k in before),
                  key=lambda k: -after[k]["bytes"])
    label = [f"{after[k].get('label', '')} C={after[k]['c']} N={after[k]['n']}".strip() for k in keys]
    x = range(len(keys))
    w = 0.28
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(keys)), 5))
    ax.bar([i - w for i in x], [before[k]["dispatcher"]["copy_share"] for k in keys], w, label="kdecl before")
    ax.bar(list(x), [after[k]["dispatcher"]["copy_share"] for k in keys], w, label="kdecl after")
    ax.bar([i + w for i in x], [after[k]["cudnn"]["copy_share"] for k in keys], w, label="cuDNN")
    ax.axhline(bar, color="red", linestyle="--", label=f"bar {bar:.0%}")
    ax.set_xticks(list(x))
    ax.set_xticklabels(label, rotation=70, ha="right", fontsize=7)
    ax.set_ylabel("share of copy bandwidth")
    ax.set_title(f"layers moving >= {min_mb:g} MB (minimum bytes: every tensor once)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    for k, l in zip(keys, label):
        print(f"{l:50s} {before[k]['dispatcher']['copy_share']:.2f} -> {after[k]['dispatcher']['copy_share']:.2f}"
              f" (cuDNN {after[k]['cudnn']['copy_share']:.2f})")
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
