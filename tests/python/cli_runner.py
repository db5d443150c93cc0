"""Running the command-line tool (and other programs) from the Python tests: without the
sanitizer runtime the interpreter has preloaded in the ASan build (the tool links its own;
two runtimes in one process refuse to start)."""
import os
import subprocess

DUDLEY = os.environ.get("DUDLEY_BIN", "dudley")
ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def run(*args, env=None, **kw):
    """`dudley ARGS...`, its output captured as text."""
    return subprocess.run([DUDLEY, *args], capture_output=True, text=True, env=env or ENV, **kw)


def program(*args, env=None, **kw):
    """Another program (h5dump, ncgen, ncdump), its output captured as text."""
    return subprocess.run(list(args), capture_output=True, text=True, env=env or ENV, **kw)
