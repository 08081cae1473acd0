#!/usr/bin/env python3
"""Runs the command blocks of the documentation and compares what they print.

The convention is described for writers in docs/doc-tests.md; in short:

- A ```sh block whose lines start with `$ ` is a session: each `$ ` line is a
  command (a trailing backslash continues it on the next line, and a heredoc
  `<<'EOF'` takes the lines up to `EOF`), and the lines up to the next `$ `
  are what it prints, stdout and stderr together. A command that exits
  non-zero prints `[exit code N]` as its last line.
- A block of any kind preceded by `<!-- doc-test: output of COMMAND -->` is an
  excerpt: its lines must appear, one after the other, in what COMMAND prints.
- `<!-- doc-test: not run: REASON -->` before a session skips it, with a reason.
- In expected output, `{{REGEX}}` matches a volatile part of a line (a time, an
  address) and a line `[...]` matches any number of lines.
- Each command runs in bash from a scratch copy of the repository root (links to
  its top-level entries, and `build` to the build directory), with build/bin on
  PATH. Trailing blanks are ignored, and absolute paths into the checkout or the
  build directory print as relative ones (`examples/x.mlir`, `build/x.json`), as
  do paths relative to the build directory (what ccache makes of __FILE__).
- A command must not leave files in its current directory: tools write where
  they are told, or into build/.
- A ```sh block without `$ ` lines is a listing: it is not run, but each
  program it names must exist, and each flag given to a Cotangent tool must be
  one the tool's --help lists.

Prints one line per failure with a unified diff, then how many blocks were
checked; exits 1 if any block failed. Python's standard library only.
"""

import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

# CommonMark's fences: up to three spaces of indentation, and no backtick in the
# info string of a backtick fence (so "```` ```sh ````" in prose is not one).
FENCE = re.compile(r"^( {0,3})(`{3,}(?=[^`]*$)|~{3,})\s*(\S*)(.*)$")
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
HEREDOC = re.compile(r"(?<!<)<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
ELISION = "[...]"
EXIT_LINE = "[exit code {}]"
# Fences whose `$ ` lines would be a session written in the wrong kind of block.
SHELLISH = {"", "text", "shell", "bash", "console", "sh-session"}
TOOL = re.compile(r"(^|/)(cotangent-[a-z]+)$")


@dataclass
class Block:
    path: str  # relative to the root
    line: int  # 1-based line of the opening fence
    lang: str
    lines: list
    marker: str = None
    marker_line: int = 0


@dataclass
class Command:
    text: str
    line: int
    expected: list = field(default_factory=list)
    expected_at: int = 0  # 0-based line of the file where the expected output starts


class DocError(Exception):
    pass


def parse_blocks(root, rel):
    """The fenced blocks of one Markdown file, each with the marker before it."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.read().splitlines()
    blocks, marker, marker_line, i = [], None, 0, 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            indent, fence, lang = m.group(1), m.group(2), m.group(3)
            start, i = i, i + 1
            body = []
            while i < len(lines):
                close = lines[i]
                if (len(close) - len(close.lstrip(" ")) <= 3 and
                        close.strip().startswith(fence) and not close.strip().strip(fence[0])):
                    break
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            else:
                raise DocError(f"{rel}:{start + 1}: the code block is never closed")
            blocks.append(Block(rel, start + 1, lang, body, marker, marker_line))
            marker = None
        else:
            mm = MARKER.match(lines[i])
            if mm:
                marker, marker_line = mm.group(1), i + 1
            elif lines[i].strip() and marker is not None:
                raise DocError(f"{rel}:{marker_line}: a doc-test marker must come right "
                               "before a code block")
        i += 1
    if marker is not None:
        raise DocError(f"{rel}:{marker_line}: a doc-test marker must come right before a "
                       "code block")
    return blocks


def parse_session(block):
    """The commands of a ```sh block with `$ ` lines, each with its expected output."""
    commands, lines, i = [], block.lines, 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if lines[i].strip():
                raise DocError(f"{block.path}:{block.line + 1 + i}: output before the first "
                               "`$ ` command")
            i += 1
            continue
        cmd_line = block.line + 1 + i
        text = [lines[i][2:]]
        i += 1
        while text[-1].endswith("\\") and i < len(lines):
            text.append(lines[i])
            i += 1
        for m in HEREDOC.finditer("\n".join(text)):
            end = m.group(2)
            while i < len(lines) and lines[i].strip() != end:
                text.append(lines[i])
                i += 1
            if i == len(lines):
                raise DocError(f"{block.path}:{cmd_line}: the heredoc is never closed by {end}")
            text.append(lines[i])
            i += 1
        command = Command("\n".join(text), cmd_line, expected_at=block.line + i)
        while i < len(lines) and not lines[i].startswith("$ "):
            command.expected.append(lines[i])
            i += 1
        commands.append(command)
    return commands


def trim(lines):
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def line_pattern(expected):
    """A compiled regex for a line with {{holes}}, or None for a literal line."""
    if "{{" not in expected:
        return None
    parts = re.split(r"\{\{(.*?)\}\}", expected)
    regex = "".join(re.escape(p) if k % 2 == 0 else f"(?:{p})" for k, p in enumerate(parts))
    return re.compile(regex)


def line_matches(expected, actual):
    pattern = line_pattern(expected)
    return actual == expected if pattern is None else pattern.fullmatch(actual) is not None


def matches(expected, actual):
    """Whether the actual lines match the expected ones, `[...]` matching any run."""
    memo = {}

    def at(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i] == ELISION:
            result = any(at(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and line_matches(expected[i], actual[j]) and at(i + 1, j + 1)
        memo[i, j] = result
        return result

    sys.setrecursionlimit(max(10000, 4 * (len(expected) + len(actual))))
    return at(0, 0)


def diff(expected, actual, where):
    """A unified diff; actual lines a hole matches are shown as the expected line."""
    shown = []
    for line in actual:
        same = next((e for e in expected if e != ELISION and "{{" in e and line_matches(e, line)),
                    None)
        shown.append(same if same is not None else line)
    return "".join(difflib.unified_diff([e + "\n" for e in expected], [a + "\n" for a in shown],
                                        f"expected ({where})", "actual"))


class Runner:
    def __init__(self, root, build, timeout, verbose, update):
        self.root, self.build = os.path.realpath(root), os.path.realpath(build)
        self.timeout, self.verbose, self.update = timeout, verbose, update
        self.updates = {}  # path -> [(first line, line count, new lines)]
        self.view = tempfile.mkdtemp(prefix="doc-test-")
        for name in os.listdir(self.root):
            if name not in ("build", ".git"):
                os.symlink(os.path.join(self.root, name), os.path.join(self.view, name))
        os.symlink(self.build, os.path.join(self.view, "build"))
        self.view_entries = set(os.listdir(self.view))
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(self.build, "bin") + os.pathsep + self.env.get("PATH", "")
        self.env["LC_ALL"] = "C"
        for var in ("COLUMNS", "LINES", "COTANGENT_ROUNDTRIP"):
            self.env.pop(var, None)
        self.outputs, self.help_flags = {}, {}
        self.failures, self.commands, self.skipped = 0, 0, []

    def close(self):
        shutil.rmtree(self.view, ignore_errors=True)

    def fail(self, where, message):
        self.failures += 1
        print(f"FAIL {where}: {message}")

    def normalize(self, text):
        """Absolute paths into the build, the scratch root or the checkout as relative ones."""
        for prefix, replacement in ((self.build, "build"), (self.view, ""), (self.root, "")):
            text = text.replace(prefix + "/", replacement + "/" if replacement else "")
            text = re.sub(re.escape(prefix) + r"(?![\w/.-])", replacement or ".", text)

        def from_build(m):
            path = os.path.realpath(os.path.join(self.build, m.group(0)))
            if os.path.exists(path) and path.startswith(self.root + os.sep):
                return os.path.relpath(path, self.root)
            return m.group(0)

        return re.sub(r"(?<![\w/.])(?:\.\./)+[\w.+-]+(?:/[\w.+-]+)*", from_build, text)

    def run(self, command, where):
        """What the command prints (normalized lines, exit code line included); cached."""
        if command in self.outputs:
            return self.outputs[command]
        self.commands += 1
        try:
            proc = subprocess.run(["bash", "-c", command], cwd=self.view, env=self.env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=self.timeout)
            lines = trim(self.normalize(proc.stdout.decode("utf-8", "replace")).splitlines())
            if proc.returncode:
                lines.append(EXIT_LINE.format(proc.returncode))
        except subprocess.TimeoutExpired:
            lines = [f"[timed out after {self.timeout} s]"]
        left = sorted(set(os.listdir(self.view)) - self.view_entries)
        if left:
            self.fail(where, "the command left files in the current directory: " + ", ".join(left))
            for name in left:
                path = os.path.join(self.view, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        self.outputs[command] = lines
        return lines

    def compare(self, where, expected, actual):
        expected = trim(expected)
        if matches(expected, actual):
            return True
        self.fail(where, "the output differs\n" + diff(expected, actual, where))
        return False

    def check_session(self, block):
        for command in parse_session(block):
            where = f"{block.path}:{command.line}"
            if self.verbose:
                print(f"  {where}: $ {command.text.splitlines()[0]}")
            actual = self.run(command.text, where)
            literal = not any("{{" in e or e.strip() == ELISION for e in command.expected)
            if self.update and literal and not matches(trim(command.expected), actual):
                # Keep the blank lines that separate this output from the next command.
                count = len(trim(command.expected))
                self.updates.setdefault(block.path, []).append(
                    (command.expected_at, count, actual))
                print(f"updated {where}")
                continue
            self.compare(where, command.expected, actual)

    def write_updates(self):
        for rel, edits in self.updates.items():
            path = os.path.join(self.root, rel)
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            for first, count, new in sorted(edits, reverse=True):
                lines[first:first + count] = new
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")

    def check_excerpt(self, block, command):
        where = f"{block.path}:{block.line}"
        if self.verbose:
            print(f"  {where}: excerpt of `{command}`")
        expected = [ELISION] + trim(block.lines) + [ELISION]
        actual = self.run(command, where)
        if matches(expected, actual):
            return
        # Diff against the stretch of output that matches the most leading lines
        # (then the most text).
        want = trim(block.lines)

        def agreeing(k):
            n = 0
            while n < len(want) and k + n < len(actual) and line_matches(want[n], actual[k + n]):
                n += 1
            return n

        def likeness(k):
            window = actual[k:k + len(want)]
            text = difflib.SequenceMatcher(None, "\n".join(want), "\n".join(window))
            return agreeing(k), text.ratio()

        best = max(range(len(actual)), key=likeness, default=0)
        context = actual[best:best + len(want)]
        self.fail(where, f"the excerpt is not in the output of `{command}`\n" +
                  diff(want, context, where))

    def flags_of(self, tool):
        """The flags a tool's --help-hidden lists (without dashes or values)."""
        if tool not in self.help_flags:
            exe = os.path.join(self.build, "bin", tool)
            text = ""
            if os.path.exists(exe):
                text = subprocess.run([exe, "--help-hidden"], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, env=self.env).stdout.decode()
            self.help_flags[tool] = set(re.findall(r"^\s*--?([\w-]+)", text, re.M))
        return self.help_flags[tool]

    def check_listing(self, block):
        """Programs named in a listing exist; flags given to Cotangent's tools exist.
        In a session that is not run, only its `$ ` lines are commands."""
        lines = block.lines
        if any(line.startswith("$ ") for line in lines):
            lines = [line[2:] if line.startswith("$ ") else "" for line in lines]
        for k, line in enumerate(lines):
            where = f"{block.path}:{block.line + 1 + k}"
            try:
                words = shlex.split(line, comments=True)
            except ValueError:
                continue
            segments, current = [], []
            for word in words:
                if word in ("|", "&&", "||", ";"):
                    segments.append(current)
                    current = []
                else:
                    current.append(word)
            segments.append(current)
            for segment in segments:
                while segment and re.match(r"^\w+=", segment[0]):  # VAR=value prefixes
                    segment = segment[1:]
                if not segment:
                    continue
                program, rest = segment[0], segment[1:]
                if "/" in program and not os.path.exists(os.path.join(self.view, program)):
                    self.fail(where, f"{program} does not exist")
                tool = TOOL.search(program)
                for word in rest if tool else []:
                    if word.startswith("-") and len(word) > 1:
                        if word.lstrip("-").split("=")[0] not in self.flags_of(tool.group(2)):
                            self.fail(where, f"{tool.group(2)} has no flag {word.split('=')[0]}")

    def check(self, block):
        """Checks one block; returns its kind (None: not a command block)."""
        marker = block.marker
        session = block.lang == "sh" and any(line.startswith("$ ") for line in block.lines)
        if marker and marker.startswith("output of "):
            self.check_excerpt(block, marker[len("output of "):].strip().strip("`"))
            return "excerpt"
        if marker and marker.startswith("not run"):
            reason = marker[len("not run"):].lstrip(":, ").strip()
            if not reason:
                raise DocError(f"{block.path}:{block.marker_line}: `not run` needs a reason")
            self.skipped.append(f"{block.path}:{block.line}: {reason}")
            if block.lang == "sh":
                self.check_listing(block)  # its programs and flags still exist
            return "not run"
        if marker:
            raise DocError(f"{block.path}:{block.marker_line}: unknown doc-test marker "
                           f"'{marker}' (output of COMMAND, or not run: REASON)")
        if session:
            self.check_session(block)
            return "session"
        if block.lang in SHELLISH and any(line.startswith("$ ") for line in block.lines):
            raise DocError(f"{block.path}:{block.line}: a session with `$ ` lines must be a "
                           "```sh block, or it is not run")
        if block.lang == "sh":
            self.check_listing(block)
            return "listing"
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the repository root")
    parser.add_argument("--build", required=True, help="the build directory")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per command")
    parser.add_argument("-v", "--verbose", action="store_true", help="name each command")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the expected output of sessions without {{holes}} or "
                             "[...] lines to what the commands print (review the diff!)")
    parser.add_argument("files", nargs="*",
                        help="Markdown files relative to the root (default: README.md, docs/*.md)")
    args = parser.parse_args()
    files = args.files or ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(args.root, "docs"))
        if f.endswith(".md"))
    runner = Runner(args.root, args.build, args.timeout, args.verbose, args.update)
    kinds = {"session": 0, "excerpt": 0, "listing": 0, "not run": 0}
    try:
        for rel in files:
            if args.verbose:
                print(rel)
            try:
                blocks = parse_blocks(args.root, rel)
            except DocError as e:
                runner.fail(str(e).split(": ", 1)[0], str(e).split(": ", 1)[1])
                continue
            for block in blocks:
                try:
                    kind = runner.check(block)
                except DocError as e:
                    runner.fail(str(e).split(": ", 1)[0], str(e).split(": ", 1)[1])
                    continue
                if kind:
                    kinds[kind] += 1
    finally:
        runner.close()
    runner.write_updates()
    for skip in runner.skipped:
        print(f"not run: {skip}")
    checked = kinds["session"] + kinds["excerpt"] + kinds["listing"]
    print(f"doc-test: {checked} blocks checked in {len(files)} files ({kinds['session']} "
          f"sessions, {kinds['excerpt']} excerpts, {kinds['listing']} listings; "
          f"{runner.commands} commands run), {kinds['not run']} not run, "
          f"{runner.failures} failures")
    return 1 if runner.failures else 0


if __name__ == "__main__":
    sys.exit(main())
