#!/usr/bin/env python3
"""Merge a fresh tuning export into the shipped GEMM data: every measurement row of a problem the
new export measured is replaced by the new rows (whatever device took them); sources are kept once,
and a kernel-set row of the new export is added unless the old file has its fingerprint."""
import json, sys
old_path, new_path, out_path = sys.argv[1:4]
new_rows = [json.loads(l) for l in open(new_path)]
new_keys = {r['problem_key'] for r in new_rows if r.get('kind') == 'measurement'}
old_sets = {json.loads(l).get('fingerprint') for l in open(old_path) if '"kind":"kernel_set"' in l}
kept = replaced = 0
seen_sources = set()
with open(out_path, 'w') as out:
    for line in open(old_path):
        r = json.loads(line)
        if r.get('kind') == 'measurement' and r['problem_key'] in new_keys:
            replaced += 1
            continue
        if r.get('kind') == 'source':
            seen_sources.add(r['problem_key'])
        out.write(line if line.endswith('\n') else line + '\n')
        kept += 1
    added = 0
    for r in new_rows:
        if r.get('kind') == 'kernel_set' and r.get('fingerprint') in old_sets:
            continue  # the old file has it
        if r.get('kind') == 'source' and r['problem_key'] in seen_sources:
            continue
        out.write(json.dumps(r, separators=(',', ':')) + '\n')
        added += 1
new_sets = {r.get('fingerprint') for r in new_rows if r.get('kind') == 'kernel_set'}
print(f'problems re-measured {len(new_keys)}, old rows replaced {replaced}, kept {kept}, added {added}; '
      f'kernel sets old {old_sets} new {new_sets}')
