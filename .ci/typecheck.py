"""mypy over the project (`make typecheck`, CI): strict on the kernels and every services and
selectors module (pyproject.toml, [tool.mypy]), with a baseline of modules still excused.

A module listed in .ci/mypy-baseline.txt may have at most the number of errors beside it (they
are counted, not shown unless --show-baseline); every other module must have none. The baseline
may only shrink: a listed module with more errors fails, and one with fewer fails too until its
count is lowered (`--write-baseline`, which refuses to add a module or raise a count), so a fix
is kept.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
PACKAGES = [
    "accounts",
    "clients",
    "common",
    "config",
    "debugtools",
    "erp",
    "integrations",
    "licensing",
    "store",
    "theme",
    "webhooks",
]
ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error: ")


def run_mypy() -> tuple[int, list[str]]:
    env = {**os.environ, "DEBUG": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *PACKAGES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode not in (0, 1):  # 2: mypy itself failed (configuration, crash)
        sys.stderr.write(result.stdout + result.stderr)
        sys.exit(result.returncode)
    return result.returncode, result.stdout.splitlines()


def read_baseline() -> dict[str, int]:
    if not BASELINE.exists():
        return {}
    baseline = {}
    for line in BASELINE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            path, count = line.split()
            baseline[path] = int(count)
    return baseline


def write_baseline(counts: dict[str, int]) -> None:
    header = (
        "# Modules excused from `make typecheck` (.ci/typecheck.py) and their errors at most.\n"
        "# It may only shrink: fix errors, then `python .ci/typecheck.py --write-baseline`.\n"
    )
    lines = "".join(f"{path} {count}\n" for path, count in sorted(counts.items()))
    BASELINE.write_text(header + lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-baseline", action="store_true")
    parser.add_argument("--show-baseline", action="store_true")
    args = parser.parse_args()

    _code, lines = run_mypy()
    errors: dict[str, list[str]] = collections.defaultdict(list)
    for line in lines:
        if match := ERROR.match(line):
            errors[match["path"]].append(line)
    baseline = read_baseline()
    counts = {path: len(found) for path, found in errors.items()}
    grown = {path: n for path, n in counts.items() if n > baseline.get(path, 0)}
    shrunk = {path: n for path, n in baseline.items() if counts.get(path, 0) < n}
    if args.write_baseline:
        if baseline and grown:
            print("The baseline may only shrink; these modules have more errors than it allows:")
            print("\n".join(f"  {path}: {n}" for path, n in sorted(grown.items())))
            return 1
        write_baseline(counts)
        print(f"{BASELINE.relative_to(ROOT)}: {len(counts)} modules, {sum(counts.values())} errors")
        return 0

    for path in sorted(grown):
        print("\n".join(errors[path]))
        if path in baseline:
            print(f"{path}: {grown[path]} errors, the baseline allows {baseline[path]}")
    if args.show_baseline:
        for path in sorted(set(errors) - set(grown)):
            print("\n".join(errors[path]))
    excused = sum(n for path, n in counts.items() if path not in grown)
    print(
        f"typecheck: {len(grown)} modules over the baseline; {excused} errors excused in "
        f"{len(set(counts) - set(grown))} baseline modules"
    )
    if shrunk:
        print("Fewer errors than the baseline allows (run it with --write-baseline to keep it):")
        print("\n".join(f"  {path}: {counts.get(path, 0)}" for path in sorted(shrunk)))
    return 1 if grown or shrunk else 0


if __name__ == "__main__":
    sys.exit(main())
