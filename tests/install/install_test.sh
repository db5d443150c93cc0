#!/usr/bin/env bash
# The installed C++ API as a user meets it: `cmake --install` into a fresh prefix, then the
# examples built against it twice, with find_package(dudley CONFIG) and with pkg-config, and
# run; the installed command and its HDF5 module work from the prefix too.
set -euo pipefail
build=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
test -f "$prefix/include/dudley/layout/family/family_reader.hpp" || { echo "headers not installed"; exit 1; }
test -f "$prefix/lib/cmake/dudley/dudleyConfig.cmake" || { echo "no CMake package"; exit 1; }
test -f "$prefix/lib/pkgconfig/dudley.pc" || { echo "no pkg-config file"; exit 1; }
if grep -rq "$root/include" "$prefix/lib/cmake/dudley"; then
  echo "the CMake package points into the source tree"; exit 1
fi

# Restart files the examples read (rho[j][i] = 1000*STEP + 10*j + i; cycle 100*STEP).
for step in 0 1; do
  /usr/bin/python3 "$root/examples/make_restart_data.py" "$tmp/run_$step.bin" "$step"
done
check_read_restart() {  # $1: the program
  "$1" "$root/examples/restart.dud" "$tmp"/run_*.bin >"$tmp/out"
  for line in "rho[2][3] = 23" "$tmp/run_1.bin: rho[0][0] = 1000 (15 values)" \
              "$tmp/run_1.bin: cycle 100, time 0.25"; do
    grep -qxF "$line" "$tmp/out" || { echo "$1: missing line: $line"; cat "$tmp/out"; exit 1; }
  done
}

# 1. CMake: find_package(dudley CONFIG), dudley::dudley. The compiler is the build's: built
#    with link-time optimisation (`make build`), the libraries hold its objects.
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cmake -S "$root/tests/install/consumer" -B "$tmp/consumer" -G Ninja \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_PREFIX_PATH="$prefix" \
  -DDUDLEY_EXAMPLES="$root/examples" >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
check_read_restart "$tmp/consumer/read_restart"
"$tmp/consumer/write_family" "$root/examples/restart.dud" "$tmp/fam" 2 >/dev/null
test -f "$tmp/fam.index.bin" || { echo "write_family (installed API) wrote no index"; exit 1; }

# 2. pkg-config: a program from the compiler's command line (write_family: its link-time
#    optimised link takes a quarter of read_restart's), writing the same files as the
#    CMake-built one.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
"$compiler" -O1 $(pkg-config --cflags dudley) "$root/examples/write_family.cpp" \
  -o "$tmp/write_family_pc" $(pkg-config --static --libs dudley)
mkdir "$tmp/pc"
"$tmp/write_family_pc" "$root/examples/restart.dud" "$tmp/pc/fam" 2 >/dev/null
# The members and their layout byte for byte; the index (it names its directory) by what the
# installed command reads from it.
for f in fam.dud fam_0000.bin fam_0001.bin; do
  cmp "$tmp/pc/$f" "$tmp/$f" || { echo "pkg-config build: $f differs"; exit 1; }
done
(cd "$tmp" && "$prefix/bin/dudley" dump --family fam.index.bin /hydro/rho) >"$tmp/rho.txt"
(cd "$tmp/pc" && "$prefix/bin/dudley" dump --family fam.index.bin /hydro/rho) >"$tmp/rho_pc.txt"
grep -qF "fam_0001.bin /hydro/rho = [[1000.0," "$tmp/rho_pc.txt" &&
  cmp "$tmp/rho.txt" "$tmp/rho_pc.txt" || { echo "pkg-config build: the family reads differently"; exit 1; }

# 3. The installed command finds its HDF5 module in the prefix.
/usr/bin/python3 - "$tmp/t.h5" <<'PY'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f["x"] = np.arange(6, dtype="<i4")
PY
"$prefix/bin/dudley" dump "$tmp/t.h5" /x >"$tmp/h5.out"
grep -qxF "/x = [0,1,2,3,4,5]" "$tmp/h5.out" || { echo "installed dudley: $(cat "$tmp/h5.out")"; exit 1; }
echo "installed API: CMake package, pkg-config and the command all work"
