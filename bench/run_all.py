"""`make bench`: every bench on the harness, then the scale test, then bench/results.md.

    make bench                                   # 5 rounds x 5 s per measurement
    make bench BENCH_ARGS="--rounds 5 --seconds 3"

A bench_*.py that does not use bench.harness yet is listed as skipped, not run.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

from bench import harness


def bench_modules() -> tuple[list[str], list[str]]:
    """(modules on the harness, files that are not) among bench/bench_*.py."""
    on, off = [], []
    for file in sorted((harness.ROOT / "bench").glob("bench_*.py")):
        (on if "bench.harness" in file.read_text() else off).append(file.stem)
    return on, off


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--args", default="", help="options given to every bench")
    parser.add_argument("--no-scale", action="store_true")
    parser.add_argument("--scale-args", default="")
    args = parser.parse_args(argv)

    harness.OUT_DIR.mkdir(exist_ok=True)
    for old in harness.OUT_DIR.glob("*.json"):
        old.unlink()
    on, off = bench_modules()
    failures = dict.fromkeys(off, "not on the harness yet (skipped)")
    for module in on:
        print(f"\n===== {module} =====", flush=True)
        code = subprocess.call(  # noqa: S603 - our interpreter, our modules
            [sys.executable, "-m", f"bench.{module}", *shlex.split(args.args)], cwd=harness.ROOT
        )
        if code not in (0, 2):  # 2: a case refused, already in its JSON
            failures[module] = f"exited with {code}"
    if not args.no_scale:
        print("\n===== scale =====", flush=True)
        code = subprocess.call(  # noqa: S603
            [sys.executable, "-m", "bench.scale", *shlex.split(args.scale_args)],
            cwd=harness.ROOT,
        )
        if code not in (0, 1):  # 1: a timing over its goal, already in its JSON
            failures["scale"] = f"exited with {code}"
    text = harness.write_results(failures=failures)
    print("\n" + text)
    print(f"written: {harness.RESULTS_MD.relative_to(harness.ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
