"""The type stubs (dudley/_native.pyi) declare every public name of the compiled module and
of its classes, so editors and type checkers see what the module has; where mypy is
installed (the PyPI stack), a user's script type-checks against them."""
import ast
import inspect
import os
import subprocess
import sys

import pytest

import dudley
from dudley import _native


def declared():
    """{class name: set of member names} and the module-level names of the stub."""
    path = os.path.join(os.path.dirname(dudley.__file__), "_native.pyi")
    tree = ast.parse(open(path).read())
    classes, names = {}, set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    members.add(item.target.id)
            for base in node.bases:  # what a class of the stub inherits is declared too
                if isinstance(base, ast.Name) and base.id in classes:
                    members |= classes[base.id]
            classes[node.name] = members
            names.add(node.name)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return classes, names


def test_stub_declares_every_public_name():
    classes, names = declared()
    for name, value in vars(_native).items():
        if name.startswith("__"):
            continue
        assert name in names, f"{name} is missing from _native.pyi"
        if inspect.isclass(value) and not issubclass(value, BaseException):
            own = {m for m in vars(value) if not m.startswith(("__", "_pybind11")) or m in (
                "__getitem__", "__len__", "__iter__", "__contains__", "__enter__", "__exit__",
                "__array__")}
            missing = own - classes[name]
            assert not missing, f"{name}: {sorted(missing)} missing from _native.pyi"


def test_a_users_script_type_checks(tmp_path):
    pytest.importorskip("mypy", reason="mypy is on the PyPI stack only")
    good = tmp_path / "good.py"
    good.write_text(
        "import numpy as np\nimport dudley._native as n\n"
        "f: n.File = n.open('x.h5')\n"
        "a = f['x']\n"
        "if isinstance(a, n.Array):\n"
        "    shape: tuple[int, ...] = a.shape\n"
        "    c: tuple[int, ...] | None = a.chunks\n"
        "    d: np.dtype = a.dtype\n")
    bad = tmp_path / "bad.py"
    bad.write_text("import dudley._native as n\nn.open(3)\n")
    package_dir = os.path.dirname(os.path.dirname(dudley.__file__))
    env = dict(os.environ)
    if "site-packages" not in package_dir:  # a build tree on PYTHONPATH, not installed
        env["MYPYPATH"] = package_dir
    for path, ok in ((good, True), (bad, False)):
        r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                            "--cache-dir", str(tmp_path / "cache"), str(path)],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
        assert (r.returncode == 0) == ok, r.stdout + r.stderr
