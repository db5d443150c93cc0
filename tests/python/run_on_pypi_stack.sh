#!/usr/bin/env bash
# The Python tests on the current PyPI stack (issue 38): `pip install .` builds the package
# (module, HDF5 support, the command) with scikit-build-core into .venv-stack, which holds
# numpy 2, xarray, Dask, h5py and zarr 3 from tests/requirements-stack.txt and not Debian's
# packages; then pytest runs the tests of the module's surface there, as a user's would.
# Nothing is downloaded: the build backend and every package come from install-deps.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/.venv-stack"
if [ ! -x "$venv/bin/python" ]; then
  echo "no $venv: run scripts/install-deps.sh" >&2
  exit 1
fi
cd "$root"
# With the test build's compiler, build type and flags (the arguments: pip would take
# Python's compiler, another name for the same g++, and the wheel's Release flags), so that
# ccache hands this build every library object the test build compiled (the wheel turns
# link-time optimisation off, as `make unit` does): compiling the whole library again was
# the longest step of `make test` (8.4 min of 2 cores). A wheel a user builds keeps its own.
settings=()
if [ $# -ge 3 ]; then
  export CXX="$1"
  settings=(--config-settings=cmake.build-type="$2"
            --config-settings=cmake.define.CMAKE_CXX_FLAGS_"${2^^}"="$3")
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
  --no-index "${settings[@]}" .
# The package must be the one installed, not a build tree on PYTHONPATH.
unset PYTHONPATH
"$venv/bin/python" -c "import dudley, numpy, sys; assert dudley.__file__.startswith('$venv'), dudley.__file__; print('dudley from', dudley.__file__, 'numpy', numpy.__version__)"
cd "$root/tests/python"
DUDLEY_BIN="$venv/bin/dudley" exec "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  test_read.py test_write.py test_fancy_indexing.py test_strings.py test_xarray_engine.py \
  test_docs.py test_hostile.py test_lifetime.py test_hdf5_types.py test_stubs.py test_s3.py \
  test_zarr_python3.py test_datetime.py test_zarr_python3_realworld.py
