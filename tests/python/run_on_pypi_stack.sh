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
# At -O1: these tests check the package's surface, not its speed, and this build is the
# longest step of `make test` (the whole library again: 8.4 min of 2 cores at the wheel's
# -O2, 5.8 at -O1, measured alone on 2026-11-28). A wheel a user builds keeps -O2.
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
  --no-index --config-settings=cmake.define.CMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  --config-settings=cmake.define.CMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" .
# The package must be the one installed, not a build tree on PYTHONPATH.
unset PYTHONPATH
"$venv/bin/python" -c "import dudley, numpy, sys; assert dudley.__file__.startswith('$venv'), dudley.__file__; print('dudley from', dudley.__file__, 'numpy', numpy.__version__)"
cd "$root/tests/python"
DUDLEY_BIN="$venv/bin/dudley" exec "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  test_read.py test_write.py test_fancy_indexing.py test_strings.py test_xarray_engine.py \
  test_docs.py test_hostile.py test_lifetime.py test_hdf5_types.py test_stubs.py
