#!/usr/bin/env python3
"""The rule for reading (issue 62): data that names files outside its folder is not read
there, by any command, and is read there when --allow-outside names the folder.

read_rule_files.py builds, in a temporary directory, one file or store per way out (HDF5
external links: direct, through soft links, chained, to a decoy, with HDF5_EXT_PREFIX, to a
symbolic link, by absolute name; external raw storage: absolute, "../", HDF5_EXTFILE_PREFIX,
a symbolic link; virtual datasets: "../", a symbolic link, HDF5_VDS_PREFIX, through an
external link in the same file; Zarr: a chunk file and a member array that are symbolic links
leading outside; ASDF sources: "../" and a symbolic link; a Dudley family index naming a
member outside). The files outside hold the canary, 31337.0. For each case:

- `ls`, `ls --json`, `dump`, `dump --json`, `dump ITEM`, `convert` (to Zarr) and
  `convert --lossy` never show the canary (nor write it), exit as docs/cli.md says, and name
  the item and its target as stored;
- `dudley view` (started on 127.0.0.1 and always stopped) serves the item's JSON and values
  without the canary;
- with `--allow-outside OUTSIDE` the canary is read (exit 0), for every case the rule lets
  an option allow; the others say why they stay refused.

Usage: read_rule_test.py DUDLEY [--report]
  --report: print, for each case and command, whether the canary was shown, and exit 0
            (to see what an older build reads).
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_rule_files import make_files  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
REPORT = "--report" in sys.argv
CANARY_TEXT = "31337"
CANARY_BYTES = (struct.pack("<d", 31337.0), struct.pack(">d", 31337.0))

# What `ls` says, in text and --json alike: a link it does not follow is listed as a link and
# counted as an item whose target could not be listed (exit 1, docs/hdf5.md); an array that
# cannot be read is an error (exit 1, docs/cli.md); a Zarr chunk is not read by ls (exit 0).
LS_EXIT = {"zarr-chunk-symlink": 0}
# Items whose refusal is found only when their values are read (a Zarr chunk): convert stops
# there, lossy or not (exit 1), instead of leaving the item out.
READ_TIME = {"zarr-chunk-symlink"}
# Cases no option makes readable, and why.
NEVER = {
    "h5-elink-decoy": "the current directory is never searched",
    "h5-vds-same-file-elink": "libhdf5 follows a virtual source's path without the rule's "
                              "callback: a source reached through a link is refused by name",
}

failures = []
checks = 0
leaks = {}


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL", what, flush=True)


def run(case, *args):
    env = dict(os.environ)
    env.update(case["env"])
    return subprocess.run([DUDLEY, *args], cwd=case["cwd"], env=env, capture_output=True,
                          text=True, timeout=120)


def files_under(path):
    if os.path.isfile(path):
        yield path
    for top, _, names in os.walk(path):
        for n in names:
            yield os.path.join(top, n)


def shows_canary(text):
    return CANARY_TEXT in text


def written_canary(path):
    for f in files_under(path):
        if os.path.islink(f):
            continue
        with open(f, "rb") as h:
            data = h.read()
        if any(b in data for b in CANARY_BYTES):
            return f
    return None


def note(case, command, leaked):
    if leaked:
        leaks.setdefault(case["name"], []).append(command)


def data_args(case):
    return ["--family", case["data"]] if case["family"] else [case["data"]]


def start_viewer(case, extra=()):
    env = dict(os.environ)
    env.update(case["env"])
    proc = subprocess.Popen([DUDLEY, "view", *extra, "--json", *data_args(case)],
                            cwd=case["cwd"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    try:
        return proc, json.loads(line)["url"]
    except (ValueError, KeyError):
        # Not serving (its error document is on stdout): it ends by itself.
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            stop_viewer(proc)
        return proc, None


def stop_viewer(proc):
    if proc.returncode is None and proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def viewer_checks(case, work):
    item = case["item"]
    proc, url = start_viewer(case)
    try:
        if case["family"] and not REPORT:
            # The index names a member outside: the family is refused as a whole.
            out = proc.communicate(timeout=30)[1] if url is None else ""
            check(url is None and proc.returncode == 1 and case["words"][0] in out,
                  f"{case['name']}: view of the family refused: exit {proc.returncode} {out[:300]}")
        elif not REPORT:
            check(url is not None, f"{case['name']}: view started")
        if url is None:
            return
        seen = ""
        for api in ("api/tree", f"api/item?path={urllib.parse.quote(item)}",
                    f"api/array?path={urllib.parse.quote(item)}",
                    f"api/values?path={urllib.parse.quote(item)}&rows=4&cols=4",
                    f"api/export?path={urllib.parse.quote(item)}&format=csv"):
            status, body = get(url + api)
            seen += body
            note(case, "view " + api.split("?")[0], shows_canary(body))
            if not REPORT:
                check(not shows_canary(body), f"{case['name']}: view {api}: the canary served")
        if not REPORT:
            status, body = get(url + f"api/array?path={urllib.parse.quote(item)}")
            check(status != 200 and "error" in body,
                  f"{case['name']}: view api/array answers {status} {body[:200]}")
    finally:
        stop_viewer(proc)
    # With the folder allowed, the viewer serves it (the same readers, the same rule).
    if case["allowed"] and case["name"] not in NEVER:
        proc, url = start_viewer(case, ["--allow-outside", case["outside"]])
        try:
            status, body = get(url + f"api/array?path={urllib.parse.quote(item)}") if url else (0, "")
            if not REPORT:
                check(status == 200 and shows_canary(body),
                      f"{case['name']}: view --allow-outside: {status} {body[:200]}")
        finally:
            stop_viewer(proc)


def command_checks(case, work):
    name, item = case["name"], case["item"]
    words = case["words"]
    runs = [("ls", ["ls", *data_args(case)]), ("ls --json", ["ls", "--json", *data_args(case)]),
            ("dump", ["dump", *data_args(case)]),
            ("dump --json", ["dump", "--json", *data_args(case)]),
            ("dump ITEM", ["dump", *data_args(case), item])]
    for label, args in runs:
        p = run(case, *args)
        out = p.stdout + p.stderr
        note(case, label, shows_canary(out))
        if REPORT:
            continue
        check(not shows_canary(out), f"{name}: {label}: the canary shown:\n{out[:600]}")
        expected = LS_EXIT.get(name, 1) if label in ("ls", "ls --json") else 1
        check(p.returncode == expected,
              f"{name}: {label}: exit {p.returncode}, expected {expected}\n{p.stderr[:600]}")
        if label in ("dump ITEM", "dump"):
            missing = [w for w in words if w not in p.stderr]
            check(not missing, f"{name}: {label}: the error does not name {missing}:\n"
                               f"{p.stderr[:600]}")
        if label == "dump --json":
            try:
                doc = json.loads(p.stdout)
                check("error" in json.dumps(doc), f"{name}: dump --json: no error in the tree")
            except ValueError:
                check(False, f"{name}: dump --json: not JSON: {p.stdout[:300]}")
    if not case["family"]:
        for lossy in (False, True):
            out_dir = os.path.join(work, f"{name}{'-lossy' if lossy else ''}.zarr")
            p = run(case, "convert", *(["--lossy"] if lossy else []), case["data"], out_dir)
            label = "convert --lossy" if lossy else "convert"
            written = written_canary(out_dir) if os.path.exists(out_dir) else None
            note(case, label, shows_canary(p.stdout + p.stderr) or written is not None)
            if REPORT:
                continue
            check(written is None, f"{name}: {label} wrote the canary in {written}")
            check(not shows_canary(p.stdout + p.stderr), f"{name}: {label}: the canary shown")
            expected = 1 if (not lossy or name in READ_TIME) else 0
            check(p.returncode == expected,
                  f"{name}: {label}: exit {p.returncode}, expected {expected}\n{p.stderr[:600]}")
            if name not in READ_TIME:
                # The item is named as a loss (LossLog), lossy or not.
                check(item in p.stderr and ("left out" in p.stderr or "loss" in p.stderr
                                            or "not written" in p.stderr or "lost" in p.stderr),
                      f"{name}: {label}: the item is not named as left out:\n{p.stderr[:600]}")


def allowed_checks(case):
    name, item = case["name"], case["item"]
    p = run(case, "dump", "--allow-outside", case["outside"], *data_args(case), item)
    if name in NEVER or not case["allowed"]:
        check(p.returncode == 1 and not shows_canary(p.stdout + p.stderr),
              f"{name}: refused even with --allow-outside ({NEVER.get(name)}): exit "
              f"{p.returncode}\n{p.stdout[:300]}{p.stderr[:300]}")
        return
    check(p.returncode == 0 and shows_canary(p.stdout),
          f"{name}: with --allow-outside the canary is read: exit {p.returncode}\n"
          f"{p.stdout[:300]}{p.stderr[:600]}")
    # "/" allows every folder.
    p = run(case, "dump", "--allow-outside", "/", *data_args(case), item)
    check(p.returncode == 0 and shows_canary(p.stdout),
          f"{name}: with --allow-outside / the canary is read: exit {p.returncode}\n"
          f"{p.stderr[:600]}")
    if name.startswith("asdf-"):
        # ASDF's own option still allows any folder.
        p = run(case, "dump", "--allow-external-outside", *data_args(case), item)
        check(p.returncode == 0 and shows_canary(p.stdout),
              f"{name}: with --allow-external-outside: exit {p.returncode}\n{p.stderr[:600]}")


def main():
    work = tempfile.mkdtemp(prefix="dudley-read-rule-")
    try:
        cases = make_files(work)
        for case in cases:
            command_checks(case, work)
            viewer_checks(case, work)
            if not REPORT:
                allowed_checks(case)
        if REPORT:
            for case in cases:
                shown = leaks.get(case["name"])
                print(f"{case['name']:28} {'READS THE CANARY: ' + ', '.join(shown) if shown else 'no canary'}")
            return 0
        print(f"{len(cases)} cases, {checks} checks, {len(failures)} failed")
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
