#!/usr/bin/env python3
"""Plot benchmarks/bwd_weight_splits.sh's records: per layer, each forced split's time over the
fastest split's (1 = the fastest), the planned split marked, cuDNN's time as a line.

    python3 benchmarks/plot_forced_splits.py forced_splits.jsonl[.xz] out.png
"""
import collections
import json
import lzma
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def records(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("dispatcher") and "ms" in r["dispatcher"]:
                yield r


def main(src, dst):
    layers = collections.OrderedDict()
    for r in records(src):
        split = "planned" if r["split"] in ("planned", "default") else r["split"]
        layers.setdefault(r["label"], {})[split] = (r["dispatcher"]["ms"], (r.get("cudnn") or {}).get("ms"))
    splits = [s for s in ["1,1", "2,1", "3,1", "4,1", "6,1", "8,1", "1,2", "1,4", "2,2", "1,8"]
              if any(s in v for v in layers.values())]
    fig, axes = plt.subplots(len(layers), 1, figsize=(9, 1.9 * len(layers)), sharex=True, squeeze=False)
    for ax, (label, times) in zip(axes[:, 0], layers.items()):
        best = min(ms for ms, _ in times.values())
        xs = range(len(splits))
        ax.bar(xs, [times[s][0] / best if s in times else 0 for s in splits], color="#4c72b0")
        if "planned" in times:
            ax.axhline(times["planned"][0] / best, color="#dd8452", ls="--", lw=1.2, label="the plan of the measured build")
        cudnn = [c for _, c in times.values() if c]
        if cudnn:
            ax.axhline(min(cudnn) / best, color="#55a868", lw=1.2, label="cuDNN")
        ax.set_ylabel(label, rotation=0, ha="right", fontsize=8)
        ax.set_ylim(0, 2.5)
        ax.grid(axis="y", alpha=0.3)
    axes[0, 0].legend(fontsize=7, loc="upper right")
    axes[0, 0].set_title("sm_90 backward-weight: time of each forced split (cluster,ranges) / the fastest split", fontsize=9)
    axes[-1, 0].set_xticks(range(len(splits)))
    axes[-1, 0].set_xticklabels(splits)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
