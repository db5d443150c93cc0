#!/bin/sh
# Runs the command given in a network namespace of its own whose only interface is loopback
# (brought up): what http_response needs, since a mutated redirect may name any address.
# Exits 77 (ctest's skip) where no such namespace can be made (no unshare -n, no ip).
if ! unshare -n true 2>/dev/null || ! command -v ip >/dev/null 2>&1; then
  echo "loopback_only: cannot make a network namespace here (unshare -n and ip needed)" >&2
  exit 77
fi
# Inside, loopback must come up too; where it cannot, the run is skipped as well.
exec unshare -n sh -c 'ip link set lo up || { echo "loopback_only: cannot bring up lo" >&2; exit 77; }
exec "$@"' sh "$@"
