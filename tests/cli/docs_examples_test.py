#!/usr/bin/python3
"""Runs every ```sh example of the given docs, so the documentation cannot drift from the tool.

Each block runs with `bash -e` from the repository root, in order (later blocks may use files
earlier ones made), with `build/dudley` and `build/examples/NAME` replaced by the binaries under
test and `/tmp/` by a private directory. A block that exits non-zero fails the test.

usage: docs_examples_test.py ROOT DUDLEY EXAMPLES_DIR DOC.md...
"""
import os
import re
import subprocess
import sys
import tempfile

root, dudley, examples, docs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
failures = blocks = checks = 0
with tempfile.TemporaryDirectory() as tmp:
    for doc in docs:
        text = open(os.path.join(root, doc), encoding="utf-8").read()
        for block in re.findall(r"```sh\n(.*?)```", text, re.S):
            blocks += 1
            # /tmp/ first: the binaries' own paths may lie under /tmp (a checkout there) and
            # must not be rewritten.
            script = (block.replace("/tmp/", tmp + "/")
                      .replace("build/dudley", dudley)
                      .replace("build/examples/", examples.rstrip("/") + "/"))
            script = re.sub(r"(?<![/\w])python3 ", "/usr/bin/python3 ", script)
            # Commands documenting their output: run with it kept, compared afterwards.
            expected = []
            lines = []
            for line in script.split("\n"):
                m = re.match(r"(.*?)\s+# => (.*)$", line)
                if m:
                    out = os.path.join(tmp, f".out{blocks}_{len(expected)}")
                    expected.append((m.group(1).strip(), m.group(2), out))
                    line = f"{{ {m.group(1)} ; }} >{out} 2>&1"
                lines.append(line)
            r = subprocess.run(["bash", "-e", "-c", "\n".join(lines)], cwd=root,
                               capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                failures += 1
                print(f"FAIL: {doc}: exit {r.returncode}:\n{block}{r.stderr[-2000:]}")
                continue
            for command, text, out in expected:
                checks += 1
                printed = open(out, encoding="utf-8", errors="replace").read().replace(tmp + "/", "/tmp/")
                pattern = r"\s+".join(
                    ".*".join(re.escape(piece) for piece in word.split("..."))
                    for word in text.split())
                if not re.search(pattern, printed, re.S):
                    failures += 1
                    print(f"FAIL: {doc}: `{command}` printed\n{printed[-1500:]}\nnot: {text}")
print(f"doc examples: {blocks} blocks, {checks} documented outputs, {failures} failed")
sys.exit(1 if failures or blocks == 0 else 0)
