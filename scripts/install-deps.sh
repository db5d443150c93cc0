#!/usr/bin/env bash
# Installs every system package dudley needs to build, test, benchmark and fuzz.
# Idempotent: when everything is already installed it does nothing (and needs no network).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang lld libclang-rt-14-dev clang-format clang-tidy
  # ccache: the wheel python_pypi_stack builds and a second build directory reuse what the
  # first build compiled (a quarter of `make test`'s time on 2 cores without it)
  ccache
  # libraries
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  # ASDF: YAML 1.1 events (the reference library's own C loader), MD5 of blocks (libcrypto)
  libyaml-dev libssl-dev
  # S3: expat parses its XML answers, inih the AWS credentials and config files
  libexpat1-dev libinih-dev
  # file families: many opens and reads in flight through the kernel's io_uring
  liburing-dev
  # codecs (src/codec): deflate/zlib/gzip, bzip2, lz4 (block and frame), zstd, c-blosc 1
  zlib1g-dev libdeflate-dev libbz2-dev liblz4-dev libzstd-dev libblosc-dev
  # ISA-L: zlib streams decoded piece by piece as fast as libdeflate decodes them whole, so
  # an ASDF block's MD5 is taken on a second core while it decodes
  libisal-dev
  # snappy: the codec Java and Spark Avro writers use most; python3-snappy lets the Avro
  # peer (python3-avro) read and write such containers in the tests; liblzma: Avro's xz
  libsnappy-dev python3-snappy liblzma-dev
  # zfp: numcodecs' ZFPY codec (numcodecs.zfpy in zarr-python 3's stores; lossy floats)
  libzfp-dev
  # example data generation and test scripts (Debian's interpreter); numpy and h5py are the
  # peers that selections and HDF5-backed layouts are checked against, h5dump the dump baseline
  python3 python3-numpy python3-h5py hdf5-tools python3-venv
  # codec peers: the codec tests cross-check every codec against these, both ways
  python3-numcodecs python3-lz4
  # ASDF peer: the reference library reads what we write and writes what we read
  python3-asdf
  # Zarr: CRC-32C for checking chunks by hand, zarr-python 2 (v2 stores; the speed baseline);
  # the v3 peer, zarrita, comes from npm below
  python3-crc32c python3-zarr
  # Zarr stores over HTTP(S): libcurl; nginx serves stores to the tests on 127.0.0.1
  libcurl4-openssl-dev nginx-light
  # Avro: the Avro C library (schemas, generic datums); Apache Avro for Python is the peer
  # (avsc, the other, comes from npm below). libjansson-dev: the archive of the JSON library
  # Avro C uses, so that programs link Avro statically (cmake/program_deps.cmake)
  libavro-dev libjansson-dev python3-avro
  # HDF5 and NDL: the HDF5 C library (libhdf5-dev, below) and its peer h5py (above); the NDL
  # tests read what describe writes with PyYAML
  python3-yaml
  # HDF5 filter plugins real files are compressed with (LZF, h5py's own; LZ4, bzip2 and
  # bitshuffle; Blosc; ZFP), found by the HDF5 module in Debian's plugin directory; the
  # tests write such files with h5py and python3-hdf5plugin and compare the values
  hdf5-plugin-lzf hdf5-filter-plugin hdf5-filter-plugin-blosc-serial
  hdf5-filter-plugin-zfp-serial python3-hdf5plugin
  # the LZF plugin's own library, which its package forgets to depend on
  liblzf1
  # netCDF classic: ncgen/ncdump (netcdf-bin) and the netCDF4 Python module are the peers
  # the netCDF-3 reader is checked against
  netcdf-bin python3-netcdf4
  # h5netcdf: xarray's other netCDF-4 engine, the one the xarray engine is measured against
  python3-h5netcdf
  # the Python module (issue 25): pybind11 and Debian's Python headers; pytest runs its tests;
  # Dask (with dask.distributed) and xarray are what it hands arrays to
  pybind11-dev python3-dev python3-pytest python3-dask python3-distributed python3-xarray
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev libsimdjson-dev libhdf5-dev
  # GDAL's gdalmdimtranslate and gdalmdiminfo, the conversion tools our users already have:
  # bench/convert_vs_gdal.py measures convert and ls against them
  gdal-bin
  # GNU time: peak memory of a command (the dump benchmark); strace: bytes a command reads
  # (the sharded-read benchmark)
  time strace
  # the HTTP fuzz target runs in a network namespace of loopback alone (unshare, ip)
  util-linux iproute2
  # pictures (dudley plot, the viewer): PNG through libpng, text through FreeType in the
  # DejaVu font built into the program; the tests decode the PNGs with PIL and take the
  # colour maps' reference colours from matplotlib, which bench/plot_vs_matplotlib.py races
  libpng-dev libfreetype-dev fonts-dejavu-core python3-pil python3-matplotlib
  # dudley view: its HTTP server (cpp-httplib, in a module loaded by `view` alone, so that
  # other commands never map its OpenSSL), and the browser its tests drive (chromium)
  libcpp-httplib-dev chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# Node.js and npm run the npm peers (zarrita); a machine that has them (from Debian or
# elsewhere) keeps its own.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The npm peers, pinned in tests/interop/package.json (and its lock file), installed beside
# it; node_modules is never committed.
interop="$(cd "$(dirname "$0")/../tests/interop" && pwd)"
if [ ! -f "$interop/node_modules/zarrita/package.json" ] ||
   [ ! -f "$interop/node_modules/@zarrita/storage/package.json" ] ||
   [ ! -f "$interop/node_modules/avsc/package.json" ] ||
   [ ! -f "$interop/node_modules/s3rver/package.json" ]; then
  echo "install-deps: installing the npm peers in $interop"
  (cd "$interop" && npm install --no-audit --no-fund --loglevel=error)
else
  echo "install-deps: npm peers present"
fi

# The viewer's front-end tools (esbuild bundles it into the program at build time,
# TypeScript checks it, playwright-core drives chromium in its tests), pinned in
# web/package.json and its lock file.
web="$(cd "$(dirname "$0")/../web" && pwd)"
if [ ! -x "$web/node_modules/.bin/esbuild" ] || [ ! -x "$web/node_modules/.bin/tsc" ] ||
   [ ! -f "$web/node_modules/playwright-core/package.json" ]; then
  echo "install-deps: installing the viewer's front-end tools in $web"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
else
  echo "install-deps: the viewer's front-end tools present"
fi

root="$(cd "$(dirname "$0")/.." && pwd)"

# A virtual environment DIR (never committed) holding the pins of REQUIREMENTS, made again
# when they change (a copy of them in DIR is the stamp); any further arguments go to venv.
python_env() {
  local dir="$root/$1" requirements="$root/$2" what="$3"
  shift 3
  if [ ! -x "$dir/bin/python" ] || ! cmp -s "$requirements" "$dir/$(basename "$requirements")"; then
    echo "install-deps: installing $what in $dir"
    /usr/bin/python3 -m venv "$@" "$dir"
    "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$dir/$(basename "$requirements")"
  else
    echo "install-deps: $what present"
  fi
}

# The PyPI peers, beside Debian's Python packages (numpy, h5py, zarr...): fastavro reads and
# writes the Avro codecs python3-avro lacks (xz).
python_env .venv tests/requirements-peers.txt "the PyPI peers" --system-site-packages
# The S3 test server (moto) and boto3, apart from .venv: moto needs a jsonschema newer than
# Debian's python3-asdf takes.
python_env .venv-s3 tests/requirements-s3.txt "the S3 test server" --system-site-packages
# The current Python stack from PyPI (numpy 2, xarray, Dask, h5py, zarr 3, s3fs, tensorstore
# and the build backend), without Debian's packages: the tests build the package with
# `pip install .` there and run on it.
python_env .venv-stack tests/requirements-stack.txt "the PyPI Python stack"

# A second S3 server for the benchmarks, gofakes3 (Go, in memory), pinned here: moto is
# Python, and its own speed bounds what it measures; a Go server lets the tools' differences
# show. Built from the Go module proxy into .tools/bin (never committed); a machine without
# Go runs the S3 benchmarks on moto alone.
# Go from PATH, or where the official tarball puts it (a shell without its profile lacks it).
go_tool=$(command -v go || true)
[ -n "$go_tool" ] || [ ! -x /usr/local/go/bin/go ] || go_tool=/usr/local/go/bin/go
gofakes3_version=v1.2.0
gofakes3="$root/.tools/bin/gofakes3"
if [ -x "$gofakes3" ] && [ "$(cat "$root/.tools/gofakes3.version" 2>/dev/null)" = "$gofakes3_version" ]; then
  echo "install-deps: gofakes3 present"
elif [ -n "$go_tool" ]; then
  echo "install-deps: installing gofakes3 $gofakes3_version in $root/.tools/bin"
  # Benchmarks only: a module proxy out of reach leaves the S3 benchmarks on moto, and the
  # tests as they are.
  if GOBIN="$root/.tools/bin" "$go_tool" install "github.com/johannesboyne/gofakes3/cmd/gofakes3@$gofakes3_version"; then
    echo "$gofakes3_version" > "$root/.tools/gofakes3.version"
  else
    echo "install-deps: gofakes3 could not be built: the S3 benchmarks run on moto only"
  fi
else
  echo "install-deps: no Go toolchain: the S3 benchmarks run on moto only"
fi

# An S3 server that checks every V4 signature, the body's hash among what is signed, for the
# tests (tests/interop/s3_strict_test.py): versitygw (Go, over a folder), pinned here, built
# from the Go module proxy into .tools/bin (never committed). moto checks signatures only
# with its IAM on and then refuses any listing whose prefix holds a '/'; s3rver checks the
# headers S3 requires but not the signature.
versitygw_version=v1.8.0
versitygw="$root/.tools/bin/versitygw"
if [ -x "$versitygw" ] && [ "$(cat "$root/.tools/versitygw.version" 2>/dev/null)" = "$versitygw_version" ]; then
  echo "install-deps: versitygw present"
else
  [ -n "$go_tool" ] || { echo "install-deps: the S3 tests need Go to build versitygw" >&2; exit 1; }
  echo "install-deps: installing versitygw $versitygw_version in $root/.tools/bin"
  GOBIN="$root/.tools/bin" "$go_tool" install "github.com/versity/versitygw/cmd/versitygw@$versitygw_version"
  echo "$versitygw_version" > "$root/.tools/versitygw.version"
fi
