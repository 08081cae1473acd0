"""Checks that every jx pass and pipeline of cotangent-opt has a lit test named after it.

Reads `cotangent-opt --help` on stdin, takes each --jx-NAME flag, and looks for
a file NAME.mlir anywhere under the test folder given as the argument.
"""

import os
import re
import sys

flags = sorted(set(re.findall(r"--(jx-[a-z0-9-]+)", sys.stdin.read())))
tests = {name for _, _, files in os.walk(sys.argv[1]) for name in files}
missing = [f for f in flags if f + ".mlir" not in tests]
if not flags:
    sys.exit("no --jx-* flag in the --help text")
for f in missing:
    print(f"--{f} has no test named {f}.mlir under test/")
if missing:
    sys.exit(1)
print(f"each of the {len(flags)} jx passes and pipelines has a test named after it")
