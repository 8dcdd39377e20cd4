"""Plots the four ResNet-50 backward-data runs of call 8 (dependent launch off/on, twice each):
our time per layer and the ratio to cuDNN, as dependent_launch.png. python3 plot_runs.py"""
import glob
import json
import math

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def load(folder):
    rows = {}
    for line in open(glob.glob(folder + "/*.jsonl")[0]):
        r = json.loads(line)
        rows[r["describe"]] = r
    return rows


runs = {name: load(name) for name in ("run1_off", "run1_on", "run2_on", "run2_off")}
layers = sorted(runs["run1_off"], key=lambda k: runs["run1_off"][k]["dispatcher"]["ms"])
fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
x = range(len(layers))
for name, style in (("run1_off", "o"), ("run2_off", "o"), ("run1_on", "x"), ("run2_on", "x")):
    color = "tab:blue" if name.endswith("off") else "tab:red"
    top.plot(x, [runs[name][k]["dispatcher"]["ms"] * 1000 for k in layers], style, color=color, label=name)
    bottom.plot(x, [runs[name][k]["ratio"] for k in layers], style, color=color, label=name)
top.set_yscale("log")
top.set_ylabel("kdecl time (us)")
bottom.set_ylabel("cuDNN time / kdecl time")
bottom.axhline(1.0, color="gray", linewidth=0.5)
bottom.set_xticks(list(x))
bottom.set_xticklabels([k.split(" input")[0].replace("bwd_data 2-D ", "") + " " + k.split("input ")[1].split(" ")[0]
                        for k in layers], rotation=70, fontsize=7)
top.legend(fontsize=8)
geo = {n: math.exp(sum(math.log(r["ratio"]) for r in runs[n].values()) / len(runs[n])) for n in runs}
top.set_title("ResNet-50 dense backward-data, bf16, H100: dependent launch off (KDECL_DEPENDENT_LAUNCH=0) / on\n" +
              ", ".join(f"{n} {g:.3f}x cuDNN" for n, g in geo.items()), fontsize=9)
fig.tight_layout()
fig.savefig("dependent_launch.png", dpi=110)
print(geo)
