#!/usr/bin/env bash
# Installs every system package dudley needs to build, test, benchmark and fuzz.
# Idempotent: when everything is already installed it does nothing (and needs no network).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang lld libclang-rt-14-dev clang-format clang-tidy
  # libraries
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  # ASDF: YAML 1.1 events (the reference library's own C loader), MD5 of blocks (libcrypto)
  libyaml-dev libssl-dev
  # codecs (src/codec): deflate/zlib/gzip, bzip2, lz4 (block and frame), zstd, c-blosc 1
  zlib1g-dev libdeflate-dev libbz2-dev liblz4-dev libzstd-dev libblosc-dev
  # example data generation and test scripts (Debian's interpreter); numpy and h5py are the
  # peers that selections and HDF5-backed layouts are checked against, h5dump the dump baseline
  python3 python3-numpy python3-h5py hdf5-tools
  # codec peers: the codec tests cross-check every codec against these, both ways
  python3-numcodecs python3-lz4
  # ASDF peer: the reference library reads what we write and writes what we read
  python3-asdf
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev libsimdjson-dev libhdf5-dev
  # GNU time: peak memory of a command (the dump benchmark)
  time
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
