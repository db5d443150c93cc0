"""What the side-by-side benchmarks share: each command is timed as a user runs it, in a
fresh process, its inputs read right before (page cache warm: idle pages are evicted here
after about 30 s) and the previous run's writes flushed first."""
import os
import shutil
import subprocess
import tempfile
import time


def warm(*paths):
    """Flushes written pages (their writeback would slow whichever command runs next), then
    reads every file of `paths` (directories walked)."""
    os.sync()
    for path in paths:
        files = [os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs] \
            if os.path.isdir(path) else [path]
        for name in files:
            with open(name, "rb") as f:
                while f.read(1 << 24):
                    pass


def clean(*names):
    """Removes the files and directories `names`, those that exist."""
    for name in names:
        if os.path.isdir(name):
            shutil.rmtree(name)
        elif os.path.exists(name):
            os.remove(name)


def wall(cmd, inputs):
    """Seconds `cmd` takes from start to exit, its `inputs` warmed first."""
    warm(*inputs)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def arguments(argv, prefix, default_runs):
    """BUILD_DIR [WORKDIR] [RUNS] of a side-by-side benchmark: (build, workdir, own, runs).
    A number as the second argument is RUNS (`bench/x.py build 5`), never a directory
    named "5"; without WORKDIR a temporary one is made (own: remove it when done)."""
    rest = list(argv[2:])
    runs = default_runs
    if rest and rest[-1].isdigit():
        runs = int(rest.pop())
    own = not rest
    work = rest[0] if rest else tempfile.mkdtemp(prefix=prefix)
    return os.path.abspath(argv[1]), work, own, runs



def arguments_with_numbers(argv, prefix):
    """BUILD_DIR [WORKDIR] [NUMBER...] of a benchmark whose trailing numbers are its own
    (RUNS, then a size): (build, workdir, own, numbers as text). Without WORKDIR a temporary
    one is made (own: remove it when done)."""
    rest = list(argv[2:])
    numbers = []
    while rest and rest[-1].replace(".", "", 1).isdigit():
        numbers.insert(0, rest.pop())
    own = not rest
    work = rest[0] if rest else tempfile.mkdtemp(prefix=prefix)
    return os.path.abspath(argv[1]), work, own, numbers
