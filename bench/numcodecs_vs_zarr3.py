#!/usr/bin/python3
"""Issue 63: reading the numcodecs codecs zarr-python 3 writes, dudley beside zarr-python 3.

zarr 3 (tests/requirements-stack.txt, in .venv-stack) writes one store per codec: a float64
array of MIB MiB (smooth data, 4096 columns, chunks of 64 rows) with numcodecs' Fletcher32,
CRC32, JenkinsLookup3 and LZMA (preset 1) after the bytes codec, AsType (stored as float32),
and ZFPY (tolerance 1e-6) as the serializer. Each read is a whole fresh process, as a user
pays it: `python3 -c "import dudley; dudley.open(STORE)[...].sum()"` (Debian's Python) and
`python -c "import zarr; zarr.open_array(STORE)[...].sum()"` (the PyPI stack), the store read
right before (page cache warm); medians of RUNS runs in alternating order, the ratio
zarr 3 / dudley printed (above 1: dudley is faster). Both sums are compared.

Target: >= 1.0x zarr-python 3 for every codec.

Usage: numcodecs_vs_zarr3.py BUILD_DIR [WORKDIR] [RUNS] [MIB]
"""
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments_with_numbers, clean, warm  # noqa: E402
import results  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD, WORK, OWN_WORK, numbers = arguments_with_numbers(sys.argv, "numcodecs-")
RUNS = int(numbers[0]) if numbers else 5
MIB = int(float(numbers[1])) if len(numbers) > 1 else 256
STACK = os.path.join(os.path.dirname(HERE), ".venv-stack", "bin", "python")
COLS, CHUNK_ROWS = 4096, 64
ROWS = max(CHUNK_ROWS, MIB * (1 << 20) // 8 // COLS)

WRITE = f"""
import sys, warnings, numpy as np, zarr
from zarr.codecs import numcodecs as nc
warnings.simplefilter("ignore")
rows, cols, chunk = {ROWS}, {COLS}, {CHUNK_ROWS}
x = np.sin(np.arange(rows * cols, dtype="f8").reshape(rows, cols) / 5000.0) * 1000
stores = {{
    "fletcher32": dict(compressors=[nc.Fletcher32()]),
    "crc32": dict(compressors=[nc.CRC32()]),
    "jenkins_lookup3": dict(compressors=[nc.JenkinsLookup3()]),
    "lzma": dict(compressors=[nc.LZMA(preset=1)]),
    "astype": dict(filters=[nc.AsType(encode_dtype="f4", decode_dtype="f8")]),
    "zfpy": dict(serializer=nc.ZFPY(mode=4, tolerance=1e-6), compressors=None),
}}
for name, options in stores.items():
    a = zarr.create_array(f"{{name}}.zarr", shape=x.shape, chunks=(chunk, cols), dtype="f8",
                          overwrite=True, **options)
    a[...] = x
"""
OURS = "import dudley, sys; print(float(dudley.open(sys.argv[1])[...].sum()))"
THEIRS = ("import sys, warnings; warnings.simplefilter('ignore'); import zarr; "
          "print(float(zarr.open_array(sys.argv[1], mode='r')[...].sum()))")


def timed(cmd, store):
    """(seconds, printed sum) of one fresh process reading `store`."""
    import time
    warm(store)
    t0 = time.perf_counter()
    out = subprocess.run(cmd + [store], check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t0, float(out.split()[-1])


def main():
    os.makedirs(WORK, exist_ok=True)
    os.chdir(WORK)
    subprocess.run([STACK, "-c", WRITE], check=True)
    env_ours = ["env", f"PYTHONPATH={os.path.join(BUILD, 'python')}", "/usr/bin/python3", "-c",
                OURS]
    env_theirs = [STACK, "-c", THEIRS]
    print(f"{ROWS} x {COLS} float64 ({MIB} MiB), chunks of {CHUNK_ROWS} rows; "
          f"medians of {RUNS} fresh processes")
    print(f"{'codec':16} {'dudley':>9} {'zarr 3':>9} {'ratio':>6}")
    for name in ("fletcher32", "crc32", "jenkins_lookup3", "lzma", "astype", "zfpy"):
        store = f"{name}.zarr"
        ours, theirs = [], []
        for run in range(RUNS):
            order = [(env_ours, ours), (env_theirs, theirs)]
            for cmd, into in order if run % 2 == 0 else reversed(order):
                into.append(timed(cmd, store))
        if abs(ours[0][1] - theirs[0][1]) > 1e-6 * max(1.0, abs(theirs[0][1])):
            sys.exit(f"{name}: sums differ: dudley {ours[0][1]}, zarr 3 {theirs[0][1]}")
        a = statistics.median(t for t, _ in ours)
        b = statistics.median(t for t, _ in theirs)
        print(f"{name:16} {a:8.3f}s {b:8.3f}s {b / a:5.2f}x")
        results.record_speedup(f"read {name} store ({MIB} MiB), whole process vs zarr-python 3",
                               a, b, target=1.0, runs=RUNS)
    if OWN_WORK:
        os.chdir("/")
        clean(WORK)


if __name__ == "__main__":
    main()
