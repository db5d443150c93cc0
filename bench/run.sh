#!/usr/bin/env bash
# Runs every benchmark, each beside its peers in one run, prints each target as a ratio, and
# writes the table of ratios with the peers' versions into docs/performance.md
# (bench/results.py gathers the figures, bench/write_table.py writes them).
# Usage: bench/run.sh [BUILD_DIR]   (make bench)
# A benchmark that fails is named at the end and makes the run fail; the others still run.
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
out=$(mktemp)
export DUDLEY_BENCH_RESULTS
DUDLEY_BENCH_RESULTS=$(mktemp)
trap 'rm -f "$out" "$out.log" "$DUDLEY_BENCH_RESULTS"' EXIT
failed=()

# Runs one benchmark command; a failure is remembered, not fatal.
bench() {
  if ! "$@"; then
    echo "  FAILED: $*" >&2
    failed+=("$*")
  fi
}

# Runs a Google Benchmark program, its figures into $out (its output kept in $out.log);
# false, with the failure remembered, when it fails.
cpp_bench() {
  if ! "$@" --benchmark_out="$out" --benchmark_out_format=json >"$out.log" 2>&1; then
    tail -5 "$out.log" >&2
    echo "  FAILED: $*" >&2
    failed+=("$*")
    return 1
  fi
}

echo "== parse: 100,000-declaration layouts vs yaml-cpp / nlohmann-json / simdjson (same content)"
cpp_bench "$build/bench/parse_bench" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true && /usr/bin/python3 - "$out" "$build" <<'PY'
import json, sys
sys.path.insert(0, "bench")
import results
command = f"{sys.argv[2]}/bench/parse_bench --benchmark_repetitions=3"
runs = json.load(open(sys.argv[1]))["benchmarks"]
# run_name is "BM_Name/ARG/min_time:..."
median = {tuple(r["run_name"].split("/")[:2]): r for r in runs if r.get("aggregate_name") == "median"}
# Arg 0: documented layout (doc comments, params, shapes); Arg 1: plain gNNN/dNNNNN layout.
for arg, label, nl_target in (("0", "documented", 3), ("1", "plain     ", 6)):
    t = {name: v["real_time"] for (name, a), v in median.items() if a == arg}
    d = median[("BM_DudleyParse", arg)]
    dt = t["BM_DudleyParse"]
    extra = " (target <= 30 ms)" if arg == "1" else ""
    print(f"  {label}: dudley {dt:7.1f} ms{extra}  ({d['input_MB']:.1f} MB of layout text)")
    print(f"    yaml-cpp {t['BM_YamlCpp']:8.1f} ms  -> dudley is {t['BM_YamlCpp'] / dt:5.1f}x faster (target >= 20x)")
    print(f"    nlohmann {t['BM_NlohmannJson']:8.1f} ms  -> dudley is {t['BM_NlohmannJson'] / dt:5.1f}x faster (target >= {nl_target}x)")
    print(f"    simdjson {t['BM_SimdjsonOnDemandWalk']:8.1f} ms  (on-demand walk, builds nothing: a ceiling)")
    for peer, key, want in (("yaml-cpp (same content)", "BM_YamlCpp", 20),
                            ("nlohmann-json (same content)", "BM_NlohmannJson", nl_target)):
        results.record(f"parse the {label.strip()} 100,000-declaration layout", dt, peer, t[key],
                       f">= {want}x", t[key] / dt >= want, "median of 3", command=command)
    if arg == "0":  # the memory target is per byte of a documented layout's text
        print(f"    model memory {d['model_bytes_per_text_byte']:.2f}x the text (target < 3x); parser peak {d['peak_bytes_per_text_byte']:.2f}x")
PY

echo
echo "== read: 1 GiB array vs numpy.fromfile and C read() into huge pages; family of 1,000 files vs open+pread+close"
cpp_bench "$build/bench/read_bench" && /usr/bin/python3 - "$out" "$build" <<'PY'
import json, sys
sys.path.insert(0, "bench")
import results
command = f"{sys.argv[2]}/bench/read_bench"
runs = {r["run_name"].split("/")[0]: r for r in json.load(open(sys.argv[1]))["benchmarks"]}
b = runs["BM_BulkSideBySide"]
if "read_ratio" not in b:
    print(f"  bulk: skipped ({b.get('error_message', 'not run')})")
else:
    print(f"  native:  C read (huge pages) {b['c_read_GBps']:5.2f} GB/s, numpy.fromfile {b['numpy_GBps']:5.2f} GB/s, dudley {b['dudley_GBps']:5.2f} GB/s -> {b['read_ratio']:.2f}x the faster (target >= 0.9x)")
    print(f"  swapped: C read + bswap      {b['c_swap_GBps']:5.2f} GB/s, numpy + astype {b['numpy_swap_GBps']:5.2f} GB/s, dudley {b['dudley_swap_GBps']:5.2f} GB/s -> {b['swap_ratio']:.2f}x C (target >= 0.8x)")
    results.record("1 GiB read, native order (in process)", b["dudley_GBps"],
                   "the faster of C read() into huge pages and numpy.fromfile",
                   max(b["c_read_GBps"], b["numpy_GBps"]), ">= 0.9x", b["read_ratio"] >= 0.9,
                   unit="GB/s", ratio=b["read_ratio"], command=command)
    results.record("1 GiB read, byte-swapped (in process)", b["dudley_swap_GBps"],
                   "C read + bswap", b["c_swap_GBps"], ">= 0.8x", b["swap_ratio"] >= 0.8,
                   unit="GB/s", ratio=b["swap_ratio"], command=command)
print(f"  dudley view       {runs['BM_BulkDudleyView']['real_time']:8.1f} us   (zero-copy)")
for cond in ("Warm", "Cold"):
    r = runs.get(f"BM_Family{cond}")
    if r is None or "ratio" not in r:
        print(f"  family {cond.lower():4}: skipped ({r.get('error_message', 'not run') if r else 'not run'})")
        continue
    print(f"  family {cond.lower():4}: floor {r['floor_us_per_file']:7.2f} us/file, dudley {r['dudley_us_per_file']:7.2f} us/file -> {r['ratio']:.2f}x the floor (target <= 1.5x)")
    target = 2.0 if cond == "Cold" else 1.5
    print(f"    read_rows ({r.get('label', '')}): {r['rows_us_per_file']:7.2f} us/file -> {r['rows_speedup']:.2f}x faster than the floor (issue 41: target >= {target}x)")
    results.record(f"family of 1,000 files, {cond.lower()}, read_rows ({r.get('label', '')})",
                   r["rows_us_per_file"], "sequential open+pread+close", r["floor_us_per_file"],
                   f">= {target}x", r["rows_speedup"] >= target, unit="us/file",
                   ratio=r["rows_speedup"], command=command)
PY

echo
echo "== write: 1 GiB array through a layout vs write() (issue 4)"
cpp_bench "$build/bench/write_bench" && /usr/bin/python3 - "$out" "$build" <<'PY'
import json, sys
sys.path.insert(0, "bench")
import results
runs = {r["run_name"].split("/")[0]: r for r in json.load(open(sys.argv[1]))["benchmarks"]}
for name, label, target in (("BM_WriteNative", "native order", " (target >= 0.8x)"),
                            ("BM_WriteSwapped", "swapped     ", "")):
    r = runs[name]
    print(f"  {label}: C write {r['c_write_ms']:7.1f} ms, dudley {r['dudley_ms']:7.1f} ms -> {r['ratio']:.2f}x the speed of write(){target}")
    results.record(f"1 GiB written through a layout, {label.strip()}", r["dudley_ms"], "C write()",
                   r["c_write_ms"], ">= 0.8x" if target else "",
                   r["ratio"] >= 0.8 if target else None, ratio=r["ratio"],
                   command=f"{sys.argv[2]}/bench/write_bench")
PY

echo
echo "== family of 1,000 files written by dudley vs the same arrays in HDF5 files (issue 4)"
cpp_bench "$build/bench/family_hdf5_bench" && /usr/bin/python3 - "$out" "$build" <<'PY'
import json, sys
sys.path.insert(0, "bench")
import results
r = json.load(open(sys.argv[1]))["benchmarks"][0]
results.record("family of 1,000 files written", r["dudley_us_per_file"], "libhdf5 (HDF5 files)",
               r["hdf5_us_per_file"], ">= 10x", r["speedup"] >= 10, unit="us/file",
               ratio=r["speedup"], command=f"{sys.argv[2]}/bench/family_hdf5_bench")
print(f"  libhdf5 {r['hdf5_us_per_file']:6.1f} us/file, dudley {r['dudley_us_per_file']:5.2f} us/file -> dudley {r['speedup']:.1f}x faster (target >= 10x)")
PY

echo
echo "== dump: 1 GiB float64 array as text and JSON vs h5dump -d of the same array (issue 10)"
bench /usr/bin/python3 bench/dump_bench.py "$build/dudley" 1024 2

echo
echo "== codecs: 256 MiB float64 in 4 MiB chunks vs the libraries called directly (issue 11)"
cpp_bench "$build/bench/codec_bench" && /usr/bin/python3 - "$out" "$build" <<'PY'
import json, sys
sys.path.insert(0, "bench")
import results
for r in json.load(open(sys.argv[1]))["benchmarks"]:
    results.record(f"{r['label'].strip()}: compress through the codec layer, one core",
                   r["ours_compress_MBps"], "the library called directly",
                   r["direct_compress_MBps"], ">= 0.95x", r["compress_ratio_vs_direct"] >= 0.95,
                   unit="MB/s", ratio=r["compress_ratio_vs_direct"],
                   command=f"{sys.argv[2]}/bench/codec_bench")
    print(f"  {r['label']:18} compress: library {r['direct_compress_MBps']:7.0f} MB/s, ours {r['ours_compress_MBps']:7.0f} "
          f"({r['compress_ratio_vs_direct']:.2f}x, target >= 0.95x), parallel {r['parallel_compress_MBps']:7.0f} "
          f"({r['compress_parallel_speedup']:.2f}x, target >= 1.7x)")
    print(f"  {'':18} decompress: library {r['direct_decompress_MBps']:5.0f} MB/s, ours {r['ours_decompress_MBps']:7.0f} "
          f"({r['decompress_ratio_vs_direct']:.2f}x), parallel {r['parallel_decompress_MBps']:7.0f} "
          f"({r['decompress_parallel_speedup']:.2f}x)   [ratio {r['compression_ratio']:.2f}:1]")
PY

echo
echo "== issue 21: convert, first parse and first read in fresh processes, beside the peers"
bench /usr/bin/python3 bench/convert_vs_peers.py "$build"
echo "== issue 64: a 100,000-array layout with 3 #@ attributes per array, parsed and checked, vs without"
bench /usr/bin/python3 bench/layout_attributes_parse.py "$build" 11
echo "== issue 64: a CF netCDF-4 file of 1,000 variables converted to Dudley, vs xarray open_dataset + to_netcdf"
bench /usr/bin/python3 bench/cf_netcdf_to_dudley.py "$build" 5
bench /usr/bin/python3 bench/fresh_memory_read.py "$build" 10
bench /usr/bin/python3 bench/zarr_vs_peers.py "$build"
bench /usr/bin/python3 bench/zarr_shard_read.py "$build"
bench /usr/bin/python3 bench/avro_vs_peers.py "$build"

echo
echo "== issue 24: describe vs h5ls -r; one array from each of 1,000 HDF5 files through a layout"
bench /usr/bin/python3 bench/hdf5_vs_peers.py "$build"
echo
echo "== issue 35: a sparse Zarr store (10^5 chunks, 100 stored) dumped and converted, vs zarr-python and h5py"
bench /usr/bin/python3 bench/sparse_vs_peers.py "$build"
echo
echo "== The Python module (issue 25): a[...] of 1 GiB against numpy.fromfile; one array from"
echo "   each of 1,000 family members against the C++ API and h5py; a Dask sum on 2 workers vs 1"
bench /usr/bin/python3 bench/python_vs_numpy.py "$build"
bench /usr/bin/python3 bench/python_family.py "$build"
bench /usr/bin/python3 bench/python_dask.py "$build"
echo
echo "== issue 40: Zarr v3 on S3 (moto) against zarr 3 + s3fs and tensorstore; ls of HDF5 on S3"
bench .venv-stack/bin/python bench/s3_zarr_vs_peers.py "$build" 1024 5
bench .venv-stack/bin/python bench/s3_hdf5_ls.py "$build"
echo
echo "== issue 41: the command line at its floor: a family printed as text against a C program"
echo "   (same bytes, same formatter, equal output); 10^7 float64 printed; the formatter's speed"
bench /usr/bin/python3 bench/family_cli_vs_c.py "$build" 7
echo
echo "== issue 41: conversions against GDAL's gdalmdimtranslate (netCDF-4 <-> Zarr), the reading"
echo "   half against h5py, listings against gdalmdiminfo"
bench /usr/bin/python3 bench/convert_vs_gdal.py "$build" 5
echo
echo "== issue 41: Zarr against tensorstore, zarrs, zarr-python 3 and python3-zarr: 1 GiB,"
echo "   zstd and blosc, sharded and not, write, whole read and a 1% region, 1 and 2 threads"
bench /usr/bin/python3 bench/zarr_vs_fastest.py "$build" 3 1
echo
echo "== ASDF (issues 12, 41): listing 10,000 arrays, 256 MiB read and written (MD5 verified or not),"
echo "   8 blocks read, against python3-asdf"
bench /usr/bin/python3 bench/asdf_vs_python.py "$build"
echo
echo "== netCDF-3 (issue 23), xarray's engine, strings and structs converted, a fancy HDF5 read"
bench /usr/bin/python3 bench/netcdf3_vs_peers.py "$build"
bench /usr/bin/python3 bench/xarray_open_vs_h5netcdf.py "$build"
bench /usr/bin/python3 bench/strings_convert_vs_peers.py "$build"
bench /usr/bin/python3 bench/fancy_read_vs_h5py.py "$build"
echo
echo "== Pictures (issue 42): dudley plot against matplotlib"
bench /usr/bin/python3 bench/plot_vs_matplotlib.py "$build" 5
bench /usr/bin/python3 bench/viewer_first_paint.py "$build" 5

echo
/usr/bin/python3 bench/write_table.py "$DUDLEY_BENCH_RESULTS" docs/performance.md
if ((${#failed[@]})); then
  echo "benchmarks that failed (their figures are missing from the table):" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
