#!/usr/bin/env python3
"""Writes the wgmma inline-PTX specialisations of include/kdecl/kernels/cuda/sm90/wgmma_mma.cuh
(ss: A and B from shared memory) and wgmma_rs.cuh (rs: A from registers), which differ only in N and
the input type: PTX wants every accumulator register named. Used once by hand, not by the build:

    scripts/wgmma_specialisations.py ss 64,80,96,112,128,144,160,176,192,224,256
    scripts/wgmma_specialisations.py rs 64,128,192,256

and the output pasted between the primary template and the namespace's end."""
import sys
def regs_list(n):
    # "%0, %1, ..." 16 per line
    lines=[]
    for s in range(0,n,16):
        lines.append('      "' + ", ".join(f"%{i}" for i in range(s,min(s+16,n))) + ("}, \"" if s+16>=n else ",\""))
    return "\n".join(lines)
def outs(n):
    lines=[]
    for s in range(0,n,8):
        lines.append(("        : " if s==0 else "          ") + ", ".join(f'"+f"(d[{i}])' for i in range(s,min(s+8,n))) + ("" if s+8>=n else ","))
    return "\n".join(lines)
def ss(t,n):
    r=n//2; ty={'fp16':'f16','bf16':'bf16'}[t]
    return f'''template <int TransA, int TransB>
struct wgmma_m64k16<dtype::{t}, {n}, TransA, TransB> {{
  static constexpr int acc_regs = {r};
  __device__ __forceinline__ static void run(float (&d)[{r}], std::uint64_t desc_a, std::uint64_t desc_b,
                                             int accumulate = 1) {{
    asm volatile(
      "{{\\n.reg .pred accumulate;\\n"
      "setp.ne.b32 accumulate, %{r+2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{"
{regs_list(r)}
      "%{r}, %{r+1}, accumulate, 1, 1, %{r+3}, %{r+4};\\n}}"
{outs(r)}
        : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(TransA), "n"(TransB));
  }}
}};
'''
def rs(t,n):
    r=n//2; ty={'fp16':'f16','bf16':'bf16'}[t]
    return f'''template <int TransB>
struct wgmma_m64k16_rs<dtype::{t}, {n}, TransB> {{
  static constexpr int acc_regs = {r};
  __device__ __forceinline__ static void run(float (&d)[{r}], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                             int accumulate = 1) {{
    asm volatile(
      "{{\\n.reg .pred accumulate;\\n"
      "setp.ne.b32 accumulate, %{r+5}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{"
{regs_list(r)}
      "{{%{r}, %{r+1}, %{r+2}, %{r+3}}}, %{r+4}, accumulate, 1, 1, %{r+6};\\n}}"
{outs(r)}
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate), "n"(TransB));
  }}
}};
'''
kind, ns = sys.argv[1], [int(x) for x in sys.argv[2].split(',')]
f = ss if kind=='ss' else rs
print("\n".join(f(t,n) for t in ('fp16','bf16') for n in ns), end='')
