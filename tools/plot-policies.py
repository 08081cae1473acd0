#!/usr/bin/env python3
"""Draws the remat policy trade-off that cotangent-bench and cotangent-demo measure.

Input: the JSON they write (bench/PolicyFigures.h), one row per policy with the
median time of a grad step, its spread, and the peak and residual bytes the
runtime counted. Output: one picture (PNG, SVG or PDF, by the extension) with

  - left: peak bytes against time, one marker per policy (error bars: the
    fastest and slowest run); policies are told apart by marker and colour and
    named in a legend, so no two labels can overlap, even where two policies
    measure the same;
  - right: the residual and peak bytes of each policy as bars, named on the axis.

Bytes are shown in binary units (KiB, MiB, GiB) chosen from the data.

    python3 tools/plot-policies.py build/cotangent-demo-policies.json -o build/policies.png

Needs matplotlib (apt-get install python3-matplotlib, or pip install matplotlib);
without it, says so and exits with code 3, which the C++ tools take to mean
"not drawn, carry on".
"""

import argparse
import json
import sys

from plotcommon import MISSING_MATPLOTLIB, have_matplotlib, unit


# Distinct shapes, drawn hollow, so that policies on the same spot stay visible.
MARKERS = ["o", "s", "D", "^", "v", "P", "X", "<", ">", "h", "*", "p"]



def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = data.get("rows", [])
    if not rows:
        raise ValueError(f"{path}: no rows to plot")
    for row in rows:
        for key in ("policy", "time_ms", "peak_bytes", "residual_bytes"):
            if key not in row:
                raise ValueError(f"{path}: a row has no '{key}': {row}")
    return data.get("title", "remat policies"), rows


def draw(title, rows, out):
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    unit_name, size = unit(max(max(r["peak_bytes"], r["residual_bytes"]) for r in rows))
    cmap = plt.get_cmap("tab10")
    fig, (trade, bars) = plt.subplots(1, 2, figsize=(13, 6), gridspec_kw={"width_ratios": [1.2, 1]})
    fig.suptitle(title)

    # Left: each policy's peak against its median time.
    for i, r in enumerate(rows):
        t = r["time_ms"]
        spread = [[t - r.get("time_ms_min", t)], [r.get("time_ms_max", t) - t]]
        trade.errorbar(
            t, r["peak_bytes"] / size, xerr=spread, fmt=MARKERS[i % len(MARKERS)],
            markersize=9 + 2 * (i % 3), markerfacecolor="none", markeredgewidth=2,
            color=cmap(i % 10), capsize=3,
            label=f'{r["policy"]}: {t:.3g} ms, peak {r["peak_bytes"] / size:.3g} {unit_name}')
    trade.set_xlabel("time per grad step (ms, median; bars: fastest to slowest run)")
    trade.set_ylabel(f"peak memory ({unit_name})")
    trade.set_title("peak memory against time")
    trade.grid(True, alpha=0.3)
    # Memory from zero, so that heights read as ratios; time around the
    # measured range, so that policies a few percent apart do not pile up.
    fastest = min(r.get("time_ms_min", r["time_ms"]) for r in rows)
    slowest = max(r.get("time_ms_max", r["time_ms"]) for r in rows)
    pad = max(slowest - fastest, 0.05 * slowest) * 0.15
    trade.set_xlim(max(0.0, fastest - pad), slowest + pad)
    trade.set_ylim(0, max(r["peak_bytes"] for r in rows) / size * 1.15)
    # Below the plot: a legend inside could cover a point.
    trade.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize=9, frameon=False)

    # Right: residual and peak bytes per policy, first policy on top.
    names = [r["policy"] for r in rows]
    ys = list(range(len(rows)))
    height = 0.38
    residual = [r["residual_bytes"] / size for r in rows]
    peak = [r["peak_bytes"] / size for r in rows]
    for values, offset, label, colour in (
        (residual, -height / 2, "residuals (saved for the backward)", "#4c72b0"),
        (peak, height / 2, "peak (all live buffers)", "#dd8452"),
    ):
        bars.barh([y + offset for y in ys], values, height, label=label, color=colour)
        # Each value just right of its bar end: bars are apart, so labels are too.
        for y, value in zip(ys, values):
            bars.annotate(f"{value:.3g}", (value, y + offset), xytext=(3, 0),
                          textcoords="offset points", va="center", fontsize=8)
    bars.set_yticks(ys)
    bars.set_yticklabels(names)
    bars.invert_yaxis()
    bars.set_xlabel(unit_name)
    bars.set_xlim(0, max(peak + residual) * 1.2)
    bars.set_title("bytes per policy")
    bars.grid(True, axis="x", alpha=0.3)
    bars.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize=9, frameon=False)

    fig.tight_layout()
    # "tight" grows the picture to hold the legends below the axes.
    fig.savefig(out, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="the JSON written by cotangent-bench or cotangent-demo")
    parser.add_argument("-o", "--output", help="the picture (default: DATA with .png)")
    args = parser.parse_args()
    out = args.output or (args.data.rsplit(".", 1)[0] + ".png")
    try:
        title, rows = load(args.data)
    except (OSError, ValueError) as e:
        print(f"plot-policies.py: {e}", file=sys.stderr)
        return 1
    if not have_matplotlib("plot-policies.py", args.data, out):
        return MISSING_MATPLOTLIB
    draw(title, rows, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
