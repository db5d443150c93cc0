#!/usr/bin/env bash
# A data file and its layout written by one convert are a pair: after kill -9 at any moment,
# and with two writers at once, a reader gets the old pair, the new pair, or a clear error,
# never one write's data read through another's layout.
set -u
dudley=$(realpath "${DUDLEY:?set DUDLEY to the dudley binary}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"
cd "$tmp" || exit 1
# Two sources whose values differ everywhere, 16 MiB each. b is written big-endian, so one
# write's data read through the other's layout gives values neither holds.
/usr/bin/python3 - <<'PY'
import struct
for name, value in (("a", 1), ("b", 2)):
    open(f"{name}.bin", "wb").write(struct.pack("<q", value) * (2 * 1024 * 1024))
    open(f"{name}.dud", "w").write("x = <i8[2097152]\n")
PY
order() { [ "$1" = a ] && echo little || echo big; }
# What a reader may see: "A" / "B" (a whole pair), "E" (the mismatch reported), else "BAD".
read_state() {
  local out
  out=$("$dudley" dump out.bin '/x[0:1]' 2>err.txt)
  case "$?:$out" in
    "0:/x[0:1] = [1]") echo A ;;
    "0:/x[0:1] = [2]") echo B ;;
    1:*) if grep -q "not from the same write" err.txt; then echo E; else echo "BAD($(cat err.txt))"; fi ;;
    *) echo "BAD($out $(cat err.txt))" ;;
  esac
}

# kill -9 during converts over an existing pair, at many moments: after each, the reader
# sees a whole pair or a clear error.
"$dudley" convert -q a.bin out.bin
bad=0
after_kill() {  # $1: when the kill came, for messages
  local state
  state=$(read_state)
  case "$state" in A | B | E) ;; *) bad=$((bad + 1)); echo "after kill $1: $state" ;; esac
  [ "$state" = E ] && "$dudley" convert -q a.bin out.bin  # the user writes again
}
convert_some() {  # starts a convert of a or b over out.bin; its pid in $pid
  local src
  src=$([ $((RANDOM % 2)) = 0 ] && echo a || echo b)
  "$dudley" convert -q --write-order "$(order "$src")" "$src.bin" out.bin &
  pid=$!
}
for delay in 0.005 0.01 0.02 0.03 0.04 0.05 0.07 0.09 0.12 0.15 0.2 0.3; do
  convert_some
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  after_kill "at $delay s"
done
# Kills that certainly land mid-write: once the writer holds its temporary output open (an
# unnamed O_TMPFILE file shows as "(deleted)" among its descriptors, a named one as
# NAME.tmp-*), as the first write of data begins.
mid_write=0
for _ in $(seq 6); do
  convert_some
  for _ in $(seq 5000); do
    if ls -l "/proc/$pid/fd" 2>/dev/null | grep -q -e "$tmp/.*(deleted)" -e "out\.bin\.tmp-"; then
      kill -9 "$pid" 2>/dev/null && mid_write=$((mid_write + 1))
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
  done
  wait "$pid" 2>/dev/null
  after_kill "mid-write"
done
echo "kills that landed mid-write: $mid_write of 6"
check "kill -9 landed mid-write (the temporary output open) at least 3 times" test "$mid_write" -ge 3
check "after kill -9, only a whole pair or a clear error" test "$bad" -eq 0
# A kill between naming the temporary file and renaming it leaves it; the next write of the
# same name removes what killed writers left.
"$dudley" convert -q a.bin out.bin
check "the next write leaves no temporary files of killed writers" test -z "$(ls -a | grep -e '\.tmp-')"

# Two writers and a reader at once.
"$dudley" convert -q a.bin out.bin
writer() {
  for _ in $(seq 15); do
    "$dudley" convert -q --write-order "$(order "$1")" "$1.bin" out.bin || echo "writer $1 failed"
  done
}
writer a >wa.txt 2>&1 &
wa=$!
writer b >wb.txt 2>&1 &
wb=$!
states=""
while kill -0 "$wa" 2>/dev/null || kill -0 "$wb" 2>/dev/null; do states="$states $(read_state)"; done
wait "$wa" "$wb"
check "concurrent writers both succeed" test ! -s wa.txt -a ! -s wb.txt
check "readers meanwhile see whole pairs or a clear error" bash -c "! grep -q BAD <<<'$states'"
final=$(read_state)
check "the last write leaves a whole pair" bash -c "[ '$final' = A ] || [ '$final' = B ]"
echo "pairs: readers saw $(wc -w <<<"$states") states ($(grep -o E <<<"$states" | wc -l) mismatches reported)"
echo "pairs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
