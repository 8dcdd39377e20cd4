#!/usr/bin/env python3
"""Fails when the compute_80 PTX of a kernel-set object holds an sm_90-only instruction.

Every kernel set is compiled for compute_80 and compute_90a. A kernel built on Hopper's
instructions (wgmma, TMA, mbarrier transactions, clusters, setmaxnreg...) must leave its
compute_80 pass an empty body (kernels/cuda/device_pass.cuh); one that does not compiles to
PTX that ptxas rejects for sm_80. A check-only build (CI) never runs ptxas, so that slip
reached the -O3 device build once (e8e5851). This reads the PTX out of the objects'
fatbinaries (zstd-compressed by nvcc's default --compress-mode; decompressed with Debian's
zstd program) and scans the sm_80 modules' instruction lines.

    sm80_ptx_guard.py OBJECT...     exit 1 naming each offending kernel and instruction
    sm80_ptx_guard.py --self-test   the scanner on a made-up object of three modules
"""
import re
import shutil
import struct
import subprocess
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


FATBIN_MAGIC = struct.pack("<I", 0xBA55ED50)
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
PTX_ENTRY = 1


def fatbin_ptx_payloads(data):
    """The PTX payload of each entry of every fatbinary in an object, decompressed.

    A fatbinary is a 16-byte header (magic, version, header size, size of the entries) and entries,
    each a header (kind: 1 PTX, 2 ELF; its own size; the payload's padded size; at 0x10 the
    payload's stored size) and the payload, zstd-compressed unless nvcc ran with
    --compress-mode=none."""
    start = data.find(FATBIN_MAGIC)
    while start >= 0:
        if start + 16 <= len(data):
            _, _, header_size, entries_size = struct.unpack_from("<IHHQ", data, start)
            at, end = start + header_size, min(start + header_size + entries_size, len(data))
            while at + 24 <= end:
                kind, _, entry_header, padded = struct.unpack_from("<HHIQ", data, at)
                stored = struct.unpack_from("<I", data, at + 16)[0]
                payload = data[at + entry_header:at + entry_header + padded]
                if kind == PTX_ENTRY:
                    if payload.startswith(ZSTD_MAGIC):
                        yield decompress(payload[:stored])
                    else:
                        yield payload
                if entry_header == 0:
                    break
                at += entry_header + padded
        start = data.find(FATBIN_MAGIC, start + 4)


def decompress(frame):
    zstd = shutil.which("zstd")
    if zstd is None:
        raise SystemExit("sm80_ptx_guard.py: the PTX is zstd-compressed and no zstd program is on PATH "
                         "(Debian: apt-get install zstd; scripts/setup-debian.sh installs it)")
    return subprocess.run([zstd, "-dcq"], input=frame, stdout=subprocess.PIPE, check=True).stdout


def sm80_modules(data):
    """The PTX text of every module whose target is sm_80 (NUL-free runs holding '.target sm_80')."""
    for payload in fatbin_ptx_payloads(data):
        for chunk in payload.split(b"\x00"):
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


def fatbin(payloads):
    """A fatbinary of PTX entries, as nvcc lays one out (see fatbin_ptx_payloads)."""
    entries = b""
    for payload in payloads:
        padded = payload + b"\x00" * (-len(payload) % 8)
        header = struct.pack("<HHIQI", PTX_ENTRY, 0x0101, 80, len(padded), len(payload)).ljust(80, b"\x00")
        entries += header + padded
    return FATBIN_MAGIC + struct.pack("<HHQ", 1, 16, len(entries)) + entries


def self_test():
    ok = b".version 9.0\n.target sm_80\n.visible .entry _Z1kv(\n)\n{\n\tmov.u32 %r1, %tid.x;\n\ttrap;\n}\n"
    bad = (b".version 9.0\n.target sm_80\n.visible .entry _Z5wgmmav(\n)\n{\n"
           b"\t// begin inline asm\n\t@%p1 wgmma.fence.sync.aligned;\n\t// end inline asm\n}\n")
    hopper = b".version 9.0\n.target sm_90a\n.visible .entry _Z1hv(\n)\n{\n\twgmma.fence.sync.aligned;\n}\n"
    # An object: host bytes around a fatbinary of three modules (the bad one compressed where
    # zstd is here, as nvcc stores them by default), and PTX-looking text outside any fatbinary,
    # which is not a module and must not be scanned.
    zstd = shutil.which("zstd")
    stored_bad = bad if zstd is None else subprocess.run([zstd, "-q", "-c"], input=bad, stdout=subprocess.PIPE,
                                                         check=True).stdout
    data = b"\x7fELF host code" + fatbin([ok, stored_bad, hopper]) + b"\x00" + bad + b"\x00 trailing"
    found = [o for m in sm80_modules(data) for o in offences(m)]
    assert len(list(sm80_modules(data))) == 2, "two sm_80 modules"
    assert found == [("_Z5wgmmav", "@%p1 wgmma.fence.sync.aligned;")], found
    print("self-test passed" + ("" if zstd else " (no zstd here: the compressed entry was not tried)"))


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    modules, bad = scan(argv[1:])
    if modules == 0:
        print("no compute_80 PTX found in the objects' fatbinaries: are they built for compute_80?")
        return 1
    print(f"{modules} compute_80 PTX modules scanned, {bad} sm_90-only instructions")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
