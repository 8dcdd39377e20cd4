#!/usr/bin/env python3
"""Merges the JSON lines of an earlier benchmark call into the current state file.

usage: merge_jsonl.py SEED.jsonl STATE.jsonl

STATE becomes the union of both files' records, one per "key" (STATE's record wins); lines that
are not JSON objects with a key (a run cut short mid-write) are dropped; a missing file counts as
empty. Used by benchmarks/sweep.sh and benchmarks/bench_ops.sh so that a cold machine resumes from
results brought along with the working tree.
"""
import json
import os
import sys


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    seed, state = argv[1], argv[2]
    records = {}
    for path in (seed, state):
        try:
            with open(path) as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if isinstance(r, dict) and "key" in r:
                        records[r["key"]] = r
        except FileNotFoundError:
            pass
    with open(state + ".tmp", "w") as f:
        for r in records.values():
            f.write(json.dumps(r) + "\n")
    os.replace(state + ".tmp", state)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
