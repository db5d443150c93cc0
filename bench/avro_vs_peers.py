#!/usr/bin/python3
"""Issue 23's speed targets, each beside its baseline in the same run, fresh processes,
medians of RUNS alternating runs.

1. A 64 MiB float64 ndarray record encoded and decoded (bench/avro_once, in-process timing of
   the first calls in a fresh process) against memcpy of the same bytes into memory of the
   same kind: new memory (huge-page mappings, as our buffers are) and memory already
   touched (a writer's reused block buffer). Target: >= 0.8x memcpy. python3-avro's and
   avsc's times for the same record are printed beside them.
2. 100,000 records of shape [3] float64 written to a container file and read back (every
   array read) by us, python3-avro, avsc and fastavro (PyPI, in .venv), each timing
   its own calls. Targets: >= 10x python3-avro's records per second, >= 2x avsc's and
   fastavro's (issue 41); the 64 MiB record too against avsc and fastavro.

Usage: avro_vs_peers.py BUILD_DIR [RUNS]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import results  # noqa: E402  (bench/results.py: the table make bench writes)

BUILD = os.path.abspath(sys.argv[1])
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
HERE = os.path.dirname(os.path.abspath(__file__))
ONCE = os.path.join(BUILD, "bench", "avro_once")
NODE = ["node", os.path.join(HERE, "avsc_bench.mjs")]
PY = "/usr/bin/python3"
# fastavro comes from PyPI: the peers' virtual environment (scripts/install-deps.sh).
FAST_PY = os.path.join(HERE, "..", ".venv", "bin", "python")
RECORDS = 100000

# The ndarray record's schema, as every Python side's script parses it.
SCHEMA = repr(json.dumps({"type": "record", "name": "ndarray", "fields": [
    {"name": "shape", "type": {"type": "array", "items": "int"}}, {"name": "typestr", "type": "string"},
    {"name": "data", "type": "bytes"}, {"name": "version", "type": "int"}]}))

PY_RECORD = """
import io, json, sys, time, warnings
warnings.simplefilter("ignore")
import avro.io, avro.schema, numpy as np
S = avro.schema.parse(@SCHEMA@)
a = np.arange((int(sys.argv[1]) << 20) // 8) * 0.5
t0 = time.perf_counter()
b = io.BytesIO()
avro.io.DatumWriter(S).write({"shape": [a.size], "typestr": "<f8", "data": a.tobytes(), "version": 3},
                             avro.io.BinaryEncoder(b))
t1 = time.perf_counter()
r = avro.io.DatumReader(S).read(avro.io.BinaryDecoder(io.BytesIO(b.getvalue())))
x = np.frombuffer(r["data"], r["typestr"]).reshape(r["shape"])
t2 = time.perf_counter()
print(f"encode {t1 - t0} decode {t2 - t1}")
"""

PY_RECORDS = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
import avro.datafile, avro.io, avro.schema, numpy as np
S = avro.schema.parse(@SCHEMA@)
n, path = int(sys.argv[1]), sys.argv[2]
t0 = time.perf_counter()
with avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(), S) as w:
    for r in range(n):
        w.append({"shape": [3], "typestr": "<f8", "data": np.array([r, r + 0.5, -r]).tobytes(), "version": 3})
t1 = time.perf_counter()
s = 0.0
for rec in avro.datafile.DataFileReader(open(path, "rb"), avro.io.DatumReader()):
    s += np.frombuffer(rec["data"], rec["typestr"]).reshape(rec["shape"])[2]
t2 = time.perf_counter()
print(f"write {t1 - t0} read {t2 - t1} {s}")
"""

FAST_RECORD = """
import io, sys, time
import json
import fastavro, numpy as np
S = fastavro.parse_schema(json.loads(@SCHEMA@))
a = np.arange((int(sys.argv[1]) << 20) // 8) * 0.5
t0 = time.perf_counter()
b = io.BytesIO()
fastavro.schemaless_writer(b, S, {"shape": [a.size], "typestr": "<f8", "data": a.tobytes(), "version": 3})
t1 = time.perf_counter()
r = fastavro.schemaless_reader(io.BytesIO(b.getvalue()), S)
x = np.frombuffer(r["data"], r["typestr"]).reshape(r["shape"])
t2 = time.perf_counter()
print(f"encode {t1 - t0} decode {t2 - t1}")
"""

FAST_RECORDS = """
import sys, time
import json
import fastavro, numpy as np
S = fastavro.parse_schema(json.loads(@SCHEMA@))
n, path = int(sys.argv[1]), sys.argv[2]
t0 = time.perf_counter()
with open(path, "wb") as f:
    fastavro.writer(f, S, ({"shape": [3], "typestr": "<f8", "data": np.array([r, r + 0.5, -r]).tobytes(),
                            "version": 3} for r in range(n)))
t1 = time.perf_counter()
s = 0.0
with open(path, "rb") as f:
    for rec in fastavro.reader(f):
        s += np.frombuffer(rec["data"], rec["typestr"]).reshape(rec["shape"])[2]
t2 = time.perf_counter()
print(f"write {t1 - t0} read {t2 - t1} {s}")
"""


PY_RECORD, PY_RECORDS, FAST_RECORD, FAST_RECORDS = (
    script.replace("@SCHEMA@", SCHEMA) for script in (PY_RECORD, PY_RECORDS, FAST_RECORD, FAST_RECORDS))


def fields(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
    return {out[i]: float(out[i + 1]) for i in range(0, len(out) - 1, 2) if not out[i][0].isdigit()}


def medians(cmds):
    """Runs each command RUNS times, alternating; the median of every field of each."""
    got = {name: [] for name in cmds}
    for _ in range(RUNS):
        for name, cmd in cmds.items():
            got[name].append(fields(cmd))
    return {name: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for name, runs in got.items()}


def report(name, ours, baseline, target, unit="s"):
    ratio = baseline / ours
    verdict = f" (target >= {target}x: {'met' if ratio >= target else 'NOT met'})" if target else ""
    print(f"{name}: dudley {ours * 1000:.2f} ms, baseline {baseline * 1000:.2f} ms, {ratio:.2f}x{verdict}",
          flush=True)
    results.record_speedup(name, ours, baseline, target, RUNS)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        m = medians({"ours": [ONCE, "record", "64", "5"], "python3-avro": [PY, "-c", PY_RECORD, "64"],
                     "avsc": NODE + ["record", "64"], "fastavro": [FAST_PY, "-c", FAST_RECORD, "64"]})
        o = m["ours"]
        print(f"64 MiB float64 record, medians of {RUNS} fresh processes (ours: of 5 calls each)")
        report("encode into new memory vs memcpy into new memory", o["encode_fresh"], o["memcpy_huge"], 0.8)
        report("encode into a reused buffer vs memcpy into touched memory", o["encode_warm"], o["memcpy_warm"], 0.8)
        report("decode (a native copy) vs memcpy into new memory", o["decode"], o["memcpy_huge"], 0.8)
        report("(memcpy into new 4 KiB pages, what malloc gives)", o["memcpy_fresh"], o["memcpy_huge"], None)
        report("encode vs python3-avro", o["encode_fresh"], m["python3-avro"]["encode"], None)
        report("decode vs python3-avro", o["decode"], m["python3-avro"]["decode"], None)
        report("encode vs avsc", o["encode_fresh"], m["avsc"]["encode"], 2)
        report("decode vs avsc", o["decode"], m["avsc"]["decode"], 2)
        report("encode vs fastavro", o["encode_fresh"], m["fastavro"]["encode"], 2)
        report("decode vs fastavro", o["decode"], m["fastavro"]["decode"], 2)
        r = medians({"ours": [ONCE, "records", str(RECORDS), f"{tmp}/ours.avro"],
                     "python3-avro": [PY, "-c", PY_RECORDS, str(RECORDS), f"{tmp}/py.avro"],
                     "avsc": NODE + ["records", str(RECORDS), f"{tmp}/js.avro"],
                     "fastavro": [FAST_PY, "-c", FAST_RECORDS, str(RECORDS), f"{tmp}/fast.avro"]})
        print(f"{RECORDS} records of shape [3] float64, container files, medians of {RUNS} fresh processes")
        for step in ("write", "read"):
            ours = r["ours"][step]
            print(f"  {step}: dudley {RECORDS / ours:,.0f} records/s, python3-avro "
                  f"{RECORDS / r['python3-avro'][step]:,.0f}, avsc {RECORDS / r['avsc'][step]:,.0f}, "
                  f"fastavro {RECORDS / r['fastavro'][step]:,.0f}")
            report(f"{step} vs python3-avro", ours, r["python3-avro"][step], 10)
            report(f"{step} vs avsc", ours, r["avsc"][step], 2)
            report(f"{step} vs fastavro", ours, r["fastavro"][step], 2)


main()
