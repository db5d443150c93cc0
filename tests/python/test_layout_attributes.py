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
    # Each attribute below its item (and its doc), its value in canonical text: the
    # byte order spelled out, a float as the shortest text of its bits.
    assert p.stdout == (
        '#@ title: "run 7"\n'
        "N := 3\n"
        '#@ units: "cells"\n'
        "x = <f4[N]  #! temperature\n"
        '#@ units: "K"\n'
        "#@ _FillValue: <f4 1e+20\n"
        "#@ valid_range: <f4 [200.0, 350.0]\n"
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
