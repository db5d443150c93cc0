#!/usr/bin/env bash
# The demo: check and format the bundled example layouts, and show what a mistake looks like.
set -euo pipefail
dudley=${1:-build/dudley}
cd "$(dirname "$0")/.."

echo "== dudley check examples/*.dud"
"$dudley" check examples/*.dud

echo
echo "== dudley fmt examples/restart.dud (canonical form)"
"$dudley" fmt examples/restart.dud

echo
echo "== a layout with mistakes: dudley check reports each with its place"
bad=$(mktemp --suffix=.dud)
cat >"$bad" <<'DUD'
NX := i4
NY := i4
rho = f8[NY, NZ]
mesh /
  x = f8[NX+, NY+]
  x = f4
..
name = S1
DUD
if "$dudley" check "$bad"; then
  echo "demo: expected the broken layout to fail" >&2
  exit 1
fi
echo
echo "== a restart file written by examples/make_restart_data.py, read through the layout"
work=$(mktemp -d)
trap 'rm -f "$bad"; rm -rf "$work"' EXIT
/usr/bin/python3 examples/make_restart_data.py "$work/restart.bin"
cp examples/restart.dud "$work/restart.dud"   # NAME.dud beside NAME.bin is found by itself
"$dudley" ls "$work/restart.bin"
echo
echo "== dudley dump: values, a selection, a struct array"
"$dudley" dump "$work/restart.bin" /title /hydro/rho '/hydro/rho[1:, ::2]' /tracers /materials

echo
echo "== a family of 3 restart files written by examples/write_family.cpp, and its index"
"$(dirname "$dudley")/examples/write_family" examples/restart.dud "$work/run" 3
"$dudley" dump --family "$work/run.index.bin" /hydro/rho /history/time
echo
echo "== dudley convert: the restart file rewritten big-endian, then checked and dumped"
"$dudley" convert --write-order big "$work/restart.bin" "$work/copy.bin"
"$dudley" check "$work/copy.dud"
"$dudley" dump "$work/copy.bin" /hydro/rho
echo
echo "== one self-describing file: a layout built in code (examples/write_tracks.cpp) with a"
echo "   counted string, tracks of different lengths and appended events, embedded at its end"
"$(dirname "$dudley")/examples/write_tracks" "$work/tracks.bin"
"$dudley" ls "$work/tracks.bin"
"$dudley" dump "$work/tracks.bin" /station /tracks/2 /events
echo
echo "== dudley convert --to-layout: the restart file's density into a layout of our choosing"
printf '!DUDLEY := S1[8]\nNX := i4\nNY := i4\nhydro /\n  rho = >f8[NY, NX]\n' >"$work/rho-template.dud"
"$dudley" convert --to-layout "$work/rho-template.dud" "$work/restart.bin" "$work/rho.bin"
"$dudley" dump "$work/rho.bin" /hydro/rho
echo
echo "== dudley plot: the restart file's density as a picture (open it to look)"
picture="$(dirname "$dudley")/demo-rho.png"
"$dudley" plot "$work/restart.bin" /hydro/rho -o "$picture" --colormap magma
echo "   (dudley view FILE serves the same on 127.0.0.1 for a browser: docs/viewer.md)"
echo
echo "demo: ok"
