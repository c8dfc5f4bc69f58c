#!/usr/bin/env python3
"""Measures the house: modules per folder, production lines per folder (lines
above a file's first `#[cfg(test)]`), files and functions over their limits.

Usage: scripts/house/measure.py [--files-over N] [--fns-over N] [ROOT ...]
Defaults: src and crates/*/src, files over 800 lines, functions over 80.
"""
import argparse
import collections
import glob
import os
import re

FN_START = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(async\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")


def production_lines(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]" and not line.startswith(" "):
            return lines[:i]
    return lines


def long_functions(lines, limit):
    found = []
    i = 0
    while i < len(lines):
        m = FN_START.match(lines[i])
        if not m:
            i += 1
            continue
        depth, started, j = 0, False, i
        while j < len(lines):
            code = re.sub(r'"(\\.|[^"\\])*"', '""', lines[j].split("//")[0])
            code = re.sub(r"'(\\.|[^'\\])'", "''", code)
            depth += code.count("{") - code.count("}")
            if "{" in code:
                started = True
            if started and depth <= 0:
                break
            if not started and code.rstrip().endswith(";"):
                break
            j += 1
        length = j - i + 1
        if started and length > limit:
            found.append((m.group(6), i + 1, length))
        i = i + 1 if not started else j + 1
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--files-over", type=int, default=800)
    p.add_argument("--fns-over", type=int, default=80)
    p.add_argument("--list", action="store_true", help="list each long file and function")
    p.add_argument("roots", nargs="*")
    a = p.parse_args()
    roots = a.roots or ["src"] + sorted(glob.glob("crates/*/src"))
    per_folder = collections.OrderedDict()
    long_files, long_fns, total = [], [], 0
    for root in roots:
        for d, _, files in sorted(os.walk(root)):
            if os.sep + "tests" in d + os.sep and d.split(os.sep)[-1] == "tests" or "/tests/" in d + "/":
                continue
            rs = sorted(f for f in files if f.endswith(".rs") and f != "tests.rs")
            if not rs:
                continue
            lines_here = 0
            for f in rs:
                path = os.path.join(d, f)
                prod = production_lines(path)
                lines_here += len(prod)
                if len(prod) > a.files_over:
                    long_files.append((path, len(prod)))
                for name, line, length in long_functions(prod, a.fns_over):
                    long_fns.append((path, name, line, length))
            per_folder[d] = (len(rs), lines_here)
            total += lines_here
    print(f"{'folder':48} {'modules':>7} {'lines':>7}")
    for d, (n, lines) in per_folder.items():
        print(f"{d:48} {n:7} {lines:7}")
    print(f"production lines: {total}")
    for root in roots:
        here = sum(lines for d, (_, lines) in per_folder.items() if d == root or d.startswith(root + os.sep))
        print(f"  {root}: {here}")
    print(f"folders over 25 modules: {sum(1 for n, _ in per_folder.values() if n > 25)}")
    print(f"files over {a.files_over} lines: {len(long_files)}")
    print(f"functions over {a.fns_over} lines: {len(long_fns)}")
    if a.list:
        for path, n in sorted(long_files, key=lambda x: -x[1]):
            print(f"  file {path}: {n}")
        for path, name, line, n in sorted(long_fns, key=lambda x: -x[3]):
            print(f"  fn {path}:{line} {name}: {n}")


if __name__ == "__main__":
    main()
