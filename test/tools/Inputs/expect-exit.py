"""Runs a command and checks how it ends: with the expected exit code, in time.

    expect-exit.py CODE SECONDS COMMAND [ARG]...

Prints what the command printed (stdout, then stderr), so that FileCheck can
check the message; exits 1 if the command exited with another code or was
still running after SECONDS (a bad flag value must fail at once, not hang).
"""

import subprocess
import sys

code, seconds, command = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
try:
    proc = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=seconds)
except subprocess.TimeoutExpired:
    print(f"expect-exit: {command[0]} was still running after {seconds:g} s")
    sys.exit(1)
sys.stdout.write(proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace"))
if proc.returncode != code:
    print(f"expect-exit: {command[0]} exited with {proc.returncode}, expected {code}")
    sys.exit(1)
