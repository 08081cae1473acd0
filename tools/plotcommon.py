"""What tools/plot-policies.py and tools/plot-frontier.py share: units and the matplotlib check."""

import sys

MISSING_MATPLOTLIB = 3  # bench/PlotScript.cpp reads this exit code

BYTE_UNITS = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("bytes", 1)]
FLOP_UNITS = [("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6), ("kFLOP", 1e3), ("FLOP", 1)]


def unit(largest, units=BYTE_UNITS):
    """The largest unit in which `largest` is at least 1."""
    for name, size in units:
        if largest >= size:
            return name, size
    return units[-1]


def have_matplotlib(script, data, out):
    """Whether matplotlib imports; if not, says how to get it and draw later."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"{script}: matplotlib is not installed, so the plot was not drawn.\n"
              "  Install it with `apt-get install python3-matplotlib`"
              " (or `pip install matplotlib`),\n"
              f"  then run: python3 {sys.argv[0]} {data} -o {out}", file=sys.stderr)
        return False
    return True
