"""Soft-cap cost over the plain kernel against the share of exponentials on the FMA pipes
(results/softcap.jsonl, kdecl_softcap_probe_pN): python3 calls/plot.py (from this folder)."""
import json
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = [json.loads(l) for l in open("results/softcap.jsonl")]
share = lambda n: 0.0 if n == 0 else 1.0 / n
layers = sorted({r["layer"] for r in rows}, key=lambda s: (s.split()[0], -int(s.split("s")[-1])))
fig, ax = plt.subplots(figsize=(7, 4.2))
for layer in layers:
    pts = sorted((share(r["poly_every"]), 100 * (r["softcap_ms"] / r["plain_ms"] - 1)) for r in rows if r["layer"] == layer)
    ax.plot([p[0] * 100 for p in pts], [p[1] for p in pts], marker="o", label=layer)
ax.axhline(5, color="gray", ls="--", lw=1)
ax.text(1, 5.6, "issue 8's bar: 5%", color="gray", fontsize=8)
ax.set_xlabel("exponentials computed on the FMA pipes (exp2_poly), % of each row")
ax.set_ylabel("soft-cap cost over the plain kernel, %")
ax.set_title("sm_90 attention, bf16 causal, soft-cap 50 (H100, 443d97d)", fontsize=10)
ax.set_ylim(0, 42)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig("softcap_share.png", dpi=110)
