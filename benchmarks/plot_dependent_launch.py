#!/usr/bin/env python3
"""Summarise `kdecl_sm90_probe pdl` logs (programmatic dependent launch off and on, timed in turns in
one process, batched and with one event pair per launch): a JSON file of every row and a plot of
on/off speed per shape and kernel (batched timing; each log one marker set).

    python3 benchmarks/plot_dependent_launch.py out.json out.png run1.log [run2.log ...]
"""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROW = re.compile(r"\s+(.+?) PDL (off|on )\s+(batched|per-launch events)\s+([\d.]+) us")


def parse(path):
    shape, rows = None, []
    for line in open(path):
        m = re.match(r"bf16 rcr (\d+)x(\d+)x(\d+):", line)
        if m:
            shape = tuple(int(x) for x in m.groups())
            continue
        m = ROW.match(line)
        if m and shape:
            rows.append({"m": shape[0], "n": shape[1], "k": shape[2], "kernel": m.group(1).strip(),
                         "dependent_launch": m.group(2).strip() == "on", "timing": m.group(3),
                         "us": float(m.group(4)), "log": path.split("/")[-1]})
    return rows


def main(out_json, out_png, logs):
    rows = [r for log in logs for r in parse(log)]
    json.dump(rows, open(out_json, "w"), indent=1)
    shapes = list(dict.fromkeys((r["m"], r["n"], r["k"]) for r in rows))
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    t = {(r["log"], r["m"], r["n"], r["k"], r["kernel"], r["dependent_launch"], r["timing"]): r["us"] for r in rows}
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for ax, timing in zip(axes, ["batched", "per-launch events"]):
        for ki, kernel in enumerate(kernels):
            for li, log in enumerate(dict.fromkeys(r["log"] for r in rows)):
                xs, ys = [], []
                for si, s in enumerate(shapes):
                    off, on = t.get((log, *s, kernel, False, timing)), t.get((log, *s, kernel, True, timing))
                    if off and on:
                        xs.append(si + (ki - len(kernels) / 2) * 0.12)
                        ys.append(off / on)
                ax.scatter(xs, ys, s=14, color=f"C{ki}", marker="o" if li == 0 else "x",
                           label=kernel if li == 0 else None)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels([f"{m}x{n}x{k}" for m, n, k in shapes], rotation=60, ha="right", fontsize=7)
        ax.set_title(f"{timing}: time off / time on (>1: dependent launch faster)", fontsize=9)
    axes[0].set_ylabel("speed-up from programmatic dependent launch")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
