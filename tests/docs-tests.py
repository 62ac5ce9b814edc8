#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Documentation checks, as KTAP: every relative link in a tracked Markdown
file resolves to a tracked file inside the repository (and, with a
#fragment, to a heading of that file), and every `make TARGET` the README
names is a target of the Makefile.

Usage: tests/docs-tests.py"""
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def tracked():
    out = subprocess.run(["git", "-C", TOP, "ls-files"], check=True,
                         capture_output=True, text=True).stdout
    return set(out.split())


def anchors(path):
    """GitHub-style heading anchors of a Markdown file."""
    found = set()
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        fence = False
        for line in f:
            if line.startswith("```"):
                fence = not fence
            if fence or not line.startswith("#"):
                continue
            text = line.lstrip("#").strip().lower()
            text = re.sub(r"[^\w\- ]", "", text)
            found.add(text.replace(" ", "-"))
    return found


def main():
    files = tracked()
    results = []
    for md in sorted(f for f in files if f.endswith(".md")):
        bad = []
        text = open(os.path.join(TOP, md), encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue        # http(s), mailto: not checked offline
            path, _, frag = target.partition("#")
            dest = md if not path else os.path.normpath(
                os.path.join(os.path.dirname(md), path))
            if dest.startswith(".."):
                bad.append(f"{target}: outside the repository")
            elif dest not in files and not any(
                    f.startswith(dest + "/") for f in files):
                bad.append(f"{target}: no such file in the repository")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append(f"{target}: no heading #{frag} in {dest}")
        results.append((f"links/{md}", bad))

    targets = set()
    with open(os.path.join(TOP, "Makefile"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([a-z][\w-]*)\s*:(?!=)", line)
            if m:
                targets.add(m.group(1))
    readme = open(os.path.join(TOP, "README.md"), encoding="utf-8").read()
    named = sorted(set(re.findall(r"`make ([a-z][\w-]*)", readme)))
    results.append(("readme_make_targets_exist",
                    [f"make {t}: no such target" for t in named
                     if t not in targets]))

    print("KTAP version 1")
    print("# docs")
    print(f"1..{len(results)}")
    failed = 0
    for n, (name, bad) in enumerate(results, 1):
        for why in bad:
            print(f"# {name}: {why}")
        print(f"{'not ok' if bad else 'ok'} {n} {name}")
        failed += bool(bad)
    print(f"# Totals: pass:{len(results) - failed} fail:{failed} skip:0")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
