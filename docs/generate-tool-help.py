#!/usr/bin/env python3
"""Writes the tools' --help texts as one Markdown reference, at build time.

    generate-tool-help.py BIN_DIR OUTPUT.md

For cotangent-interpret, -run, -demo and -bench the reference holds the whole
`--help`; for cotangent-opt only Cotangent's passes and pipelines (`--jx-*`)
with their options, realigned (mlir-opt's hundreds of other flags are
upstream's to document). docs/CMakeLists.txt runs this into build/docs/, and
the committed copy in docs/generated/ is checked like the ODS references.
Python's standard library only.
"""

import os
import re
import subprocess
import sys

TOOLS = ["cotangent-opt", "cotangent-interpret", "cotangent-run", "cotangent-demo",
         "cotangent-bench", "cotangent-train"]


def run_help(bin_dir, tool):
    exe = os.path.join(bin_dir, tool)
    return subprocess.run([exe, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          check=True, env=dict(os.environ, COLUMNS="100")).stdout.decode()


def jx_passes(text):
    """The --help lines of the jx passes and their options, as (indent, flag, description)."""
    entries, indent = [], None
    for line in text.splitlines():
        m = re.match(r"^(\s*)(--?\S+(?: <\w+>)?)\s+- ?\s*(.*)$", line)
        if not m:
            continue
        width = len(m.group(1))
        if m.group(2).startswith("--jx-"):
            indent = width
            entries.append((0, m.group(2), m.group(3)))
        elif indent is not None and width > indent:
            entries.append((2, m.group(2), m.group(3)))
        else:
            indent = None
    return entries


def main():
    bin_dir, output = sys.argv[1], sys.argv[2]
    out = ["<!-- Generated from each tool's --help by docs/generate-tool-help.py; do not edit. -->",
           "",
           "# Command-line reference",
           "",
           "What each tool's `--help` prints. `docs/cli.md` explains the flags with examples;",
           "the ctest test `docs-cli-flags` checks that it lists every one of them.",
           ""]
    for tool in TOOLS:
        text = run_help(bin_dir, tool)
        out += [f"## {tool}", "", "```text"]
        if tool == "cotangent-opt":
            entries = jx_passes(text)
            width = max(indent + len(flag) for indent, flag, _ in entries) + 2
            out += ["Cotangent's passes and pipelines (cotangent-opt --help lists every MLIR "
                    "flag):", ""]
            out += [(" " * indent + flag).ljust(width) + "- " + desc
                    for indent, flag, desc in entries]
        else:
            out += [line.rstrip() for line in text.strip("\n").splitlines()]
        out += ["```", ""]
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
