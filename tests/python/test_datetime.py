"""numpy's datetime64 and timedelta64 (issue 63: zarr-python 3 writes them as
numpy.datetime64 / numpy.timedelta64, numpy's .npy and Zarr v2 as M8/m8 typestrs): values of
every unit and scale, NaT and dates before 1970 and beyond 9999, read through the module as
numpy has them and printed by `dump` as numpy.datetime_as_string prints them; formats without
such a type refuse them by name."""
import json

import numpy as np
import pytest

import dudley
from cli_runner import run

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
# The span of a count in each unit that keeps the date within numpy's printable years.
SPAN = {"Y": 10**4, "M": 10**5, "W": 10**5, "D": 10**6, "h": 10**7, "m": 10**9, "s": 10**11,
        "ms": 10**14, "us": 10**17, "ns": 9 * 10**18, "ps": 9 * 10**18, "fs": 9 * 10**18,
        "as": 9 * 10**18}


def values(unit, scale, rng):
    span = SPAN[unit] // scale
    counts = np.concatenate([rng.integers(-span, span, 200), [0, -1, 1, span - 1, -span]])
    counts[::17] = np.iinfo("i8").min  # NaT
    return counts.astype("i8")


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("scale", [1, 7])
def test_dates_print_as_numpy_prints_them(tmp_path, unit, scale):
    rng = np.random.default_rng(abs(hash((unit, scale))) % 2**32)
    code = f"M8[{scale}{unit}]" if scale > 1 else f"M8[{unit}]"
    dates = values(unit, scale, rng).view(code)
    np.save(tmp_path / "t.npy", dates)
    got = dudley.open(str(tmp_path / "t.npy"))[...]
    assert got.dtype == dates.dtype and np.array_equal(got.view("i8"), dates.view("i8"))
    for args in (["dump", "--json"], ["dump"]):
        p = run(*args, str(tmp_path / "t.npy"))
        assert p.returncode == 0, p.stderr
        text = p.stdout.split(" = ", 1)[1] if args == ["dump"] else p.stdout
        data = json.loads(text)["root"]["data"] if args != ["dump"] else json.loads(text)
        assert data == np.datetime_as_string(dates).tolist(), (code, args)


@pytest.mark.parametrize("unit", ["D", "s", "ms", "ps", "as"])
def test_durations_print_as_counts(tmp_path, unit):
    rng = np.random.default_rng(5)
    counts = values(unit, 1, rng)
    durations = counts.view(f"m8[{unit}]")
    np.save(tmp_path / "d.npy", durations)
    got = dudley.open(str(tmp_path / "d.npy"))[...]
    assert got.dtype == durations.dtype and np.array_equal(got.view("i8"), counts)
    p = run("dump", "--json", str(tmp_path / "d.npy"))
    assert p.returncode == 0, p.stderr
    want = ["NaT" if c == np.iinfo("i8").min else int(c) for c in counts]
    assert json.loads(p.stdout)["root"]["data"] == want
    listing = run("ls", str(tmp_path / "d.npy"))
    assert f"<m8[{unit}]" in listing.stdout


def test_formats_without_times_refuse_them(tmp_path):
    np.save(tmp_path / "t.npy", np.array(["2020-01-01", "NaT"], dtype="M8[D]"))
    for ext, words in {"h5": "HDF5 has no type for <M8[D]", "asdf": "ASDF has no datatype",
                       "ndl": "have no NDL type", "bin": "Dudley has no type for <M8[D]",
                       "avro": "no typestr for <M8[D]"}.items():
        out = tmp_path / f"out.{ext}"
        p = run("convert", str(tmp_path / "t.npy"), str(out))
        assert p.returncode == 1 and words in p.stderr, (ext, p.stderr)
        assert not out.exists(), ext
    # .npy and Zarr keep them.
    for out in (tmp_path / "copy.npy", tmp_path / "copy.zarr"):
        p = run("convert", str(tmp_path / "t.npy"), str(out))
        assert p.returncode == 0, p.stderr
        got = dudley.open(str(out))[...]
        assert got.dtype == np.dtype("M8[D]") and np.array_equal(got.view("i8"),
                                                                 [18262, np.iinfo("i8").min])


def test_the_module_saves_times(tmp_path):
    """dudley.save writes numpy times where the format has them (Zarr, .npy) and refuses
    them by name where it has not."""
    dates = np.array(["2020-01-01T10:00:00.120", "NaT"], dtype="M8[10ms]")
    for name in ("t.zarr", "t.npy"):
        dudley.save({"t": dates} if name.endswith(".zarr") else dates, str(tmp_path / name))
        f = dudley.open(str(tmp_path / name))
        got = (f["t"] if name.endswith(".zarr") else f)[...]
        assert got.dtype == dates.dtype and np.array_equal(got.view("i8"), dates.view("i8"))
    with pytest.raises(dudley.Error, match="M8"):
        dudley.save({"t": dates}, str(tmp_path / "t.h5"))
