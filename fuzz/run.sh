#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each, on a copy of its seed corpus (the checked-in
# seeds stay small). Findings go to fuzz/artifacts/. With FUZZ_KEEP=DIR the corpus each
# target grows is kept in DIR/TARGET (fuzz/coverage.sh reports what it reaches) and a later
# run goes on from it; FUZZ_JOBS=N runs N targets at once (default 1).
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
cd "$(dirname "$0")/.."
mkdir -p fuzz/artifacts
run_target() {
  local target=$1
  local work
  if [ -n "${FUZZ_KEEP:-}" ]; then
    work=$FUZZ_KEEP/$target
    mkdir -p "$work"
  else
    work=$(mktemp -d)
  fi
  cp -r fuzz/corpus/$target/. "$work/"
  # The model target starts from the binder's seeds too.
  [ "$target" = dudley_to_model ] && cp -r fuzz/corpus/dudley_bind/. "$work/"
  if [ "$target" = dudley_parse ]; then
    cp tests/data/dudley/layouts/valid/*.dud tests/data/dudley/layouts/invalid/*.dud examples/*.dud "$work/"
  fi
  dict=fuzz/dudley.dict
  [ "$target" = asdf_read ] && dict=fuzz/asdf.dict
  [ "$target" = zarr_metadata ] && dict=fuzz/zarr.dict
  [ "$target" = zarr_read ] && dict=fuzz/zarr.dict
  [ "$target" = zarr_store ] && dict=fuzz/zarr.dict
  [ "$target" = avro_decode ] && dict=fuzz/avro.dict
  [ "$target" = ndl_read ] && dict=fuzz/ndl.dict
  [ "$target" = npy_read ] && dict=fuzz/npy.dict
  [ "$target" = netcdf3_header ] && dict=fuzz/netcdf.dict
  [ "$target" = hdf5_extents ] && dict=fuzz/hdf5.dict
  [ "$target" = http_response ] && dict=fuzz/http.dict
  [ "$target" = view_api ] && dict=fuzz/view.dict
  dict_option=(-dict=$dict)
  # The HTTP target serves its responses on 127.0.0.1 and a mutated redirect may name any
  # address: it runs in a network namespace whose only interface is loopback.
  isolate=()
  [ "$target" = http_response ] && isolate=(sh fuzz/loopback_only.sh)
  leaks=1
  if [ "$target" = python_index ]; then
    dict_option=()  # its input is bytes that pick Python objects
    leaks=0         # the embedded interpreter keeps its objects to the end: not leaks of ours
  fi
  echo "== $target for ${seconds}s"
  # Undefined behaviour is a finding: stop at the first report and keep the input.
  ASAN_OPTIONS=detect_leaks=$leaks UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "${isolate[@]}" "$build/fuzz/$target" "$work" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -rss_limit_mb=2048 "${dict_option[@]}" -artifact_prefix=fuzz/artifacts/ \
    -print_final_stats=1 2>&1 | grep -E '^(#[0-9]+.*(DONE|pulse)|stat::|==|SUMMARY|Done)' \
    | sed "s/^/[$target] /" || true
  [ -n "${FUZZ_KEEP:-}" ] || rm -rf "$work"
}
targets=(${FUZZ_TARGETS:-dudley_parse dudley_bind dudley_embedded dudley_to_model dudley_family_index codec_decode asdf_read zarr_metadata zarr_read zarr_store avro_decode ndl_read npy_read netcdf3_header hdf5_extents python_index http_response s3_xml view_api})
jobs=${FUZZ_JOBS:-1}
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$target" &
done
wait
if [ -n "$(ls -A fuzz/artifacts)" ]; then
  echo "fuzz: findings in fuzz/artifacts/" >&2
  exit 1
fi
echo "fuzz: no findings"
