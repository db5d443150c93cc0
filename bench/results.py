"""What a benchmark measured, gathered for `make bench`'s table of ratios.

Each benchmark script calls record() for every figure it prints beside a peer. When the
environment names a results file (DUDLEY_BENCH_RESULTS, set by bench/run.sh), the figure is
appended to it as one JSON line; bench/write_table.py then turns the lines into the table
that `make bench` writes into docs/performance.md. Run alone, a script records nothing.
"""
import json
import os
import sys


# Taken when the script imports this module, before it changes into a working directory.
_SCRIPT = os.path.relpath(os.path.abspath(sys.argv[0]),
                          os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_ARGS = sys.argv[1:]


def _warn_of_a_test_build():
    """Says so when a build directory given to the script was built by `make test` (without
    link-time optimisation): its figures are not the ones docs/performance.md records."""
    for arg in _ARGS:
        cache = os.path.join(arg, "CMakeCache.txt")
        if os.path.isfile(cache):
            with open(cache, encoding="utf-8", errors="replace") as f:
                if "DUDLEY_LTO:BOOL=OFF" in f.read():
                    print(f"warning: {arg} is a test build (no link-time optimisation): "
                          "run `make build` first for figures comparable with "
                          "docs/performance.md", file=sys.stderr)


_warn_of_a_test_build()


def _command():
    """The command that produced the figure, as a user would type it from the repository."""
    return " ".join([_SCRIPT, *_ARGS])


def record(case, ours, peer, theirs, target="", met=None, runs=None, unit="ms", ratio=None,
           command=None):
    """Records one comparison.

    case:   what was measured ("read zlib, MD5 verified");
    ours:   dudley's figure; theirs: the peer's, in `unit` ("ms", "s", "us/file", "GB/s"...);
    peer:   who the peer is ("python3-asdf", "C read() into huge pages");
    ratio:  how many times better dudley is (default theirs / ours: a speed-up for times;
            pass it for throughputs, where it is ours / theirs);
    target: the target as the issue states it (">= 1.5x"), met: whether it is met (None when
            there is no target);
    runs:   how many runs the median (or best) took;
    command: what measured it, when not this script with its arguments.
    """
    path = os.environ.get("DUDLEY_BENCH_RESULTS")
    if not path:
        return
    if ratio is None:
        ratio = theirs / ours if ours else float("inf")
    line = {"command": command or _command(), "case": case, "ours": ours, "peer": peer, "theirs": theirs,
            "unit": unit, "ratio": ratio, "target": target, "met": met, "runs": runs}
    with open(path, "a") as f:
        f.write(json.dumps(line) + "\n")


def record_speedup(name, ours_s, theirs_s, target=None, runs=None):
    """Records times in seconds compared as theirs / ours, the peer named in `name` after
    its last " vs " ("decode vs avsc"), the target (a number: at least that many times)
    judged."""
    case, sep, peer = name.rpartition(" vs ")
    if not sep:
        case, peer = name, "peer"
    case = case.rstrip(", ")
    ratio = theirs_s / ours_s if ours_s else float("inf")
    record(case, ours_s * 1000, peer, theirs_s * 1000, f">= {target}x" if target else "",
           None if target is None else ratio >= target, runs)


if __name__ == "__main__":
    # bench/run.sh records the C++ benchmarks' figures through here:
    #   results.py COMMAND CASE OURS PEER THEIRS UNIT RATIO TARGET MET RUNS
    command, case, ours, peer, theirs, unit, ratio, target, met, runs = sys.argv[1:11]
    record(case, float(ours), peer, float(theirs), target, None if met == "" else met == "1",
           runs or None, unit, float(ratio), command)
