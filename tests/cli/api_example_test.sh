#!/usr/bin/env bash
# Runs examples/read_restart.cpp on three restart files and checks what it prints against
# the generator's formulas (rho[j][i] = 1000*STEP + 10*j + i, NX = 4 + STEP, NY = 3).
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for step in 0 1 2; do
  python3 "$root/examples/make_restart_data.py" "$tmp/run_$step.bin" "$step"
done
"${READ_RESTART:?}" "$root/examples/restart.dud" "$tmp"/run_*.bin >"$tmp/out"
cat "$tmp/out"
expect() {
  grep -qxF "$1" "$tmp/out" || { echo "missing line: $1"; exit 1; }
}
# Step 0: rho is 3 x 4, after 456 bytes: signature 8, parameters 24, title 80, state 24,
# mesh x and y 160 each.
expect "/hydro/rho: <f8, shape [3, 4], at byte 456"
expect "rho[2][3] = 23"
expect "rho[1, ::2] has 2 values, the first 10"
expect "$tmp/run_0.bin: rho[0][0] = 0 (12 values)"
expect "$tmp/run_1.bin: rho[0][0] = 1000 (15 values)"
expect "$tmp/run_2.bin: rho[0][0] = 2000 (18 values)"
# The generator writes cycle 100*STEP, time 0.25*STEP: read as one row per file.
expect "$tmp/run_0.bin: cycle 0, time 0"
expect "$tmp/run_1.bin: cycle 100, time 0.25"
expect "$tmp/run_2.bin: cycle 200, time 0.5"

# examples/write_family.cpp: a family of the bundled layout, read back by the CLI through
# its index and through a glob (values per the example: rho[j][i] = 1000*step + 10*j + i).
mkdir "$tmp/fam"
"${WRITE_FAMILY:?}" "$root/examples/restart.dud" "$tmp/fam/run" 3 >"$tmp/out"
grep -qxF "$tmp/fam/run.index.bin" "$tmp/out" || { echo "write_family did not name its index"; exit 1; }
"${DUDLEY:?}" check "$tmp/fam/run.dud" "$tmp/fam/run.index.dud" >/dev/null
"$DUDLEY" dump --json --family "$tmp/fam/run.index.bin" /hydro/rho >"$tmp/fam.jsonl"
"$DUDLEY" dump --json --family "$tmp/fam/run_*.bin" /hydro/rho >"$tmp/glob.jsonl"
cmp -s "$tmp/fam.jsonl" "$tmp/glob.jsonl" || { echo "index and glob disagree"; exit 1; }
/usr/bin/python3 - "$tmp/fam.jsonl" "$tmp/fam" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["file"] for l in lines] == [f"{sys.argv[2]}/run_{i:04d}.bin" for i in range(3)]
for step, l in enumerate(lines):
    rho = l["root"]["members"]["hydro"]["members"]["rho"]
    nx = 4 + step
    assert rho["shape"] == [3, nx], rho["shape"]
    assert rho["data"] == [[1000.0 * step + 10 * j + i for i in range(nx)] for j in range(3)]
PY
# examples/write_tracks.cpp: a built layout with a counted string, tracks of different
# lengths and appended events, in one file that carries its layout; values per the example.
"${WRITE_TRACKS:?}" "$tmp/tracks.bin" >"$tmp/out"
grep -qxF "/events/2" "$tmp/out" || { echo "write_tracks did not append three events"; exit 1; }
test ! -e "$tmp/tracks.dud" || { echo "write_tracks wrote a .dud beside its file"; exit 1; }
"$DUDLEY" dump --json "$tmp/tracks.bin" >"$tmp/tracks.json"
/usr/bin/python3 - "$tmp/tracks.json" <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))["root"]["members"]
assert root["calibration"]["data"] == [1.5] * 8
station = root["station"]["data"]
station = "".join(station) if isinstance(station, list) else station
assert station == "Jungfraujoch", station
tracks = root["tracks"]["items"]
assert len(tracks) == 4
for k, t in enumerate(tracks):
    x = [k + 0.5 * i for i in range(k + 2)]
    assert t["members"]["x"]["data"] == x, (k, t["members"]["x"])
    assert t["members"]["y"]["data"] == [-v for v in x]
events = root["events"]["items"]
assert [e["data"] for e in events] == [[e, e * e, -e] for e in range(3)]
PY
echo "api example: ok"
