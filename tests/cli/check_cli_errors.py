#!/usr/bin/env python3
"""Runs the rows of the error table in docs/cli.md against a kdecl binary.

Each row gives a command line, the exit code it must end with, and a regular
expression its output (stdout and stderr together) must match. A command that
starts with `ulimit -v KiB;` runs under that address-space limit (RLIMIT_AS).

  check_cli_errors.py --kdecl build/tools/kdecl --table docs/cli.md [--row N] [--count]
"""
import argparse
import re
import resource
import shlex
import subprocess
import sys


def split_cells(line):
    """Cells of a markdown table row; '\\|' is a literal bar, not a separator."""
    cells, cell, i = [], "", 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            cell += "|"
            i += 2
            continue
        if line[i] == "|":
            cells.append(cell.strip())
            cell = ""
        else:
            cell += line[i]
        i += 1
    return cells[1:]  # the text before the first bar is empty


def code(cell):
    m = re.fullmatch(r"`(.*)`", cell)
    if not m:
        raise ValueError(f"cell {cell!r} is not a code span")
    return m.group(1)


def read_rows(table):
    rows = []
    with open(table, encoding="utf-8") as f:
        for line in f:
            if not re.match(r"^\| \d+ \| `", line):
                continue
            number, command, exit_code, pattern = split_cells(line.rstrip("\n"))[:4]
            rows.append((int(number), code(command), int(exit_code), code(pattern)))
    numbers = [r[0] for r in rows]
    if numbers != list(range(1, len(rows) + 1)):
        raise ValueError(f"rows of {table} are not numbered 1..{len(rows)}: {numbers}")
    return rows


def run_row(kdecl, row):
    number, command, expected_exit, pattern = row
    limit_kib = None
    m = re.match(r"ulimit -v (\d+); (.*)", command)
    if m:
        limit_kib, command = int(m.group(1)), m.group(2)
    args = shlex.split(command)
    if args[0] != "kdecl":
        return f"row {number}: the command does not start with kdecl: {command}"

    def limit():
        if limit_kib is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_kib * 1024, limit_kib * 1024))

    try:
        done = subprocess.run([kdecl] + args[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              preexec_fn=limit, timeout=120)
    except subprocess.TimeoutExpired:
        return f"row {number}: `{command}` ran over 120 s"
    output = done.stdout.decode("utf-8", "replace")
    problems = []
    if done.returncode != expected_exit:
        problems.append(f"exit code {done.returncode}, expected {expected_exit}")
    found = re.search(pattern, output)
    if not found:
        problems.append(f"output does not match /{pattern}/")
    if problems:
        return f"row {number}: `{command}`: " + "; ".join(problems) + "\n--- output:\n" + output
    print(f"row {number}: ok: exit {done.returncode}: {found.group(0)}")
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kdecl", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--row", type=int)
    parser.add_argument("--count", action="store_true", help="print the number of rows and exit")
    a = parser.parse_args()
    rows = read_rows(a.table)
    if a.count:
        print(len(rows))
        return 0
    selected = [r for r in rows if a.row is None or r[0] == a.row]
    if not selected:
        print(f"no row {a.row} in {a.table}", file=sys.stderr)
        return 1
    failures = [f for f in (run_row(a.kdecl, r) for r in selected) if f]
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
