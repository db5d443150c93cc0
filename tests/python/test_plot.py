"""`dudley plot`: PNG figures checked pixel by pixel against what the values and matplotlib's
colour maps say (issue 42). Each picture is decoded with PIL; the figure's own account of
where it put the values (`--json`, also in the PNG's text) places the cells, and the
expected colours come from matplotlib, not from our tables."""
import json
import os

import h5py
import numpy as np
import pytest
from matplotlib import colormaps
from PIL import Image

from cli_runner import run

MAGENTA = (255, 0, 255)


def plot(tmp_path, data, item, *options, name="out.png"):
    out = tmp_path / name
    p = run("plot", str(data), item, "-o", str(out), "--json", *options)
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    image = Image.open(out)
    assert image.size == (info["width"], info["height"])
    assert json.loads(image.text["dudley-plot"]) == info  # the PNG says what --json says
    return info, np.asarray(image.convert("RGB"))


def cell_centre(info, row, col):
    """The pixel at the centre of cell (row, col) of the shown values."""
    plot_area, (rows, cols) = info["plot"], info["shown"]
    x = plot_area["x"] + int((col + 0.5) * plot_area["width"] / cols)
    y = plot_area["y"] + int((row + 0.5) * plot_area["height"] / rows)
    return y, x


def expected_colour(value, vmin, vmax, cmap="viridis", scale="linear"):
    """matplotlib's colour for `value` with limits vmin, vmax."""
    if scale == "log":
        value, vmin, vmax = np.log10(value), np.log10(vmin), np.log10(vmax)
    t = (value - vmin) / (vmax - vmin)
    return tuple(int(c) for c in colormaps[cmap](float(np.clip(t, 0, 1)), bytes=True)[:3])


def check_cells(info, pixels, values, cmap="viridis", scale="linear"):
    vmin, vmax = info["scale"]["vmin"], info["scale"]["vmax"]
    rows, cols = values.shape
    for r in range(rows):
        for c in range(cols):
            y, x = cell_centre(info, r, c)
            want = MAGENTA if np.isnan(values[r, c]) else expected_colour(
                values[r, c], vmin, vmax, cmap, scale)
            assert tuple(pixels[y, x]) == want, (r, c, values[r, c], tuple(pixels[y, x]), want)


@pytest.fixture
def blocks(tmp_path):
    """A 6 x 8 float64 array of distinct values, in HDF5."""
    values = np.arange(48, dtype="<f8").reshape(6, 8) * 1.5 - 20
    path = tmp_path / "blocks.h5"
    with h5py.File(path, "w") as f:
        f["v"] = values
    return path, values


def test_heatmap_cells_have_the_colour_maps_colours(tmp_path, blocks):
    path, values = blocks
    info, pixels = plot(tmp_path, path, "/v")
    assert info["kind"] == "heatmap" and info["shown"] == [6, 8] and info["step"] == [1, 1]
    assert info["scale"] == {"kind": "linear", "vmin": values.min(), "vmax": values.max()}
    check_cells(info, pixels, values)


@pytest.mark.parametrize("cmap", ["magma", "inferno", "cividis", "grey", "coolwarm"])
def test_every_colour_map(tmp_path, blocks, cmap):
    path, values = blocks
    info, pixels = plot(tmp_path, path, "/v", "--colormap", cmap)
    check_cells(info, pixels, values, "gray" if cmap == "grey" else cmap)


def test_reversed_map_and_fixed_limits(tmp_path, blocks):
    path, values = blocks
    info, pixels = plot(tmp_path, path, "/v", "--reverse", "--vmin", "0", "--vmax", "30")
    assert info["scale"]["vmin"] == 0 and info["scale"]["vmax"] == 30
    check_cells(info, pixels, values, "viridis_r")  # below 0 and above 30: the ends


def test_log_scale_and_values_it_cannot_place(tmp_path):
    values = np.array([[1e-3, 1e-2, 1e-1], [1.0, 10.0, 0.0]])
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["v"] = values
    p = run("plot", str(path), "/v", "-o", str(tmp_path / "log.png"), "--log")
    assert p.returncode == 0, p.stderr
    assert "1 value not placed on the scale (at or below 0), shown in magenta" in p.stdout
    info, pixels = plot(tmp_path, path, "/v", "--scale", "log", name="log2.png")
    assert info["scale"]["vmin"] == 1e-3 and info["scale"]["vmax"] == 10
    assert info["not_shown"] == 1
    check_cells(info, pixels, np.where(values > 0, values, np.nan), scale="log")


def test_nan_is_shown_apart(tmp_path):
    values = np.array([[0.0, np.nan], [np.nan, 1.0]], dtype="<f4")
    path = tmp_path / "nan.npy"
    np.save(path, values)
    info, pixels = plot(tmp_path, path, "/")
    assert info["not_numbers"] == 2
    check_cells(info, pixels, values.astype("f8"))


def test_selection_of_a_3d_array_and_its_step(tmp_path):
    """A 2-D selection of a 3-D array; a side longer than the pixels is read every k-th."""
    cube = np.random.default_rng(3).normal(size=(3, 1000, 50)).astype("<f4")
    path = tmp_path / "cube.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("c", data=cube, chunks=(1, 100, 50), compression="gzip")
    info, pixels = plot(tmp_path, path, "/c[2, :, ::-1]", "--size", "400x300")
    rows_step = info["step"][0]
    assert rows_step > 1 and info["selected"] == [1000, 50]
    assert info["shown"] == [len(range(0, 1000, rows_step)), 50]
    shown = cube[2, ::rows_step, ::-1].astype("f8")
    assert info["y_axis"]["step"] == rows_step and info["x_axis"] == {
        "name": "axis 2", "start": 49, "step": -1, "coordinates": False}
    vmin, vmax = info["scale"]["vmin"], info["scale"]["vmax"]
    assert (vmin, vmax) == (shown.min(), shown.max())
    # More rows than pixel rows: each pixel shows the element under its centre.
    area, (rows, cols) = info["plot"], info["shown"]
    assert rows > area["height"]
    for py in range(0, area["height"], 17):
        for px in range(0, area["width"], 13):
            r = int((py + 0.5) * rows / area["height"])
            c = int((px + 0.5) * cols / area["width"])
            got = tuple(pixels[area["y"] + py, area["x"] + px])
            assert got == expected_colour(shown[r, c], vmin, vmax), (py, px, r, c)


def test_line_plot_passes_through_its_values(tmp_path):
    values = np.array([0.0, 3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0])
    path = tmp_path / "line.npy"
    np.save(path, values)
    info, pixels = plot(tmp_path, path, "/")
    assert info["kind"] == "line" and info["shown"] == [10]
    area, scale = info["plot"], info["scale"]
    # Auto limits leave 5% of the range above and below.
    assert scale["vmin"] == pytest.approx(-0.45) and scale["vmax"] == pytest.approx(9.45)
    for i, v in enumerate(values):
        x = area["x"] + int((i + 0.5) * area["width"] / 10)
        y = round(area["y"] + (1 - (v - scale["vmin"]) / (scale["vmax"] - scale["vmin"])) *
                  (area["height"] - 1))
        near = pixels[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3)
        assert any(tuple(p) == (31, 119, 180) for p in near), (i, v)


def test_long_line_keeps_its_spikes(tmp_path):
    """More values than pixel columns: each column draws its least and greatest value, so a
    lone spike is not stepped over."""
    values = np.zeros(100_000)
    values[54_321] = 1.0
    path = tmp_path / "spike.npy"
    np.save(path, values)
    info, pixels = plot(tmp_path, path, "/")
    assert info["step"] == [1]
    area = info["plot"]
    top = area["y"] + round((1 - (1 - info["scale"]["vmin"]) /
                             (info["scale"]["vmax"] - info["scale"]["vmin"])) * (area["height"] - 1))
    assert (pixels[top - 1:top + 2, area["x"]:area["x"] + area["width"]] ==
            (31, 119, 180)).all(axis=-1).any()


def test_rgb_picture(tmp_path):
    rgb = np.zeros((20, 30, 3), np.uint8)
    rgb[..., 0] = np.arange(30)[None, :] * 8
    rgb[..., 1] = np.arange(20)[:, None] * 12
    rgb[..., 2] = 77
    path = tmp_path / "rgb.h5"
    with h5py.File(path, "w") as f:
        f["img"] = rgb
    info, pixels = plot(tmp_path, path, "/img")
    assert info["kind"] == "rgb" and info["shown"] == [20, 30]
    for r in range(20):
        for c in range(30):
            y, x = cell_centre(info, r, c)
            assert tuple(pixels[y, x]) == tuple(rgb[r, c]), (r, c)


def test_axes_carry_dimension_names_and_coordinates(tmp_path):
    """netCDF dimensions and their coordinate variables name the axes and label the ticks."""
    netCDF4 = pytest.importorskip("netCDF4")
    path = tmp_path / "t.nc"
    with netCDF4.Dataset(path, "w") as d:
        d.createDimension("time", 2)
        d.createDimension("lat", 40)
        d.createDimension("lon", 60)
        d.createVariable("lat", "f8", ("lat",))[:] = np.linspace(-60, 60, 40)
        d.createVariable("lon", "f8", ("lon",))[:] = np.linspace(0, 354, 60)
        d.createVariable("T", "f4", ("time", "lat", "lon"))[:] = np.random.default_rng(1).normal(
            size=(2, 40, 60))
    info, pixels = plot(tmp_path, path, "/T[1]")
    assert info["y_axis"]["name"] == "lat" and info["y_axis"]["coordinates"] is True
    assert info["x_axis"]["name"] == "lon" and info["x_axis"]["coordinates"] is True
    area = info["plot"]
    ink = (pixels.sum(axis=-1) < 300)  # dark text and frame pixels
    below = ink[area["y"] + area["height"] + 4:, area["x"]:area["x"] + area["width"]]
    left = ink[area["y"]:area["y"] + area["height"], :area["x"] - 2]
    above = ink[:area["y"] - 2, area["x"]:area["x"] + area["width"]]
    assert below.sum() > 100 and left.sum() > 100 and above.sum() > 20  # ticks, names, title


@pytest.mark.parametrize("item, message", [
    ("/c", "selects 3 dimensions: a figure draws 1 (a line) or 2"),
    ("/c[0, 0, 0]", "selects 0 dimensions"),
    ("/s", "a figure draws numbers"),
    ("/nothing", "no item /nothing"),
])
def test_what_cannot_be_drawn_is_refused(tmp_path, item, message):
    path = tmp_path / "bad.h5"
    with h5py.File(path, "w") as f:
        f["c"] = np.zeros((2, 3, 4))
        f["s"] = np.array([b"ab", b"cd"])
    out = tmp_path / "never.png"
    p = run("plot", str(path), item, "-o", str(out))
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not out.exists()  # no half-written picture
    p = run("plot", str(path), item, "-o", str(out), "--json")
    assert p.returncode == 2 and message in json.loads(p.stdout)["error"]["message"]


@pytest.mark.parametrize("options, message", [
    (["--colormap", "rainbow"], "no colour map called 'rainbow' (there are viridis"),
    (["--size", "50x40"], "leaves no room to plot in"),
    (["--size", "huge"], "give the width and height in pixels"),
    (["--vmin", "2", "--vmax", "1"], "--vmin 2 is above --vmax 1"),
    (["--log", "--vmin", "-1"], "a log scale's limits must be above 0"),
])
def test_bad_options_are_refused(tmp_path, blocks, options, message):
    path, _ = blocks
    out = tmp_path / "never.png"
    p = run("plot", str(path), "/v", "-o", str(out), *options)
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not out.exists()


def test_text_output_says_what_was_drawn(tmp_path, blocks):
    path, values = blocks
    out = tmp_path / "t.png"
    p = run("plot", str(path), "/v", "-o", str(out), "--size", "640x480")
    assert p.returncode == 0
    assert p.stdout == (f"{out}: 640 x 480 pixels, heatmap of /v 6 x 8 values shown, linear scale "
                        f"from {values.min():g} to {values.max():g}\n")
    assert os.path.getsize(out) > 0


def test_every_format_draws_the_same_picture(tmp_path):
    """The same values from HDF5, Zarr, .npy and a Dudley layout over raw bytes give the same
    pixels (the figures differ only in their text chunks)."""
    values = np.sin(np.arange(30 * 40).reshape(30, 40) / 50.0)
    files = {}
    files["h5"] = tmp_path / "a.h5"
    with h5py.File(files["h5"], "w") as f:
        f["x"] = values
    np.save(tmp_path / "a.npy", values)
    raw = tmp_path / "a.bin"
    values.astype("<f8").tofile(raw)
    (tmp_path / "a.dud").write_text("x = <f8[30, 40]\n")
    p = run("convert", str(files["h5"]), str(tmp_path / "a.zarr"))
    assert p.returncode == 0, p.stderr
    sources = [(files["h5"], "/x", []), (tmp_path / "a.npy", "/", []),
               (tmp_path / "a.zarr", "/x", []), (raw, "/x", ["--layout", str(tmp_path / "a.dud")])]
    pictures = []
    for i, (path, item, extra) in enumerate(sources):
        _, pixels = plot(tmp_path, path, item, *extra, "--title", "same", name=f"p{i}.png")
        pictures.append(pixels)
    for other in pictures[1:]:
        assert np.array_equal(pictures[0], other)


def test_notebook_preview_of_arrays(tmp_path):
    """Array._repr_html_ shows the text repr and a small figure from the same renderer."""
    import base64
    import io
    import dudley
    values = np.arange(12.0).reshape(3, 4)
    path = tmp_path / "p.h5"
    with h5py.File(path, "w") as f:
        f["x"] = values
        f["cube"] = np.zeros((5, 3, 4))
        f["s"] = np.array([b"a", b"b"])
    f = dudley.open(str(path))
    html = f["x"]._repr_html_()
    assert html.startswith("<pre>&lt;dudley.Array /x &lt;f8 shape=(3, 4)&gt;</pre><img")
    png = base64.b64decode(html.split("base64,")[1].split('"')[0])
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert pixels.shape == (260, 360, 3)
    colours = {tuple(p) for p in pixels.reshape(-1, 3)}
    for v in values.ravel():  # every cell's colour is in the picture
        assert expected_colour(v, 0, 11) in colours, v
    assert "<img" in f["cube"]._repr_html_()  # the last two dimensions at index 0
    assert "no picture: " in f["s"]._repr_html_() and "a figure draws numbers" in f["s"]._repr_html_()


def test_masked_values_are_shown_apart(tmp_path):
    """An ASDF masked array: masked cells in cyan, the limits those of the values not masked
    (as numpy's masked arrays count them), the count said."""
    import asdf
    values = np.arange(12.0).reshape(3, 4)
    mask = np.zeros((3, 4), bool)
    mask[0, 0] = mask[2, 3] = mask[1, 2] = True  # the least and the greatest among them
    path = tmp_path / "m.asdf"
    asdf.AsdfFile({"m": np.ma.array(values, mask=mask)}).write_to(path)
    info, pixels = plot(tmp_path, path, "/m")
    assert info["masked"] == 3 and info["not_numbers"] == 0 and info["not_shown"] == 0
    shown = np.ma.array(values, mask=mask)
    assert info["scale"]["vmin"] == shown.min() and info["scale"]["vmax"] == shown.max()
    for r in range(3):
        for c in range(4):
            y, x = cell_centre(info, r, c)
            want = (0, 255, 255) if mask[r, c] else expected_colour(values[r, c], 1, 10)
            assert tuple(pixels[y, x]) == want, (r, c)
    p = run("plot", str(path), "/m", "-o", str(tmp_path / "t.png"))
    assert ", 3 masked values shown in cyan" in p.stdout


def test_missing_values_are_counted_once(tmp_path):
    """A CF variable whose _FillValue and missing_value agree (as netCDF4 writes them for
    many models): each missing cell counted once, as netCDF4's masked array counts it."""
    import netCDF4
    path = tmp_path / "cf.nc"
    values = np.arange(12.0).reshape(3, 4)
    values[0, 1] = values[2, 2] = -999.0
    with netCDF4.Dataset(path, "w") as d:
        d.createDimension("y", 3)
        d.createDimension("x", 4)
        v = d.createVariable("t", "f8", ("y", "x"), fill_value=-999.0)
        v.missing_value = -999.0
        v[...] = np.ma.masked_equal(values, -999.0)
    with netCDF4.Dataset(path) as d:
        peer = d["t"][...]
    info, _ = plot(tmp_path, path, "/t")
    assert info["missing"] == info["masked"] == np.ma.count_masked(peer) == 2
    shown = peer.compressed()
    assert (info["scale"]["vmin"], info["scale"]["vmax"]) == (shown.min(), shown.max())
    p = run("plot", str(path), "/t", "-o", str(tmp_path / "t.png"))
    assert ", 2 missing (_FillValue) values shown in cyan" in p.stdout


REALWORLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "realworld")


def realworld_arrays():
    """(file, path, values as the peer reads them) of every numeric array of 1 or 2
    dimensions in the files other projects wrote (h5py reads the HDF5 files, netCDF4 the
    netCDF ones, raw: no mask or scale applied)."""
    import netCDF4
    for name in sorted(os.listdir(REALWORLD)):
        path = os.path.join(REALWORLD, name)
        found = []
        if name.endswith(".nc"):
            def walk(group, prefix=""):
                for key, v in group.variables.items():
                    v.set_auto_maskandscale(False)
                    found.append((prefix + "/" + key, v[...]))
                for key, g in group.groups.items():
                    walk(g, prefix + "/" + key)
            with netCDF4.Dataset(path) as d:
                walk(d)
        elif name.endswith((".h5", ".hdf5")):
            with h5py.File(path) as f:
                # Datasets netCDF-4 writes for a dimension with no variable are no data.
                f.visititems(lambda key, o: found.append(("/" + key, o[()]))
                             if isinstance(o, h5py.Dataset) and not str(
                                 o.attrs.get("NAME", b"")).startswith(
                                 "b'This is a netCDF dimension but not a netCDF variable")
                             else None)
        for item, values in found:
            values = np.asarray(values)
            if values.dtype.kind in "biuf" and values.ndim in (1, 2) and values.size > 1:
                yield name, item, values


def fills(name, item, attribute):
    """The peer's value of `attribute` of the variable `item` of file `name`, or None."""
    import netCDF4
    with netCDF4.Dataset(os.path.join(REALWORLD, name)) as d:
        group = d
        parts = item.strip("/").split("/")
        for p in parts[:-1]:
            group = group.groups[p]
        v = group.variables.get(parts[-1])
        if v is None or attribute not in v.ncattrs():
            return None
        value = np.asarray(v.getncattr(attribute)).ravel()[0]
        # A fill value written as text (issue1152.nc: "-1.e+34f") marks nothing.
        return value if np.asarray(value).dtype.kind in "biuf" else None


@pytest.mark.parametrize("name, item, values",
                         [pytest.param(*a, id=f"{a[0]}:{a[1]}") for a in realworld_arrays()])
def test_real_files_other_projects_wrote(tmp_path, name, item, values):
    """Every 1-D and 2-D numeric array of the real-world files draws: a heatmap's corner
    cells in matplotlib's colours of the values the peer reads, a line's limits those of the
    values."""
    info, pixels = plot(tmp_path, os.path.join(REALWORLD, name), item)
    shown = values.astype("f8")[tuple(slice(None, None, s) for s in info["step"])]
    assert list(shown.shape) == info["shown"]
    # netCDF's missing data (_FillValue, missing_value): shown apart, out of the limits.
    missing = np.zeros(shown.shape, bool)
    for attribute in ("_FillValue", "missing_value"):
        fill = fills(name, item, attribute)
        if fill is not None:
            missing |= shown == np.float64(fill)
    assert info["missing"] == missing.sum()
    shown[missing] = np.nan
    finite = shown[np.isfinite(shown)]
    if values.ndim == 1:
        assert info["kind"] == "line"
        if finite.size and finite.min() < finite.max():
            pad = (finite.max() - finite.min()) * 0.05
            assert info["scale"]["vmin"] == pytest.approx(finite.min() - pad)
            assert info["scale"]["vmax"] == pytest.approx(finite.max() + pad)
        return
    assert info["kind"] == "heatmap"
    if finite.size == 0:
        return  # nothing but missing values: every cell cyan, checked by the count above
    lo, hi = finite.min(), finite.max()
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    assert (info["scale"]["vmin"], info["scale"]["vmax"]) == (lo, hi)
    rows, cols = shown.shape
    for r, c in ((0, 0), (rows - 1, cols - 1), (rows // 2, cols // 2)):
        y, x = cell_centre(info, r, c)
        if info["plot"]["height"] < rows or info["plot"]["width"] < cols:
            continue  # more cells than pixels: the cell may not own its centre pixel
        want = (0, 255, 255) if missing[r, c] else MAGENTA if not np.isfinite(shown[r, c]) \
            else expected_colour(shown[r, c], lo, hi) if lo < hi \
            else expected_colour(0.5, 0, 1)  # one value too large for +-0.5: the map's middle
        assert tuple(pixels[y, x]) == want, (r, c, shown[r, c])
