#!/usr/bin/env python3
"""Markdown tables of a `cotangent-bench --run dot,compare` JSON file.

    compare-tables.py build/cotangent-bench-compare.json

Prints the step table (time and peak, ours against JAX/XLA, with ratios),
the compile-time table and the dot_general line, as docs/performance.md
shows them.
"""
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    rows = doc["rows"]
    print("| program | policy | Cotangent ms | JAX ms | time ratio | Cotangent MiB | XLA MiB | peak ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r.get("compile_only") or "median_ms" not in r:
            continue
        jax = r.get("jax", {})
        jms, jpeak = jax.get("median_ms"), jax.get("peak_bytes")
        print(f"| {r['program']} | {r['policy']} | {r['median_ms']:.4g} | "
              f"{'%.4g' % jms if jms else '-'} | {'%.2f' % r['time_ratio'] if 'time_ratio' in r else '-'} | "
              f"{r['peak_bytes'] / 2**20:.1f} | {'%.1f' % (jpeak / 2**20) if jpeak else '-'} | "
              f"{'%.2f' % r['peak_ratio'] if 'peak_ratio' in r else '-'} |")
    print()
    print("| program | Cotangent s | JAX s | ratio |")
    print("|---|---|---|---|")
    for r in rows:
        if not r.get("compile_only"):
            continue
        js = r.get("jax", {}).get("compile_s")
        print(f"| {r['program']} | {r['compile_s']:.2f} | {'%.3f' % js if js else '-'} | "
              f"{'%.1f' % (r['compile_s'] / js) if js else '-'} |")
    if "dot" in doc:
        d = doc["dot"]
        flops = 2.0 * d["n"] ** 3
        print()
        print(f"dot_general f32 {d['n']}^3: compiled {flops / d['compiled_s'] / 1e9:.0f} GFLOP/s, "
              f"OpenBLAS {flops / d['openblas_s'] / 1e9:.0f} GFLOP/s, ratio "
              f"{d['openblas_s'] / d['compiled_s']:.2f}")
    print()
    print(f"max RSS: cotangent-bench {doc['max_rss_bytes'] / 2**20:.0f} MiB, "
          f"JAX's processes at most {doc.get('jax_max_rss_bytes', 0) / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
