"""Every ```python example of docs/python.md and the README runs, in order in one fresh
directory (later blocks use what earlier ones made), so the documentation cannot drift
from the module."""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def blocks(doc):
    return re.findall(r"```python\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.S)


def test_docs_python_examples_run(tmp_path):
    for doc in ("docs/python.md", "README.md"):
        code = "\n".join(blocks(doc))
        assert code, f"{doc} has no python examples"
        # One script in a new directory, run from -c so that Dask's spawned worker processes
        # do not run it again (a user's script file guards with `if __name__ == "__main__"`).
        script = tmp_path / (pathlib.Path(doc).stem + "_examples.py")
        script.write_text(code)
        run_in = tmp_path / pathlib.Path(doc).stem
        run_in.mkdir()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
        run = f"p = {str(script)!r}\nexec(compile(open(p).read(), p, 'exec'))"
        r = subprocess.run([sys.executable, "-c", run], cwd=run_in, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"{doc}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
