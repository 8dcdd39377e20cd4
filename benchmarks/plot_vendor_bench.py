#!/usr/bin/env python3
"""Plots kdecl against cuDNN per shape from `kdecl bench conv` / `kdecl bench fmha` JSON lines.

usage: plot_vendor_bench.py RESULTS.jsonl [MORE.jsonl ...] OUT.png

Left: cuDNN time / the dispatcher's choice's for every problem (> 1: kdecl faster), grouped
and coloured by class (e.g. "fwd depthwise", "bf16 d128 causal"), with each group's geometric
mean as a line; problems cuDNN timed but kdecl has no kernel for are red crosses on the floor
("no kdecl kernel"), problems cuDNN cannot express grey ticks on the ceiling. Right: per group,
the geometric mean and the worst tenth (the ratio 90% of the shapes reach or beat), with the
problem count.

Also usable alone: `python3 benchmarks/plot_vendor_bench.py out/conv_bf16_nhwgc.jsonl out.png`
prints the same per-group summary as text.
"""
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_sweep import read  # noqa: E402  (JSON lines, the last record of a problem wins)


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def worst_tenth(v):
    """The ratio 90% of the shapes reach or beat (nearest rank: the minimum below 10 shapes)."""
    if not v:
        return float("nan")
    s = sorted(v)
    return s[max(1, math.ceil(0.1 * len(s))) - 1]


def summarize(records):
    groups = {}
    for r in records:
        groups.setdefault(r.get("group", "?"), []).append(r)
    rows = []
    for g, rs in groups.items():
        ratios = [r["ratio"] for r in rs if "ratio" in r]
        rows.append({"group": g, "problems": len(rs), "ratios": ratios,
                     "no_kdecl": sum(1 for r in rs if "kdecl_missing" in r),
                     "no_cudnn": sum(1 for r in rs if "cudnn_missing" in r),
                     "failed": sum(1 for r in rs if "run_error" in r)})
    return rows


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    records = read(argv[1:-1])
    out = argv[-1]
    rows = summarize(records)
    for s in rows:
        print(f"{s['group']}: {s['problems']} problems, {len(s['ratios'])} timed on both sides, "
              f"geomean {geomean(s['ratios']):.3f}, worst tenth {worst_tenth(s['ratios']):.3f}, "
              f"no kdecl kernel {s['no_kdecl']}, cuDNN cannot {s['no_cudnn']}, failed {s['failed']}")

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(16, 6), gridspec_kw={"width_ratios": [3, 1]})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    x = 0
    ceiling = max([r["ratio"] for r in records if "ratio" in r] + [1.5]) * 1.1
    for i, s in enumerate(rows):
        colour = colours[i % len(colours)]
        rs = [r for r in records if r.get("group", "?") == s["group"]]
        xs, ys = [], []
        for r in rs:
            if "ratio" in r:
                xs.append(x)
                ys.append(r["ratio"])
            elif "kdecl_missing" in r and "cudnn" in r:
                ax.plot([x], [0.02 * ceiling], "x", color="red", markersize=6)
            elif "cudnn_missing" in r:
                ax.plot([x], [0.98 * ceiling], "|", color="grey", markersize=8)
            x += 1
        ax.plot(xs, ys, "o", color=colour, markersize=3, label=s["group"])
        if ys:
            ax.hlines(geomean(ys), x - len(rs), x - 1, colors=colour, linestyles="dashed", linewidth=1)
        x += 2
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylim(0, ceiling)
    ax.set_xlabel("problem (grouped by class; red x: no kdecl kernel, grey |: cuDNN cannot)")
    ax.set_ylabel("cuDNN time / kdecl dispatcher's time  (> 1: kdecl faster)")
    ax.legend(fontsize=7, ncol=2)
    title = records[0].get("gpu", "?") if records else "no records"
    if records and records[0].get("commit"):
        title += f", commit {records[0]['commit'][:10]}, {records[0].get('date', '')}"
    ax.set_title(f"kdecl vs cuDNN per problem ({title})")

    names = [s["group"] for s in rows]
    g = [geomean(s["ratios"]) if s["ratios"] else 0 for s in rows]
    w = [worst_tenth(s["ratios"]) if s["ratios"] else 0 for s in rows]
    ys = range(len(rows))
    bx.barh([y + 0.2 for y in ys], g, height=0.4, label="geometric mean")
    bx.barh([y - 0.2 for y in ys], w, height=0.4, label="worst tenth")
    for y, s in zip(ys, rows):
        bx.text(0.01, y, f"n={len(s['ratios'])}/{s['problems']}", va="center", fontsize=7)
    bx.axvline(1.0, color="black", linewidth=0.8)
    bx.set_yticks(list(ys))
    bx.set_yticklabels(names, fontsize=7)
    bx.set_xlabel("ratio to cuDNN")
    bx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
