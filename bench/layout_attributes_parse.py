#!/usr/bin/python3
"""Issue 64: what `#@` attributes cost a layout's reader.

Two layouts of 100,000 arrays, 100 to a group (`gNNN /`, `  dNNNNN = <f8[3, 4]`, `..`): the
plain one, and the same with three attributes below every array, as a conversion from a CF
netCDF file writes them (`#@ units: "m"`, `#@ scale_factor: <f4 0.5`, `#@ valid_range: <f8
[0.0, 1.0]`). Two measures, each in fresh processes, the file read right before (page
cache warm), medians of RUNS runs in alternating order:
- the parse a layout's readers pay on every open (bench/parse_once: the parse alone, the
  attributes kept as text until the binder reads them);
- `dudley check` as a whole command, which reads every attribute's value to report its
  mistakes.
Printed: both times of each and the ratio with / without attributes.

Target (issue 64): the parse with attributes takes at most 1.5x the plain one.

Usage: layout_attributes_parse.py BUILD_DIR [WORKDIR] [RUNS] [ARRAYS]
"""
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_runs import arguments_with_numbers, clean, wall, warm  # noqa: E402
import results  # noqa: E402

BUILD, WORK, OWN_WORK, numbers = arguments_with_numbers(sys.argv, "layout-attributes-")
RUNS = int(numbers[0]) if numbers else 11
ARRAYS = int(numbers[1]) if len(numbers) > 1 else 100000
DUDLEY = os.path.join(BUILD, "dudley")
PARSE_ONCE = os.path.join(BUILD, "bench", "parse_once")
ATTRIBUTES = ('  #@ units: "m"\n', "  #@ scale_factor: <f4 0.5\n",
              "  #@ valid_range: <f8 [0.0, 1.0]\n")


def write_layouts():
    plain, with_attributes = [], []
    for i in range(ARRAYS):
        if i % 100 == 0:
            if i:
                plain.append("..\n")
                with_attributes.append("..\n")
            plain.append(f"g{i // 100:03d} /\n")
            with_attributes.append(f"g{i // 100:03d} /\n")
        line = f"  d{i:05d} = <f8[3, 4]\n"
        plain.append(line)
        with_attributes.append(line)
        with_attributes.extend(ATTRIBUTES)
    plain.append("..\n")
    with_attributes.append("..\n")
    with open("plain.dud", "w") as f:
        f.write("".join(plain))
    with open("attributes.dud", "w") as f:
        f.write("".join(with_attributes))


def main():
    os.makedirs(WORK, exist_ok=True)
    os.chdir(WORK)
    write_layouts()
    sizes = {name: os.path.getsize(name) for name in ("plain.dud", "attributes.dud")}
    print(f"{ARRAYS} arrays: plain {sizes['plain.dud'] / 1e6:.1f} MB, with 3 attributes per "
          f"array {sizes['attributes.dud'] / 1e6:.1f} MB; medians of {RUNS} fresh processes")

    def parse_once(name):
        warm(name)
        out = subprocess.run([PARSE_ONCE, name], check=True, capture_output=True,
                             text=True).stdout.split()
        return float(out[0])

    measures = [("dudley check, whole command", lambda name: wall([DUDLEY, "check", name], [name]),
                 None)]
    if os.path.exists(PARSE_ONCE):
        measures.insert(0, ("parse (bench/parse_once)", parse_once, 1.5))
    else:
        print(f"  ({PARSE_ONCE} is not built: configure with -DDUDLEY_BENCH=ON for the parse)")
    for what, measure, target in measures:
        plain, attributes = [], []
        for run in range(RUNS):
            order = [("plain.dud", plain), ("attributes.dud", attributes)]
            for name, into in order if run % 2 == 0 else reversed(order):
                into.append(measure(name))
        a = statistics.median(plain)
        b = statistics.median(attributes)
        ratio = b / a
        verdict = f" (target <= {target}x: {'met' if ratio <= target else 'NOT met'})" \
            if target else ""
        print(f"  {what:30} plain {a * 1000:7.1f} ms, attributes {b * 1000:7.1f} ms: "
              f"{ratio:.2f}x{verdict}")
        results.record(f"{what} of {ARRAYS} arrays with 3 #@ attributes each, fresh process",
                       b * 1000, "the same layout without attributes", a * 1000,
                       f"<= {target}x" if target else "", ratio <= target if target else None,
                       RUNS, ratio=1 / ratio)
    if OWN_WORK:
        os.chdir("/")
        clean(WORK)


if __name__ == "__main__":
    main()
