#!/usr/bin/env python3
"""Checks that docs/cli.md lists every flag of every tool, and only real ones.

docs/cli.md has one section per tool, headed "## `cotangent-NAME`", with a
table of flags. For each tool, the flags its `--help-hidden` lists must each
appear in a table row of its section (written `--flag`, `--flag=VALUE` or
`--flag[=...]`), and each flag a row names must be one the tool has:

- cotangent-interpret, -run, -demo, -bench, -train: every flag of the tool's own
  category (hidden ones too), and --help and --version;
- cotangent-opt: every Cotangent pass and pipeline (`--jx-*`) with each of its
  options (written `name=...` in the pass's row), and --help and --version;
  the rows may name any other flag mlir-opt has, but need not.

Prints what is missing or unknown and exits 1, or prints how many flags it
checked. Python's standard library only.
"""

import argparse
import importlib.util
import os
import re
import subprocess
import sys

TOOLS = ["cotangent-opt", "cotangent-interpret", "cotangent-run", "cotangent-demo",
         "cotangent-bench", "cotangent-step", "cotangent-train"]
# Built only with the CUDA toolkit.
OPTIONAL = {"cotangent-step"}
GENERIC = {"help", "version"}
FLAG = re.compile(r"(?<![\w-])--?([A-Za-z][\w-]*)")


def help_text(build, tool):
    exe = os.path.join(build, "bin", tool)
    return subprocess.run([exe, "--help-hidden"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=True).stdout.decode()


def all_flags(text):
    return set(re.findall(r"^\s*--?([\w-]+)", text, re.M))


def own_flags(text, tool):
    """The flags of the tool's own category ("TOOL options:"), plus --help/--version."""
    m = re.search(rf"^{re.escape(tool)} options:\n(.*?)(?=^\S|\Z)", text, re.M | re.S)
    own = set(re.findall(r"^\s*--?([\w-]+)", m.group(1), re.M)) if m else set()
    return own | GENERIC


def pass_options(root, text):
    """{jx pass or pipeline: [its options]} from cotangent-opt's --help, read by the
    same code that writes the generated reference (docs/generate-tool-help.py)."""
    spec = importlib.util.spec_from_file_location(
        "generate_tool_help", os.path.join(root, "docs", "generate-tool-help.py"))
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    passes, current = {}, None
    for indent, flag, _ in generator.jx_passes(text):
        name = re.match(r"--?([\w-]+)", flag).group(1)
        if indent == 0:
            current = passes.setdefault(name, [])
        else:
            current.append(name)
    return passes


def sections(cli_text):
    """{tool: [table rows]} of docs/cli.md."""
    rows, tool = {}, None
    for line in cli_text.splitlines():
        m = re.match(r"^##\s+`([\w-]+)`", line)
        if m:
            tool = m.group(1)
            rows.setdefault(tool, [])
        elif line.startswith("#"):
            tool = None
        elif tool and line.startswith("|"):
            rows[tool].append(line)
    return rows


def row_flags(row):
    """The flags named in the first column's backticked spans of a table row."""
    cells = re.split(r"(?<!\\)\|", row.strip().strip("|"))
    first = cells[0] if cells else ""
    flags = []
    for span in re.findall(r"`([^`]*)`", first):
        # Only the flag itself, not the words inside an option value.
        flags += [f for f in FLAG.findall(span.split("=", 1)[0])]
    return flags


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    cli_path = os.path.join(args.root, "docs", "cli.md")
    with open(cli_path, encoding="utf-8") as f:
        documented = sections(f.read())
    problems, checked, options_checked = [], 0, 0
    for tool in TOOLS:
        if tool in OPTIONAL and not os.path.exists(os.path.join(args.build, "bin", tool)):
            continue
        text = help_text(args.build, tool)
        rows = documented.get(tool)
        if rows is None:
            problems.append(f"{tool}: docs/cli.md has no section headed ## `{tool}`")
            continue
        named = {}
        for row in rows:
            for flag in row_flags(row):
                named.setdefault(flag, row)
        existing = all_flags(text)
        for flag in sorted(named):
            if flag not in existing:
                problems.append(f"{tool}: docs/cli.md names --{flag}, which --help does not list")
        if tool == "cotangent-opt":
            options = pass_options(args.root, text)
            required = set(options) | GENERIC
            for name, opts in sorted(options.items()):
                row = named.get(name, "")
                for opt in opts:
                    options_checked += 1
                    if row and not re.search(rf"(?<![\w-]){re.escape(opt)}(?=[=\]`\s\"|])", row):
                        problems.append(f"{tool}: the row of --{name} in docs/cli.md does not "
                                        f"name its option {opt}")
        else:
            required = own_flags(text, tool)
        for flag in sorted(required):
            checked += 1
            if flag not in named:
                problems.append(f"{tool}: --{flag} is missing from the table in docs/cli.md")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"docs/cli.md lists all {checked} flags of the {len(TOOLS)} tools "
          f"(and the {options_checked} options of cotangent-opt's jx passes), each of them real")
    return 0


if __name__ == "__main__":
    sys.exit(main())
