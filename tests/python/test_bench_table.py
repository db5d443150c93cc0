"""make bench's table (bench/results.py records, bench/write_table.py writes): the figures a
run recorded land in docs/performance.md between the markers, once, the rest of the
document kept, and a second run replaces the first run's table."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")


def record(results_file, *calls):
    """Runs results.record/record_speedup calls in a process, as a benchmark script would."""
    code = "import results\n" + "\n".join(calls)
    env = dict(os.environ, DUDLEY_BENCH_RESULTS=str(results_file))
    subprocess.run([sys.executable, "-c", code], cwd=BENCH, env=env, check=True)


def test_records_become_one_table_replaced_by_the_next_run(tmp_path):
    results = tmp_path / "results.jsonl"
    record(results,
           "results.record_speedup('decode vs avsc', 0.010, 0.030, 2, 5)",
           "results.record_speedup('ls, netCDF-4 vs gdalmdiminfo', 0.020, 0.010)",
           "results.record('formatter', 24.0, 'Dragonbox', 64.0, '>= 50 M/s', False, 1, "
           "'M/s', 24.0 / 64.0)")
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [line["case"] for line in lines] == ["decode", "ls, netCDF-4", "formatter"]
    assert lines[0]["peer"] == "avsc" and lines[0]["ratio"] == 3.0 and lines[0]["met"] is True
    assert lines[1]["met"] is None and lines[1]["ratio"] == 0.5
    assert lines[2]["met"] is False and lines[2]["unit"] == "M/s"

    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nIntro.\n\n## Older figures\n\nKept.\n")
    write = [sys.executable, os.path.join(BENCH, "write_table.py"), str(results), str(doc)]
    out = subprocess.run(write, check=True, capture_output=True, text=True).stdout
    assert "3 comparisons (1 targets met, 1 not)" in out
    text = doc.read_text()
    assert text.startswith("# Performance\n\nIntro.\n\n<!-- make bench")
    assert text.endswith("## Older figures\n\nKept.\n")
    assert "| decode | 10.0 ms | avsc | 30.0 ms | 3.00x | >= 2x: met | 5 |" in text
    assert ">= 50 M/s: **not met**" in text
    assert "| peer | version | from |" in text

    # The next run's table replaces this one; nothing else moves.
    results.write_text("")
    record(results, "results.record_speedup('read vs fastavro', 0.010, 0.050, 2, 3)")
    subprocess.run(write, check=True, capture_output=True)
    again = doc.read_text()
    assert again.count("<!-- make bench: the table below") == 1
    assert "| decode |" not in again and "| read | 10.0 ms | fastavro |" in again
    assert again.endswith("## Older figures\n\nKept.\n")


def test_a_script_run_alone_records_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DUDLEY_BENCH_RESULTS"}
    subprocess.run([sys.executable, "-c", "import results; results.record_speedup('x vs y', 1, 2)"],
                   cwd=BENCH, env=env, check=True)
    assert not any(tmp_path.iterdir())
