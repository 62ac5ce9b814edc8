#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Documentation checks, as KTAP: every relative link in a tracked Markdown
file resolves to a tracked file inside the repository (and, with a
#fragment, to a heading of that file); every `make TARGET` the README
names is a target of the Makefile; every reStructuredText file parses
with docutils without a warning (what the kernel's `make htmldocs` needs
of it first); and the tables that tests/tools/bench-tables.sh makes from
Documentation/bench/results.tsv are the ones README.md and benchmarks.md
show.

Usage: tests/docs-tests.py"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

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


def rst_problems(path):
    """docutils' warnings and errors on a reStructuredText file."""
    try:
        import docutils.core
        import docutils.utils
    except ImportError:
        return ["docutils is not installed (Debian: python3-docutils)"]
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        src = f.read()
    try:
        docutils.core.publish_doctree(src, source_path=path, settings_overrides={
            "report_level": 2, "halt_level": 2, "warning_stream": False})
    except docutils.utils.SystemMessage as e:
        return [str(e)]
    return []


def tables_problems():
    """The generated tables, made again from results.tsv, against the docs."""
    docs = ["README.md", "Documentation/benchmarks.md"]
    with tempfile.TemporaryDirectory() as tmp:
        copies = [os.path.join(tmp, os.path.basename(d)) for d in docs]
        for d, c in zip(docs, copies):
            shutil.copy(os.path.join(TOP, d), c)
        run = subprocess.run(
            [os.path.join(TOP, "tests/tools/bench-tables.sh"),
             os.path.join(TOP, "Documentation/bench/results.tsv")] + copies,
            capture_output=True, text=True)
        if run.returncode:
            return [f"bench-tables.sh failed: {run.stderr.strip()}"]
        return [f"{d}: its tables differ from what results.tsv makes "
                "(tests/tools/bench-tables.sh)"
                for d, c in zip(docs, copies)
                if open(c, encoding="utf-8").read() !=
                open(os.path.join(TOP, d), encoding="utf-8").read()]


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

    # README's count of a whole run's distinct checks is the closing
    # line's: the sum of the per-suite counts tests/manifest keeps.
    total = 0
    with open(os.path.join(TOP, "tests/manifest"), encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2 and not line.startswith("#"):
                total += int(fields[1])
    said = re.findall(r"A whole run counts\s+(\d+)", readme)
    results.append(("readme_check_count_is_the_manifests",
                    [] if said == [str(total)] else
                    [f"README says {said or 'no count'}, tests/manifest "
                     f"adds up to {total}"]))

    for rst in sorted(f for f in files if f.endswith(".rst")):
        results.append((f"rst_parses/{rst}", rst_problems(rst)))
    results.append(("tables_match_results_tsv", tables_problems()))

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
