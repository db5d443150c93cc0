"""Attributes in layouts (issue 64, item 1): `#@ name: value` comments are read by `dudley
check`, which reports a mistake as bad-attribute (or a name given twice to one item as
duplicate-attribute) at its line and column (text and --json, exit 1), while a layout with
correct ones checks as before; `fmt` writes each below its item, one a line."""
import json

from cli_runner import run

GOOD = """#@ title: "run 7"
N := 3  #@ units: "cells"
x = <f4[N]   #! temperature
             #@ units: "K"
             #@ _FillValue: <f4 1e20
             #@ valid_range: <f4 [200, 350]
             #@ history: {created: "2026-11-29", by: ["model", "dudley"]}
"""


def test_attributes_check_and_are_kept_by_fmt(tmp_path):
    path = tmp_path / "a.dud"
    path.write_text(GOOD)
    p = run("check", str(path))
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stdout + p.stderr
    p = run("fmt", str(path))
    assert p.returncode == 0, p.stderr
    # Each attribute below its item (and its doc), its text as the author wrote it.
    assert p.stdout == (
        '#@ title: "run 7"\n'
        "N := 3\n"
        '#@ units: "cells"\n'
        "x = <f4[N]  #! temperature\n"
        '#@ units: "K"\n'
        "#@ _FillValue: <f4 1e20\n"
        "#@ valid_range: <f4 [200, 350]\n"
        '#@ history: {created: "2026-11-29", by: ["model", "dudley"]}\n'
    )
    path.write_text(p.stdout)
    assert run("fmt", "--check", str(path)).returncode == 0


def test_a_name_given_twice_to_one_item(tmp_path):
    path = tmp_path / "d.dud"
    path.write_text('#@ a: 1\nx = f8  #@ units: "K"\n        #@ units: "m"\n#@ a: 2\n')
    p = run("check", str(path))
    assert p.returncode == 1
    assert "d.dud:3:9: error: attribute 'units' is given twice to one item [duplicate-attribute]" in p.stderr
    d = json.loads(run("check", "--json", str(path)).stdout)[0]["diagnostics"]
    # The second `a` follows x, so it is x's, not the file's second `a`.
    assert [(x["code"], x["line"], x["column"]) for x in d] == [("duplicate-attribute", 3, 9)]


def test_a_mistake_is_named_at_its_place(tmp_path):
    cases = {
        'x = f8   #@ units: K\n': (1, 20, "'K' is not a value"),
        'x = f8\n#@ range: <f4 [1, [2]]\n': (2, 19, "rectangular"),
        'x = f8   #@ n: i1 300\n': (1, 19, "not an integer of i1"),
        '#@ "open: 1\nx = f8\n': (1, 4, "no closing quote"),
    }
    for text, (line, column, words) in cases.items():
        path = tmp_path / "b.dud"
        path.write_text(text)
        p = run("check", str(path))
        assert p.returncode == 1, text
        assert f"b.dud:{line}:{column}: error: attribute: " in p.stderr, (text, p.stderr)
        assert words in p.stderr and "[bad-attribute]" in p.stderr, (text, p.stderr)
        p = run("check", "--json", str(path))
        d = json.loads(p.stdout)[0]["diagnostics"][0]
        assert (d["code"], d["line"], d["column"]) == ("bad-attribute", line, column), text


# ---- Dudley data with attributes, as every reader shows them ----

def write_pair(tmp_path, layout, data=b""):
    (tmp_path / "d.dud").write_text(layout)
    (tmp_path / "d.bin").write_bytes(data)
    return str(tmp_path / "d.bin")


def test_readers_show_attributes_in_text_and_json(tmp_path):
    import numpy as np
    data = write_pair(tmp_path, '#@ title: "run 7"\n'
                      'N := 3  #! cells\n        #@ long_name: "cell count"\n'
                      'x = <f4[N]  #@ units: "K"\n'
                      '            #@ valid_range: <f4 [200, 350]\n'
                      'g /  #@ about: {a: [1, "x"]}\n  y = >i2  #@ flags: u1 [1, 2]\n..\n',
                      np.array([250, 260, 270], "<f4").tobytes() + b"\x00\x07")
    p = run("ls", data)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["/", "group", '{title="run', '7"}'], lines
    assert any(l.startswith("/N ") and 'parameter = 3 {long_name="cell count"}  # cells' in l
               for l in lines), lines
    # A shape naming parameters names the array's dimensions (xarray's dims, Zarr's
    # dimension_names), after the layout's own attributes.
    assert any(l.startswith("/x ") and
               '{units="K", valid_range=[200.0,350.0], dimension_names=["N"]}' in l
               for l in lines), lines
    assert any(l.startswith("/g ") and '{about={"a":[1,"x"]}}' in l for l in lines), lines
    d = json.loads(run("ls", "--json", data).stdout)["root"]
    assert d["attributes"] == {"title": "run 7"}
    assert d["params"]["N"]["attributes"] == {"long_name": "cell count"}
    assert d["members"]["x"]["attributes"]["valid_range"] == {
        "dtype": "<f4", "shape": [2], "data": [200.0, 350.0]}
    assert d["members"]["g"]["members"]["y"]["attributes"]["flags"]["dtype"] == "|u1"
    p = run("dump", data, "/x")
    assert p.returncode == 0 and p.stdout.strip() == "/x = [250.0,260.0,270.0]", p.stdout
    import dudley
    f = dudley.open(data)
    assert f.params["N"] == 3 and dict(f.param_attrs["N"]) == {"long_name": "cell count"}
    assert dict(f.attrs) == {"title": "run 7"}
    assert f["g"].attrs["about"] == {"a": [1, "x"]}
    assert f["g/y"].attrs["flags"].tolist() == [1, 2]


def test_an_attribute_that_reads_as_none_is_named_where_it_is(tmp_path):
    # `ls` keeps the text of attributes until it binds them: a mistake is then an unreadable
    # attribute of its item, named with its layout line and column, and ls exits 1.
    data = write_pair(tmp_path, 'x = <f4  #@ units: K\n          #@ ok: 1\n', b"\0\0\0\0")
    p = run("ls", data)
    assert p.returncode == 1
    assert "x=ERROR" not in p.stdout and "units=ERROR" in p.stdout, p.stdout
    assert "d.dud:1:20" in p.stderr and "'K' is not a value" in p.stderr, p.stderr
    # A name given twice to one item: the second is refused the same way.
    data = write_pair(tmp_path, 'x = <f4  #@ units: "K"\n          #@ units: "m"\n', b"\0\0\0\0")
    p = run("ls", "--json", data)
    assert p.returncode == 1
    assert "given twice" in p.stdout + p.stderr


def test_python_attrs_and_convert_back(tmp_path):
    import numpy as np
    import dudley
    data = write_pair(tmp_path, '#@ title: "run 7"\n'
                      'x = <f4[3]  #@ units: S1[4] "K"\n'
                      '            #@ scale: >f8 0.5\n'
                      '            #@ names: S1 ["a", "bc"]\n',
                      np.arange(3, dtype="<f4").tobytes())
    f = dudley.open(data)
    assert dict(f.attrs) == {"title": "run 7"}
    assert f["x"].attrs["units"] == "K"
    assert f["x"].attrs["scale"] == 0.5 and f["x"].attrs["scale"].dtype == np.float64
    import h5py
    out = str(tmp_path / "x.h5")
    p = run("convert", data, out)
    assert p.returncode == 0, p.stderr
    with h5py.File(out) as h:  # the stored types, as h5py reads them
        assert h.attrs["title"] == "run 7"
        assert h["x"].attrs["units"] == b"K"
        assert h["x"].attrs.get_id("units").get_type().get_size() == 4
        assert h["x"].attrs.get_id("scale").dtype == np.dtype(">f8")  # as stored
        assert [x.decode() if isinstance(x, bytes) else x for x in h["x"].attrs["names"]] == \
            ["a", "bc"]


def test_dudley_layout_writes_the_attributes_it_can_hold(tmp_path):
    import h5py
    import numpy as np
    src = str(tmp_path / "a.h5")
    with h5py.File(src, "w") as f:
        f.attrs["title"] = "run"
        x = f.create_dataset("x", data=np.arange(3.0))
        x.attrs["units"] = np.bytes_("m")
        x.attrs["self"] = x.ref  # an object reference: no `#@` form
    out = str(tmp_path / "a.dud")
    p = run("layout", src, "-o", out)
    assert p.returncode == 0, p.stderr
    text = open(out).read()
    assert '#@ title: "run"\n' in text and 'x = <f8[3] @ ' in text, text
    assert '#@ units: S1[1] "m"\n' in text, text
    assert "note: /x@self: not laid out: attribute not written (an attribute of objref" in p.stderr
    d = json.loads(run("layout", "--json", src).stdout)
    assert {"path": "/x@self", "damaged": False} == {k: v for k, v in d["skipped"][0].items()
                                                     if k != "reason"}, d
    # Read through it: the attributes are the layout's.
    p = run("ls", "--json", src, "--layout", out)
    assert json.loads(p.stdout)["root"]["members"]["x"]["attributes"]["units"] == "m", p.stdout


def test_names_and_values_from_a_file_stay_attribute_text(tmp_path):
    # Line ends, `#@`, quotes and controls in a source's attribute names and values are escaped:
    # they can never become a declaration or another attribute of the layout.
    import h5py
    import numpy as np
    import dudley
    src = str(tmp_path / "evil.h5")
    evil = {"x\ny = f8[1000]": "a\n#@ b: 1\nz = i4", 'q"\\': "\x01\r\t", "#! doc": "#@ c: 2"}
    with h5py.File(src, "w") as f:
        d = f.create_dataset("d", data=np.arange(2, dtype="<i2"))
        for k, v in evil.items():
            d.attrs[k] = v
    out = str(tmp_path / "evil.bin")
    p = run("convert", src, out)
    assert p.returncode == 0, p.stderr
    layout = (tmp_path / "evil.dud").read_text()
    declarations = [l for l in layout.splitlines() if l and not l.lstrip().startswith("#")]
    assert declarations == ["!DUDLEY := S1[8]", "d = i2[2]"], layout
    assert run("check", str(tmp_path / "evil.dud")).returncode == 0
    got = dict(dudley.open(out)["d"].attrs)
    assert got == evil, got
