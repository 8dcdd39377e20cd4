#!/usr/bin/env python3
"""Fails when the compute_80 PTX of a kernel-set object holds an sm_90-only instruction.

Every kernel set is compiled for compute_80 and compute_90a. A kernel built on Hopper's
instructions (wgmma, TMA, mbarrier transactions, clusters, setmaxnreg...) must leave its
compute_80 pass an empty body (kernels/cuda/device_pass.cuh); one that does not compiles to
PTX that ptxas rejects for sm_80. A check-only build (CI) never runs ptxas, so that slip
reached the -O3 device build once (e8e5851). Check-only builds keep the PTX uncompressed in
the objects (--compress-mode=none), and this scans the sm_80 modules' instruction lines.

    sm80_ptx_guard.py OBJECT...     exit 1 naming each offending kernel and instruction
    sm80_ptx_guard.py --self-test   the scanner on two made-up modules
"""
import re
import sys

# Instructions (and the special registers and state spaces) the PTX ISA gives sm_90 and newer,
# at the start of an instruction line, after an optional predicate.
SM90_ONLY = re.compile(
    rb"^[ \t]*(?:@!?%\w+[ \t]+)?"
    rb"(wgmma\.|cp\.async\.bulk|cp\.reduce\.async\.bulk|mbarrier\.try_wait|mbarrier\.expect_tx|"
    rb"mbarrier\.arrive\.expect_tx|setmaxnreg|fence\.proxy\.async|fence\.proxy\.tensormap|elect\.sync|"
    rb"stmatrix|barrier\.cluster|mapa|griddepcontrol|multimem\.|tensormap\.|st\.async|red\.async|"
    rb"[a-z.:0-9]*shared::cluster|.*%cluster_)",
    re.M)
ENTRY = re.compile(rb"^\.(?:visible\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\S+?)\s*\(", re.M)


def sm80_modules(data):
    """The PTX text of every module whose target is sm_80 (NUL-free runs holding '.target sm_80')."""
    for chunk in data.split(b"\x00"):
        if re.search(rb"^\.target\s+sm_80\b", chunk, re.M):
            yield chunk


def offences(module):
    """(kernel, instruction line) for each sm_90-only instruction of one module."""
    entries = [(m.start(), m.group(1).decode(errors="replace")) for m in ENTRY.finditer(module)]
    for m in SM90_ONLY.finditer(module):
        owner = "?"
        for start, name in entries:
            if start > m.start():
                break
            owner = name
        line_end = module.find(b"\n", m.start())
        yield owner, module[m.start():line_end if line_end >= 0 else None].strip().decode(errors="replace")


def scan(paths):
    modules = bad = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            print(f"{path}: cannot read it ({e.strerror}): build the kernel sets first")
            bad += 1
            continue
        for module in sm80_modules(data):
            modules += 1
            for owner, line in offences(module):
                bad += 1
                if bad <= 20:
                    print(f"{path}: {owner}: sm_90-only instruction in compute_80 PTX: {line}")
    return modules, bad


def self_test():
    ok = b".version 9.0\n.target sm_80\n.visible .entry _Z1kv(\n)\n{\n\tmov.u32 %r1, %tid.x;\n\ttrap;\n}\n"
    bad = (b".version 9.0\n.target sm_80\n.visible .entry _Z5wgmmav(\n)\n{\n"
           b"\t// begin inline asm\n\t@%p1 wgmma.fence.sync.aligned;\n\t// end inline asm\n}\n")
    hopper = b".version 9.0\n.target sm_90a\n.visible .entry _Z1hv(\n)\n{\n\twgmma.fence.sync.aligned;\n}\n"
    data = b"\x00".join([ok, bad, hopper])
    found = [o for m in sm80_modules(data) for o in offences(m)]
    assert len(list(sm80_modules(data))) == 2, "two sm_80 modules"
    assert found == [("_Z5wgmmav", "@%p1 wgmma.fence.sync.aligned;")], found
    print("self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    modules, bad = scan(argv[1:])
    if modules == 0:
        print("no compute_80 PTX text found in the objects: are they built with --compress-mode=none?")
        return 1
    print(f"{modules} compute_80 PTX modules scanned, {bad} sm_90-only instructions")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
