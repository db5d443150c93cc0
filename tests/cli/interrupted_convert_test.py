#!/usr/bin/python3
"""A conversion stopped part way leaves nothing behind that the next run does not handle:

- Ctrl-C (SIGINT) or SIGTERM: the command stops at its next step, removes its temporary
  store or file, exits 128 + the signal, says so (text and --json), and the old output
  stays as it was;
- kill -9 (no chance to clean up): the hidden temporary sibling stays, and the next
  conversion to the same path removes it (its writer's lock is free) and succeeds;
- two conversions to one path at once both finish, neither removing the other's temporary.

Each conversion is slow enough to be caught at work: 128 MiB of random bytes compressed with
gzip -9 into Zarr or HDF5.

Usage: interrupted_convert_test.py DUDLEY
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import Checks  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
check = Checks()


def temporaries(directory):
    return sorted(n for n in os.listdir(directory) if ".tmp-" in n or ".old-" in n)


def marks_kept(directory):
    """Whether the file system of `directory` keeps extended attributes (the mark this
    program's temporaries carry)."""
    probe = os.path.join(directory, ".xattr-probe")
    open(probe, "w").close()
    try:
        os.setxattr(probe, "user.dudley.temporary", b"1")
        return True
    except OSError:
        return False
    finally:
        os.unlink(probe)


def start(args, cwd):
    return subprocess.Popen([DUDLEY, *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for_temporary(proc, cwd, seconds=10):
    """Waits until the conversion has made its temporary sibling (it is at work)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        if temporaries(cwd):
            time.sleep(0.2)  # well into writing
            return True
        time.sleep(0.01)
    return False


def main():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "x.dud"), "w") as f:
            f.write("x = u1[134217728]\n")
        with open(os.path.join(d, "x.bin"), "wb") as f:
            f.write(os.urandom(1 << 27))  # incompressible: gzip -9 takes seconds on it
        slow = ["--compressor", "gzip", "--level", "9", "--chunk-bytes", "65536"]
        slow_h5 = ["--deflate", "9"]

        # An earlier output, to see that an interrupted conversion leaves it as it was.
        subprocess.run([DUDLEY, "convert", "-q", "--compressor", "none", "--chunks", "1048576",
                        "x.bin", "old.zarr"], cwd=d, check=True)
        meta = os.path.join(d, "old.zarr", "x", "zarr.json")
        before = open(meta).read()
        assert '"chunk_shape": [\n' in before or "1048576" in before

        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            for json_mode in (False, True):
                args = ["convert", *slow, *(["--json"] if json_mode else []), "x.bin", "old.zarr"]
                proc = start(args, d)
                at_work = wait_for_temporary(proc, d)
                check(f"{sig.name}: caught at work", at_work, temporaries(d))
                proc.send_signal(sig)
                out, err = proc.communicate(timeout=30)
                name = f"{sig.name}{' --json' if json_mode else ''}"
                check(f"{name}: exit {code}", proc.returncode == code, (proc.returncode, err))
                check(f"{name}: says so", "old.zarr: error: " + (
                    "interrupted" if sig == signal.SIGINT else "terminated") +
                    "; nothing was written" in err, err)
                if json_mode:
                    doc = json.loads(out)
                    check(f"{name}: a JSON error document", doc["error"]["code"] == "io" and
                          "nothing was written" in doc["error"]["message"], out)
                check(f"{name}: no temporary left", temporaries(d) == [], temporaries(d))
                check(f"{name}: the old store as it was (its own chunk shape)",
                      open(meta).read() == before)

        # SIGINT during an HDF5 conversion (libhdf5 writes a temporary file by path).
        proc = start(["convert", *slow_h5, "x.bin", "x.h5"], d)
        check("HDF5: caught at work", wait_for_temporary(proc, d), temporaries(d))
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        check("HDF5: exit 130", proc.returncode == 130, proc.returncode)
        check("HDF5: no temporary file left", temporaries(d) == [] and
              not os.path.exists(os.path.join(d, "x.h5")), os.listdir(d))

        # kill -9: the temporary stays; the next conversion removes it and succeeds.
        for out_name in ("k.zarr", "k.h5"):
            proc = start(["convert", *(slow if out_name.endswith("zarr") else slow_h5), "x.bin",
                          out_name], d)
            check(f"kill -9 {out_name}: caught at work", wait_for_temporary(proc, d))
            proc.kill()
            proc.communicate(timeout=30)
            left = temporaries(d)
            check(f"kill -9 {out_name}: a temporary was left", len(left) == 1, left)
            r = subprocess.run([DUDLEY, "convert", "-q", "x.bin", out_name], cwd=d,
                               capture_output=True, text=True)
            check(f"kill -9 {out_name}: the next run succeeds", r.returncode == 0, r.stderr)
            # Removed by the mark it carries (an extended attribute); a file system that keeps
            # none leaves it, hidden, rather than removing what may be a user's file.
            if marks_kept(d):
                check(f"kill -9 {out_name}: and removes it", temporaries(d) == [], temporaries(d))
            else:
                check(f"kill -9 {out_name}: and leaves it (no marks here)", len(temporaries(d)) == 1,
                      temporaries(d))
                for t in temporaries(d):
                    shutil.rmtree(os.path.join(d, t), ignore_errors=True)
                    if os.path.exists(os.path.join(d, t)):
                        os.unlink(os.path.join(d, t))

        # Two writers of one new path at once: the first to finish writes the store; the
        # other finds something where nothing was when it started and leaves it (it cannot
        # tell another writer's store from a user's folder): exit 2 naming it.
        a = start(["convert", "-q", *slow, "x.bin", "both.zarr"], d)
        wait_for_temporary(a, d)
        b = subprocess.run([DUDLEY, "convert", "-q", "x.bin", "both.zarr"], cwd=d,
                           capture_output=True, text=True)
        _, a_err = a.communicate(timeout=120)
        a_err = a_err.decode() if isinstance(a_err, bytes) else (a_err or "")
        check("concurrent writers of a new store: the first to finish succeeds",
              b.returncode == 0, (b.returncode, b.stderr))
        check("... the other fails naming what appeared, and leaves it",
              a.returncode == 2 and "both.zarr" in a_err and
              "appeared while this was written" in a_err, (a.returncode, a_err))
        check("and leave no temporary", temporaries(d) == [], temporaries(d))
        r = subprocess.run([DUDLEY, "dump", "--json", "--max-values", "3", "both.zarr"], cwd=d,
                           capture_output=True, text=True)
        check("and the store reads", r.returncode == 0, r.stderr)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
