#!/usr/bin/env python3
"""Runs the hostile-input corpus (tests/data/hostile/*.json) against the dudley CLI.

Each case is one JSON file: the files to create in a fresh directory, the command to run,
and what must come out (exit code, patterns on stderr/stdout). Every case has a time
budget ("seconds") and, in release builds, an address-space limit; its peak resident memory
is measured with wait4() and must stay under the case's budget.

Time: a case fails when both its wall-clock time and its CPU time (user + system, all
threads) pass the budget. On a busy machine the wall clock stretches while the CPU time
does not; a multi-threaded command spends more CPU than wall time. Work that grows with
what an input claims grows both. A command still running at 5 times the budget (at least
20 s) is killed: a hang, which uses no CPU, is caught by that. Under ASan (--asan) the
budgets are looser (the sanitizer's own memory and speed) and the memory cap is ASan's
hard_rss_limit_mb. A case that crashes, hangs or grows past its budget fails.

Cases marked "scale" (time complexity at 10^5..10^6 items) run in the release build only.

A case may list "runs": the same inputs under several commands, each overriding the case's
"run", "exit", "stdout", "stderr", "check" (and budgets) for that run.

Usage: run_corpus.py DUDLEY CORPUS_DIR [--asan] [--only NAME]
"""
import json
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib


ASDF_HEAD = ("#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n"
             "--- !core/asdf-1.1.0\n")


def read_ends(f, keep=8 << 20):
    """The whole of a file up to 2 * keep bytes; its first and last `keep` bytes otherwise."""
    size = f.seek(0, 2)
    f.seek(0)
    if size <= 2 * keep:
        return f.read()
    head = f.read(keep)
    f.seek(size - keep)
    return head + b"\n...\n" + f.read(keep)


def asdf_block(data, compression=b"", data_size=None, used=None):
    """One ASDF block: magic, 48-byte header (sizes may lie: data_size, used), data."""
    used = len(data) if used is None else used
    data_size = len(data) if data_size is None else data_size
    header = struct.pack(">HI4sQQQ16s", 48, 0, compression.ljust(4, b"\0"), len(data), used,
                         data_size, b"\0" * 16)
    return b"\xd3BLK" + header + data


def asdf_file(tree, blocks=()):
    """An ASDF file: the standard header, the YAML `tree` (after the document start), the
    end marker, then the blocks (bytes from asdf_block)."""
    return (ASDF_HEAD + tree + "...\n").encode() + b"".join(blocks)


def cdf_name(name):
    """A netCDF classic name: its length, its bytes, padding to 4 bytes."""
    b = name.encode() if isinstance(name, str) else name
    return struct.pack(">I", len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


def cdf_file(dims, variables):
    """A netCDF classic (CDF-1) file as netCDF-C lays one out, names taken as given (any
    bytes: '../x', a line end, two variables of one name). `dims`: [(name, length)];
    `variables`: [(name, [dimension ids], type (1 byte .. 6 double), big-endian data)]."""
    head = b"CDF\x01" + struct.pack(">I", 0)
    head += (struct.pack(">II", 0x0A, len(dims)) +
             b"".join(cdf_name(n) + struct.pack(">I", n_) for n, n_ in dims)) if dims else b"\0" * 8
    head += b"\0" * 8  # no global attributes
    entries = [cdf_name(n) + struct.pack(">I", len(ids)) + b"".join(struct.pack(">I", i) for i in ids)
               + b"\0" * 8 + struct.pack(">II", t, len(data)) for n, ids, t, data in variables]
    head += struct.pack(">II", 0x0B, len(variables)) if variables else b"\0" * 8
    at = len(head) + sum(len(e) + 4 for e in entries)
    body = b""
    for entry, (_, _, _, data) in zip(entries, variables):
        head += entry + struct.pack(">I", at)
        padded = data + b"\0" * ((4 - len(data) % 4) % 4)
        body += padded
        at += len(padded)
    return head + body


def npy_file(dtype, shape, data):
    """A version 1.0 .npy file of `data` (bytes) described as numpy describes one."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, repr(tuple(shape)))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


# What the "python" kind's code may use: it assigns the file's content (str or bytes) to `out`.
GENERATORS = {"asdf_file": asdf_file, "asdf_block": asdf_block, "zlib": zlib, "struct": struct,
              "ASDF_HEAD": ASDF_HEAD, "cdf_file": cdf_file, "npy_file": npy_file}


def make_files(case, work):
    """Creates the case's inputs. Kinds: text, hex, zeros, repeat, repeat-hex, numbered,
    embedded (data with its layout inside), python (made by a line of code), fifo, dir,
    symlink."""
    for spec in case.get("files", []):
        path = os.path.join(work, spec["path"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        kind = spec.get("kind", "text")
        if kind == "text":
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(spec["text"])
        elif kind == "hex":
            with open(path, "wb") as f:
                f.write(bytes.fromhex(spec["hex"]))
        elif kind == "zeros":
            with open(path, "wb") as f:
                f.truncate(spec["size"])
        elif kind == "repeat":  # a text unit repeated, between an optional head and tail
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(spec.get("head", ""))
                f.write(spec["unit"] * spec["count"])
                f.write(spec.get("tail", ""))
        elif kind == "repeat-hex":
            with open(path, "wb") as f:
                f.write(bytes.fromhex(spec.get("head", "")))
                f.write(bytes.fromhex(spec["unit"]) * spec["count"])
        elif kind == "numbered":  # a line template with {i}, once for each i in range(count)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(spec.get("head", ""))
                f.writelines(spec["unit"].replace("{i}", str(i)) for i in range(spec["count"]))
        elif kind == "embedded":  # data, then its layout and the 32-byte trailer
            data = bytes.fromhex(spec.get("hex", ""))
            text = spec["layout"].encode()
            trailer = (struct.pack("<QQII", len(data), len(text), zlib.crc32(text), 1)
                       + bytes.fromhex("89444c41590d0a1a"))
            with open(path, "wb") as f:
                f.write(data + text + trailer)
        elif kind == "python":  # crafted structure (ASDF trees and blocks) made by code
            scope = dict(GENERATORS)
            exec(spec["code"], scope)  # the corpus is ours: code checked in with its case
            out = scope["out"]
            with open(path, "wb") as f:
                f.write(out.encode() if isinstance(out, str) else out)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "dir":
            os.makedirs(path, exist_ok=True)
        elif kind == "symlink":
            os.symlink(spec["target"], path)
        else:
            raise ValueError(f"unknown file kind {kind}")
        if "mode" in spec:
            os.chmod(path, int(spec["mode"], 8))


def run_case(dudley, name, case, asan):
    work = tempfile.mkdtemp(prefix=f"hostile-{name}-")
    try:
        make_files(case, work)
        seconds = case.get("seconds", 2.0) * (10 if asan else 1)
        mib = case.get("mib", 32)
        env = dict(os.environ)
        if asan:
            env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=1:hard_rss_limit_mb=1500"

        def limits():
            if not asan:  # ASan reserves terabytes of address space for its shadow
                cap = 1 << 30
                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if "fsize" in case:  # a file size limit (ulimit -f), in bytes
                resource.setrlimit(resource.RLIMIT_FSIZE, (case["fsize"], case["fsize"]))

        for command in case.get("setup", []):  # shell steps first: earlier writes, copies
            r = subprocess.run(["bash", "-c", command.replace("{dudley}", dudley)], cwd=work,
                               capture_output=True)
            if r.returncode != 0:
                return [f"setup failed: {command}: {r.stderr.decode(errors='replace')}"], 0, 0.0
        argv = [dudley] + [a.replace("{dir}", work) for a in case["run"]]
        start = time.monotonic()
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        # stdout goes to a file: a case may print hundreds of MB (streamed JSON), of which
        # the patterns need the start and the end.
        stdout_file = tempfile.TemporaryFile(dir=work)
        proc = subprocess.Popen(argv, cwd=work, stdout=stdout_file, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=env, preexec_fn=limits)
        hang_limit = max(5 * seconds, 20.0)
        try:
            _, err = proc.communicate(timeout=hang_limit)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return [f"still running after {hang_limit:.0f} s (killed)"], 0, hang_limit
        elapsed = time.monotonic() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (usage.ru_utime + usage.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime)
        out = read_ends(stdout_file)
        # wait4 has already been done by communicate(); the children's usage is summed,
        # so the peak is measured with a fresh getrusage delta per case (cases run serially).
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        out = out.decode("utf-8", "replace")
        err = err.decode("utf-8", "replace")
        problems = []
        if min(elapsed, cpu) > seconds:
            problems.append(f"took {elapsed:.2f} s ({cpu:.2f} s of CPU), budget {seconds:.1f} s")
        code = proc.returncode
        if code < 0:
            problems.append(f"killed by signal {signal.Signals(-code).name}")
        elif code != case["exit"]:
            problems.append(f"exit {code}, expected {case['exit']}")
        for key, text in (("stderr", err), ("stdout", out)):
            pattern = case.get(key)
            if pattern and not re.search(pattern, text, re.S):
                problems.append(f"{key} does not match /{pattern}/")
        for bad in ("internal error", "AddressSanitizer", "runtime error", "bad_alloc"):
            if bad in err:
                problems.append(f"stderr says {bad!r}")
        if "check" in case:  # a shell condition on the directory afterwards
            r = subprocess.run(["bash", "-c", case["check"].replace("{dudley}", dudley)], cwd=work)
            if r.returncode != 0:
                problems.append(f"after-check failed: {case['check']}")
        if problems:
            problems.append("stderr: " + err[-600:].strip())
        return problems, peak_kib, elapsed
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    dudley, corpus = os.path.abspath(sys.argv[1]), sys.argv[2]
    asan = "--asan" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    names = sorted(f[:-5] for f in os.listdir(corpus) if f.endswith(".json"))
    cases = []
    for name in names:
        if only and name != only:
            continue
        with open(os.path.join(corpus, name + ".json"), encoding="utf-8") as f:
            case = json.load(f)
        # "runs": the same inputs under several commands (text and --json, ls and convert),
        # each a run of its own in a fresh directory, its keys overriding the case's.
        for k, variant in enumerate(case.get("runs", [{}])):
            one = {key: value for key, value in case.items() if key != "runs"}
            one.update(variant)
            cases.append((f"{name}#{k + 1}" if "runs" in case else name, one))
    passed = 0
    failed = []
    # Failures are printed as they happen and the passing cases after them all: a log cut
    # to its first lines (as CI shows a failed test) still shows what failed.
    passing_lines = []
    for name, case in cases:
        if asan and case.get("scale"):
            # A case about time complexity at scale: meaningful in the optimised build; the
            # sanitizers see the same code paths in the small cases.
            passing_lines.append(f"skip {name}: a scale case (release build only)")
            continue
        # One subprocess at a time: the child-usage peak is then this case's own, as long
        # as it exceeds every earlier one; measure it exactly with a fork of our own, which
        # sends its report back through a pipe.
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            try:
                problems, peak, elapsed = run_case(dudley, name, case, asan)
            except Exception as e:  # a broken case file is a failure, not a crash
                problems, peak, elapsed = [f"runner: {e!r}"], 0, 0.0
            budget = case.get("mib", 32) * 1024
            if not asan and peak > budget:
                problems.append(f"peak memory {peak // 1024} MiB > {budget // 1024} MiB")
            lines = [f"{'ok  ' if not problems else 'FAIL'} {name}: {elapsed:.2f} s, "
                     f"{peak // 1024} MiB  ({case.get('what', '')})"]
            lines += [f"     {p}" for p in problems]
            with os.fdopen(write_end, "w", encoding="utf-8") as report:
                report.write("\n".join(lines))
            os._exit(1 if problems else 0)
        os.close(write_end)
        with os.fdopen(read_end, encoding="utf-8") as report:
            text = report.read()
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0:
            passed += 1
            passing_lines.append(text)
        else:
            failed.append(name)
            print(text or f"FAIL {name}: the runner's child died", flush=True)
    for line in passing_lines:
        print(line)
    if failed:
        print("failed: " + ", ".join(failed))
    print(f"{passed} passed, {len(failed)} failed")
    return 0 if not failed and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
