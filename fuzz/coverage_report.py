#!/usr/bin/env python3
"""What one fuzz target's corpus reaches of its parser's sources, from llvm-cov's JSON export
(read on stdin): lines and regions covered per source file, the total, then the functions no
input reached (demangled by c++filt). Sources are files or folders relative to the
repository (fuzz/coverage.sh passes the target's parser sources).

usage: llvm-cov export BIN -instr-profile=P | fuzz/coverage_report.py REPO SOURCE...
"""
import json
import os
import subprocess
import sys


def main():
    repo = os.path.realpath(sys.argv[1])
    wanted = [os.path.join(repo, s) for s in sys.argv[2:]]

    def ours(path):
        real = os.path.normpath(path)
        return any(real == w or real.startswith(w.rstrip("/") + "/") for w in wanted)

    data = json.load(sys.stdin)["data"][0]
    rows = []
    total = {"lines": [0, 0], "regions": [0, 0]}
    for f in data["files"]:
        if not ours(f["filename"]):
            continue
        s = f["summary"]
        name = os.path.relpath(os.path.normpath(f["filename"]), repo)
        rows.append((name, s["lines"]["covered"], s["lines"]["count"],
                     s["regions"]["covered"], s["regions"]["count"]))
        for key in total:
            total[key][0] += s[key]["covered"]
            total[key][1] += s[key]["count"]

    def pct(a, b):
        return f"{100.0 * a / b:5.1f}%" if b else "    -"

    print(f"{'file':60} {'lines':>15} {'regions':>15}")
    for name, lc, ln, rc, rn in sorted(rows):
        print(f"{name:60} {pct(lc, ln):>7} of {ln:<5} {pct(rc, rn):>7} of {rn:<5}")
    lc, ln = total["lines"]
    rc, rn = total["regions"]
    print(f"{'TOTAL':60} {pct(lc, ln):>7} of {ln:<5} {pct(rc, rn):>7} of {rn:<5}")

    # A function counts as reached when any of its instances ran (templates, inline copies).
    reached, seen = set(), set()
    for fn in data["functions"]:
        if not fn["filenames"] or not ours(fn["filenames"][0]):
            continue
        seen.add(fn["name"])
        if fn["count"] > 0:
            reached.add(fn["name"])
    missing = sorted(seen - reached)
    # A function with internal linkage is named "FILE:MANGLED": the file kept, the rest
    # demangled.
    files = [m.partition(":")[0] if ":_Z" in m else "" for m in missing]
    mangled = [m.partition(":")[2] if ":_Z" in m else m for m in missing]
    names = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True,
                           text=True).stdout.splitlines() if missing else []
    def short(name):  # without arguments; a lambda named by the function it is in
        name = name.replace("(anonymous namespace)::", "")
        lambda_in = "{lambda" in name or ")::$_" in name
        return name.split("(")[0] + (" (a lambda in it)" if lambda_in else "")
    shown = {(f"{f}: " if f else "") + short(n) for f, n in zip(files, names)}
    print(f"-- functions no input reached ({len(missing)} of {len(seen)}):")
    for n in sorted(shown):
        print("   ", n)


if __name__ == "__main__":
    main()
