#!/usr/bin/env python3
"""Summarizes what session 68's calls brought back (pending1-3.tar.xz, extracted as results/pending1-3/): base against new decode timings row by row, the split x ring-depth sweep of the
4k rows, cuDNN contiguous and paged against ours, and the GEMM instances timed with --top 0.

    python3 calls/summarize.py results > summary.md   (from the record's folder)

Prints markdown; reads only what is there (a call cut short leaves some files out)."""
import glob
import json
import math
import os
import re
import sys
from collections import defaultdict


def decode_rows(path):
    """(batch, kv) -> dict of a kdecl_bench_decode table's numbers, in file order (later rows of the same
    key, e.g. a second round appended to *_all.log, are kept as a list)."""
    rows = defaultdict(list)
    if not os.path.exists(path):
        return rows
    for line in open(path):
        t = line.split()
        if len(t) < 8 or not t[0].isdigit() or not t[1].isdigit():
            continue
        try:
            r = {"splits": int(t[2]), "ours": float(t[3]), "copy": float(t[5]), "pct": float(t[7].rstrip("%"))}
        except ValueError:
            continue
        rest = t[8:]
        num = lambda s: float(s.rstrip("x")) if re.fullmatch(r"[0-9.]+x?", s) else None
        if len(rest) >= 3 and num(rest[0]) is not None:
            r["cudnn"] = num(rest[0])
        if len(rest) >= 5 and num(rest[3]) is not None:
            r["paged"] = num(rest[3])
        rows[(int(t[0]), int(t[1]))].append(r)
    return rows


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def base_vs_new(d, stem_base, stem_new, title):
    base, new = decode_rows(os.path.join(d, stem_base)), decode_rows(os.path.join(d, stem_new))
    keys = sorted(set(base) & set(new))
    if not keys:
        return
    print(f"\n## {title}\n\n| batch x kv | splits | base us | new us | base / new (> 1: new faster) |\n|---|---|---|---|---|")
    ratios = []
    for k in keys:
        b, n = median([r["ours"] for r in base[k]]), median([r["ours"] for r in new[k]])
        ratios.append(b / n)
        print(f"| {k[0]} x {k[1]} | {new[k][0]['splits']} | {b:.1f} | {n:.1f} | {b / n:.3f} |")
    print(f"\ngeometric mean: new {geomean(ratios):.3f}x faster than base over {len(keys)} rows")


def vendor_table(d, stem, title):
    rows = decode_rows(os.path.join(d, stem))
    if not rows:
        return
    print(f"\n## {title}\n\n| batch x kv | splits | ours us | % copy | cuDNN contiguous us | vs | cuDNN paged us | vs |\n"
          "|---|---|---|---|---|---|---|---|")
    contiguous, paged = [], []
    for k in sorted(rows):
        r = rows[k][0]
        c, p = r.get("cudnn"), r.get("paged")
        if c:
            contiguous.append(c / r["ours"])
        if p:
            paged.append(p / r["ours"])
        fmt = lambda x: f"{x:.1f}" if x else "-"
        ratio = lambda x: f"{x / r['ours']:.2f}x" if x else "-"
        print(f"| {k[0]} x {k[1]} | {r['splits']} | {r['ours']:.1f} | {r['pct']:.1f}% | {fmt(c)} | {ratio(c)} | {fmt(p)} | {ratio(p)} |")
    print(f"\ngeometric mean against cuDNN contiguous {geomean(contiguous):.3f}x ({len(contiguous)} rows), "
          f"paged {geomean(paged):.3f}x ({len(paged)} rows)")


def knob_sweep(d):
    files = sorted(glob.glob(os.path.join(d, "knob_st*_sp*.log")))
    if not files:
        return
    table = defaultdict(dict)  # (batch, kv) -> (stages, splits) -> us
    for f in files:
        m = re.search(r"knob_st(\d+)_sp(\w+)\.log", f)
        for k, rs in decode_rows(f).items():
            table[k][(int(m.group(1)), m.group(2))] = (rs[0]["ours"], rs[0]["splits"])
    print("\n## Split count x ring depth, 4k keys (us; the planner's choice is `auto`)\n")
    for k in sorted(table):
        cells = table[k]
        best = min(cells.items(), key=lambda kv: kv[1][0])
        auto = {st: v for (st, sp), v in cells.items() if sp == "auto"}
        print(f"- batch {k[0]} x {k[1]}: best {best[1][0]:.1f} us (stages {best[0][0]}, splits {best[1][1]}); "
              + ", ".join(f"auto at {st} stages {v[0]:.1f} us ({v[1]} splits)" for st, v in sorted(auto.items())))


def gemm_all(d):
    for path in sorted(glob.glob(os.path.join(d, "gemm", "all_*.jsonl"))):
        print(f"\n## {os.path.basename(path)}: every eligible instance (--top 0)\n")
        for line in open(path):
            r = json.loads(line)
            cublas = r["cublas"]["ms"] * 1e3
            choice = r["dispatcher"]["ms"] * 1e3
            timed = sorted(r.get("screened", []), key=lambda s: s["ms"])
            head = ", ".join(f"{s['kernel'].split('_rcr_')[-1].replace('tma_wgmma_cshuffle_', '')[:48]} {s['ms'] * 1e3:.1f}" for s in timed[:4])
            print(f"- {r['m']}x{r['n']}x{r['k']}: cuBLASLt {cublas:.1f} us, choice {choice:.1f} us "
                  f"({cublas / choice:.3f}x); fastest: {head}")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    p1, p2, p3 = (os.path.join(d, f"pending{i}") for i in (1, 2, 3))
    for name in ("gpu.txt", "commit.txt"):
        f = os.path.join(p1, name)
        if os.path.exists(f):
            print(f"{name}: {open(f).read().strip()}")
    tests = os.path.join(p1, "tests.log")
    if os.path.exists(tests):
        print("\ntests: " + "; ".join(l.strip() for l in open(tests) if re.match(r"\[  (PASSED|FAILED) ", l)))
    for tool in ("memcheck", "racecheck"):
        f = os.path.join(p1, f"sanitizer_{tool}.log")
        if os.path.exists(f):
            print(f"{tool}: " + " / ".join(l.strip() for l in open(f).readlines()[-2:]))
    base_vs_new(p1, "base_bf16_all.log", "new_bf16_all.log", "Decode, bf16, base against the patch (cuDNN off, two rounds)")
    vendor_table(p1, "new_cudnn.log", "The patch against cuDNN (call 1)")
    base_vs_new(p2, "table_base.log", "table_new.log", "The whole table, base against the patch (cuDNN in the turns)")
    vendor_table(p2, "table_new.log", "The whole table, the patch against cuDNN contiguous and paged")
    vendor_table(p2, "table_new_hnd.log", "The patch against cuDNN, pages stored head by head (--cache-layout hnd)")
    knob_sweep(p2)
    base_vs_new(p3, "full_base_all.log", "full_new_all.log", "Call 3: batch 1-64 x 4k-64k, base against the patch (two rounds)")
    vendor_table(p3, "full_new_all.log", "Call 3: the patch against cuDNN contiguous and paged (first round)")
    base_vs_new(p3, "full_base_fp8.log", "full_new_fp8.log", "Call 3: fp8 (e4m3) cache, base against the patch")
    probe = os.path.join(p2, "dsmem_reduce_probe.log")
    if os.path.exists(probe):
        print("\n## kdecl_dsmem_reduce_probe\n\n```\n" + open(probe).read().strip() + "\n```")
    gemm_all(p2)


if __name__ == "__main__":
    main()
