"""Writes `make bench`'s table of ratios into docs/performance.md.

Usage: write_table.py RESULTS DOC
RESULTS holds the JSON lines bench/results.py recorded during the run. The table, the
machine and the peers' versions replace what stands between the two markers below in DOC
(added at the top of the document the first time); the rest of DOC is kept as it is.
"""
import datetime
import json
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_versions  # noqa: E402

START = "<!-- make bench: the table below is written by bench/write_table.py -->"
END = "<!-- make bench: end of the table -->"


def number(v):
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({model or platform.machine()}), Linux {platform.release()}"


def table(results):
    lines = ["| benchmark (command) | case | dudley | peer | peer's | dudley is | target | runs |",
             "|---|---|---:|---|---:|---:|---|---:|"]
    met = missed = 0
    for r in results:
        target = r["target"] or ""
        if r["met"] is True:
            target += ": met"
            met += 1
        elif r["met"] is False:
            target += ": **not met**"
            missed += 1
        unit = r["unit"]
        lines.append(f"| `{r['command']}` | {r['case']} | {number(r['ours'])} {unit} | {r['peer']} "
                     f"| {number(r['theirs'])} {unit} | {r['ratio']:.2f}x | {target} "
                     f"| {r['runs'] or ''} |")
    return "\n".join(lines), met, missed


def main():
    results_path, doc_path = sys.argv[1], sys.argv[2]
    with open(results_path) as f:
        results = [json.loads(line) for line in f if line.strip()]
    rows, met, missed = table(results)
    today = datetime.date.today().isoformat()
    section = "\n".join([
        START,
        f"## Latest `make bench` ({today})",
        "",
        f"Written by `make bench` (bench/run.sh, then bench/write_table.py) on {machine()}: "
        f"{len(results)} comparisons, {met} targets met, {missed} not met. \"dudley is\" is how "
        "many times faster (or better) dudley is than the peer, measured in the same run; each "
        "row names the command that measured it and how many runs its median (or best) took. "
        "The machine is shared: compare ratios, not times, between days. Older figures, with "
        "their analysis, follow in the sections below.",
        "",
        rows,
        "",
        "Peers:",
        "",
        peer_versions.markdown(),
        END,
    ])
    with open(doc_path) as f:
        doc = f.read()
    if START in doc and END in doc:
        before, rest = doc.split(START, 1)
        after = rest.split(END, 1)[1]
        doc = before + section + after
    else:
        # After the document's title and its first paragraph.
        title, _, rest = doc.partition("\n\n")
        intro, _, tail = rest.partition("\n\n")
        doc = title + "\n\n" + intro + "\n\n" + section + "\n\n" + tail
    with open(doc_path, "w") as f:
        f.write(doc)
    print(f"wrote the table of {len(results)} comparisons ({met} targets met, {missed} not) "
          f"to {doc_path}")


if __name__ == "__main__":
    main()
