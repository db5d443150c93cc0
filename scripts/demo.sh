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
trap 'rm -f "$bad"' EXIT
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
echo "demo: ok"
