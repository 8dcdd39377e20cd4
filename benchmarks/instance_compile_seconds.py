#!/usr/bin/env python3
"""Compile seconds per shipped kernel instance, from a finished Ninja build.

Reads build/.ninja_log (start/end of every object built), maps each instance
translation unit (instances/*.cpp compiled as C++, as CUDA through its .cuda.cu
wrapper, and as HIP through hipcc) to the kernels it registered (`kdecl list
--json`, sets matched to files by their DECL_KERNEL_SET names), and writes
docs/perf/instance_compile_seconds.{json,md}.

usage: instance_compile_seconds.py BUILD_DIR OUT_STEM
"""
import collections
import datetime
import os
import json
import pathlib
import re
import subprocess
import sys


def backend_of(arch: str) -> str:
    return "host" if arch == "host" else "cuda" if arch.startswith("sm_") else "hip"


def main(build: str, out_stem: str) -> None:
    build_dir = pathlib.Path(build)
    root = build_dir.parent if (build_dir.parent / "instances").is_dir() else pathlib.Path.cwd()
    # Latest duration of each output in the log (a file may have been rebuilt).
    seconds = {}
    for line in (build_dir / ".ninja_log").read_text().splitlines()[1:]:
        start, end, _, output, _ = line.split("\t")
        seconds[output] = (int(end) - int(start)) / 1000.0

    listing = json.loads(subprocess.check_output([str(build_dir / "tools" / "kdecl"), "list", "--json"]))
    per_set = collections.Counter()
    for k in listing["kernels"]:
        per_set[(k["set"], backend_of(k["key"]["algorithm"]["arch"]))] += 1

    rows = []
    for src in sorted((root / "instances").glob("*.cpp")):
        sets = re.findall(r"DECL_KERNEL_SET\(\s*(\w+)", src.read_text())
        for backend, pattern in (("host", rf"instances/{src.stem}\.cpp\.o$"),
                                 ("cuda", rf"{src.stem}\.cuda\.cu\.o$"),
                                 ("hip", rf"{src.stem}\.hip\.o$")):
            outs = [o for o in seconds if re.search(pattern, o)]
            if not outs:
                continue
            n = sum(per_set[(s, backend)] for s in sets)
            secs = sum(seconds[o] for o in outs)
            rows.append({"file": f"instances/{src.name}", "backend": backend, "instances": n,
                         "seconds": round(secs, 2), "seconds_per_instance": round(secs / n, 3) if n else None})

    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    date = datetime.date.today().isoformat()
    machine = f"{os.cpu_count()}-core development machine, ninja -j{os.cpu_count()}"
    pathlib.Path(out_stem + ".json").write_text(
        json.dumps({"date": date, "commit": commit, "machine": machine, "rows": rows}, indent=2) + "\n")
    md = [f"# Compile seconds per shipped instance ({date}, commit {commit[:8]}, {machine})", "",
          "Wall seconds of each translation unit from .ninja_log, divided by the kernels it registered;",
          "parallel jobs share the cores, so figures vary with load.", "",
          "| file | backend | instances | compile s | s per instance |", "|---|---|---|---|---|"]
    for r in rows:
        per = f'{r["seconds_per_instance"]:.2f}' if r["seconds_per_instance"] is not None else "-"
        md.append(f'| {r["file"]} | {r["backend"]} | {r["instances"]} | {r["seconds"]:.1f} | {per} |')
    pathlib.Path(out_stem + ".md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
