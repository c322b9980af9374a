"""Python's overhead per call against the C++ API, CPU backend: the median of session.run from Python beside
bench's end-to-end median (Session::run_timed's wall time: copy in, the steps, copy out) on the same model, batch
and threads, measured back to back (README, "Python").

    PYTHONPATH=build/python .venv-py/bin/python tools/python_overhead.py [--build build] [--threads 1] [--batch 1]
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import tempfile
import time

import numpy as np

import inferengine as ie

REPO = pathlib.Path(__file__).resolve().parents[1]


def cpp_p50_ms(bench, config, batch, threads, ms):
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "bench.json"
        subprocess.run([str(bench), "--config", str(config), "--paths", "cpu", "--threads", str(threads),
                        "--batches", str(batch), "--duration-ms", str(ms), "--json", str(out)],
                       check=True, capture_output=True)
        return json.loads(out.read_text())["results"][0]["end_to_end"]["p50_ms"]


def python_p50_ms(config, batch, threads, ms):
    engine = ie.Engine.load(config, backend="cpu", threads=threads, preprocess=False)  # bench's input: the model's
    session = engine.session()
    rng = np.random.default_rng(0)
    sets = [{i.name: rng.standard_normal((batch, *i.shape[1:])).astype(i.dtype) for i in engine.inputs}
            for _ in range(3)]
    end = time.perf_counter() + 0.2
    while time.perf_counter() < end:  # warm-up: plan, caches
        session.run(sets[0])
    times = []
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end or len(times) < 5:
        feed = sets[len(times) % len(sets)]
        t0 = time.perf_counter_ns()
        session.run(feed)
        times.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=str(REPO / "build"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--ms", type=int, default=3000, help="timed duration per side")
    p.add_argument("--rounds", type=int, default=3, help="C++ then Python, this many times (the machine is shared)")
    a = p.parse_args()
    bench = pathlib.Path(a.build) / "bin" / "bench"
    print(f"{'model':8} {'batch':>5} {'threads':>7} | {'C++ run ms':>10} {'Python run ms':>13} | overhead us")
    for model in ("convnet", "ssa"):
        config = REPO / "configs" / f"{model}.yaml"
        for _ in range(a.rounds):
            cpp = cpp_p50_ms(bench, config, a.batch, a.threads, a.ms)
            py = python_p50_ms(config, a.batch, a.threads, a.ms)
            print(f"{model:8} {a.batch:>5} {a.threads:>7} | {cpp:10.4f} {py:13.4f} | {1000 * (py - cpp):8.1f}")


if __name__ == "__main__":
    main()
