"""The rule for reading in Python (issue 62): what a file names is read only inside its
folder unless dudley.open(..., allow_outside=...) names another; the choice survives pickling
(a Dask worker reopens the file the same way)."""
import pickle

import h5py
import numpy as np
import pytest

import dudley


@pytest.fixture
def linked(tmp_path):
    (tmp_path / "data" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    with h5py.File(tmp_path / "outside" / "x.h5", "w") as f:
        f["x"] = np.full(4, 31337.0)
    with h5py.File(tmp_path / "data" / "sub" / "a.h5", "w") as f:
        f["y"] = h5py.ExternalLink("../../outside/x.h5", "/x")
    path = tmp_path / "data" / "in.h5"
    with h5py.File(path, "w") as f:
        f["ok"] = np.arange(3.0)
        f["chain"] = h5py.ExternalLink("sub/a.h5", "/y")
    return path, tmp_path / "outside"


def test_a_link_leading_outside_is_an_error_naming_it(linked):
    path, _ = linked
    f = dudley.open(path)
    assert f["ok"][()].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(dudley.Error) as e:
        f["chain"][()]
    assert "../../outside/x.h5" in str(e.value) and "outside" in str(e.value)


def test_allow_outside_reads_it_and_survives_pickling(linked):
    path, outside = linked
    for allowed in (outside, str(outside), [str(outside)], "/"):
        f = dudley.open(path, allow_outside=allowed)
        assert f["chain"][()].tolist() == [31337.0] * 4, allowed
    a = pickle.loads(pickle.dumps(dudley.open(path, allow_outside=outside)["chain"]))
    assert a[1:].tolist() == [31337.0] * 3
    with pytest.raises(dudley.Error):
        pickle.loads(pickle.dumps(dudley.open(path)["chain"]))[()]
