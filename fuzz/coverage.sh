#!/usr/bin/env bash
# What the fuzz corpora reach of the parsers: builds the fuzz targets with clang's source-based
# coverage (in BUILD, its own directory), replays each target's corpus once (the checked-in
# seeds, and what `FUZZ_KEEP=CORPORA fuzz/run.sh` grew in CORPORA/TARGET), and prints what
# it reached of the target's own parser sources (fuzz/coverage_report.py over llvm-cov's
# export): lines and regions covered per file, then the functions no input reached.
#
# usage: fuzz/coverage.sh [BUILD [CORPORA]]   (defaults: build-cov, fuzz-corpora)
set -euo pipefail
build=${1:-build-cov}
corpora=${2:-fuzz-corpora}
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDUDLEY_FUZZ=ON -DDUDLEY_TESTS=OFF -DDUDLEY_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping" \
  -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" >/dev/null
cmake --build "$build" -j"${JOBS:-2}" >/dev/null

# Each target and the sources that are its parser (what the report is about).
declare -A sources=(
  [dudley_parse]="src/layout/syntax"
  [dudley_bind]="src/layout/bind"
  [dudley_embedded]="src/layout/embedded.cpp"
  [dudley_to_model]="src/layout/bind src/model"
  [dudley_family_index]="src/layout/family"
  [codec_decode]="src/codec"
  [asdf_read]="src/formats/asdf src/text"
  [zarr_metadata]="src/formats/zarr/metadata.cpp src/formats/zarr/metadata_v2.cpp src/formats/zarr/datatype.cpp src/formats/zarr/fill_value.cpp"
  [zarr_read]="src/formats/zarr/reader.cpp src/formats/zarr/source.cpp src/formats/zarr/vlen_source.cpp src/formats/zarr/chunk_listing.cpp"
  [zarr_store]="src/formats/zarr/reader.cpp src/formats/zarr/metadata.cpp src/formats/zarr/metadata_v2.cpp"
  [avro_decode]="src/formats/avro"
  [ndl_read]="src/formats/ndl"
  [npy_read]="src/formats/npy"
  [netcdf3_header]="src/formats/netcdf"
  [hdf5_extents]="src/formats/hdf5/stored_extents.cpp"
  [python_index]="python/src/selection.cpp"
  [http_response]="src/io/http_store.cpp src/io/url_parts.cpp"
  [s3_xml]="src/io/s3_xml.cpp"
  [view_api]="src/view/api.cpp src/view/tree_pages.cpp"
)
mkdir -p "$build/profiles"
for target in ${FUZZ_TARGETS:-${!sources[@]}}; do
  dirs=(fuzz/corpus/$target)
  [ -d "$corpora/$target" ] && dirs+=("$corpora/$target")
  [ "$target" = dudley_to_model ] && dirs+=(fuzz/corpus/dudley_bind)
  # The parser starts from every layout in the repository too, as fuzz/run.sh does.
  [ "$target" = dudley_parse ] &&
    dirs+=(tests/data/dudley/layouts/valid tests/data/dudley/layouts/invalid examples)
  isolate=()
  [ "$target" = http_response ] && isolate=(sh fuzz/loopback_only.sh)
  rm -f "$build/profiles/$target".*.profraw
  # Each input once, in a process of its own per few inputs (-runs=0 replays the
  # directories); a finding still fails the run, as in make test's replay.
  LLVM_PROFILE_FILE="$build/profiles/$target.%p.profraw" ASAN_OPTIONS=detect_leaks=0 \
    "${isolate[@]}" "$build/fuzz/$target" -runs=0 "${dirs[@]}" >/dev/null 2>&1 || true
  llvm-profdata-14 merge -sparse "$build/profiles/$target".*.profraw \
    -o "$build/profiles/$target.profdata"
  inputs=$(find "${dirs[@]}" -type f | wc -l)
  echo "== $target ($inputs inputs)"
  llvm-cov-14 export "$build/fuzz/$target" -instr-profile="$build/profiles/$target.profdata" \
    -skip-expansions | python3 fuzz/coverage_report.py . ${sources[$target]}
done
