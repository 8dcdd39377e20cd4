"""Cross-check of `kdecl bench conv`'s cuDNN baseline through PyTorch, on the GPU machine.

The forward layers of a `kdecl bench conv` JSON-lines file run through torch.nn.functional.conv2d/3d
(cuDNN as PyTorch calls it, torch.backends.cudnn.benchmark = True), channels_last bf16, timed with
CUDA events (median of 30 launches after 5, inputs rotated over sets larger than 2x L2). Each layer's
line carries PyTorch's time beside the record's kdecl and cuDNN times. Not in kdecl's process: a
sanity check of the baseline, not a figure of record (small layers include PyTorch's launch overhead).

    BUDGET=300 python3 benchmarks/torch_conv_check.py RESULTS.jsonl OUT.jsonl [dense,pointwise,grouped,depthwise]
"""
import json, os, sys, time, statistics
import torch, torch.nn.functional as F
torch.backends.cudnn.benchmark = True
rows = [json.loads(l) for l in open(sys.argv[1])]
want = sys.argv[3].split(',') if len(sys.argv) > 3 else ['dense', 'pointwise']
out = open(sys.argv[2], 'w')
L2 = 50 << 20
t0 = time.time()
budget = float(os.environ.get('BUDGET', '1e9'))
for r in rows:
    if r['direction'] != 'fwd' or r['class'] not in want or not r.get('ratio'):
        continue
    if time.time() - t0 > budget:
        break
    d = r['describe']
    # "fwd 2-D N=32 C=256 K=256 G=1 input 56x56 filter 1x1 stride 1x1 dilation 1x1 padding 0x0/0x0 ..."
    tok = d.split()
    nd = int(tok[1][0])
    kv = dict(t.split('=') for t in tok if '=' in t)
    n, c, k, g = (int(kv[x]) for x in 'NCKG')
    val = lambda key: [int(v) for v in tok[tok.index(key) + 1].split('/')[0].split('x')]
    size, filt, stride, dil = val('input'), val('filter'), val('stride'), val('dilation')
    pl = [int(v) for v in tok[tok.index('padding') + 1].split('/')[0].split('x')]
    pr = [int(v) for v in tok[tok.index('padding') + 1].split('/')[1].split('x')]
    if pl != pr:
        print('asymmetric padding, skipped:', d, file=sys.stderr); continue
    fmt = torch.channels_last if nd == 2 else torch.channels_last_3d
    conv = F.conv2d if nd == 2 else F.conv3d
    x_bytes = n * c * torch.tensor(size).prod().item() * 2
    sets = max(1, min(8, (2 * L2) // max(x_bytes, 1) + 1))
    xs = [torch.randn(n, c, *size, device='cuda', dtype=torch.bfloat16).contiguous(memory_format=fmt) for _ in range(sets)]
    w = torch.randn(k, c // g, *filt, device='cuda', dtype=torch.bfloat16).contiguous(memory_format=fmt)
    f = lambda i: conv(xs[i % sets], w, None, stride, pl, dil, g)
    for i in range(5): f(i)
    torch.cuda.synchronize()
    times = []
    for i in range(30):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(i); b.record(); b.synchronize()
        times.append(a.elapsed_time(b))
    ms = statistics.median(times)
    out.write(json.dumps({'label': r['label'], 'describe': d, 'class': r['class'], 'n': n, 'flops': r['flops'],
                          'torch_ms': ms, 'kdecl_ms': r['dispatcher']['ms'], 'cudnn_ms': r['cudnn']['ms'], 'cudnn_algorithm': r['cudnn'].get('algorithm')}) + '\n')
    out.flush()
    del xs, w
print('torch check done in %.0f s' % (time.time() - t0))
