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
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
  --no-index .
# The package must be the one installed, not a build tree on PYTHONPATH.
unset PYTHONPATH
"$venv/bin/python" -c "import dudley, numpy, sys; assert dudley.__file__.startswith('$venv'), dudley.__file__; print('dudley from', dudley.__file__, 'numpy', numpy.__version__)"
cd "$root/tests/python"
DUDLEY_BIN="$venv/bin/dudley" exec "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  test_read.py test_write.py test_fancy_indexing.py test_strings.py test_xarray_engine.py \
  test_docs.py test_hostile.py test_lifetime.py test_hdf5_types.py test_stubs.py
