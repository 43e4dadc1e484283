"""Runs every walk-through block of the documentation against a fresh `make run` server.

A block marked to run (a fence whose info string starts with `sh run`, in README.md and
docs/**/*.md) is run as it is written, each on its own, with `bash -euo pipefail` from the
repository root, as a reader would paste it into another shell while `make run` serves:

    .venv/bin/python .ci/walkthroughs.py                        # every block, in document order
    .venv/bin/python .ci/walkthroughs.py --list                 # which blocks there are
    .venv/bin/python .ci/walkthroughs.py --only docs/api/store.md --only README.md:68

The server is what `make run` starts (migrate, seed_demo, runserver; DEBUG=1, FRONTEND_URL,
SQLite, eager Celery), on a database of its own: VAR_DIR points at a temporary directory, for
the server and for the blocks' `manage.py` commands alike, so the developer's var/ is not
touched. The docs name http://127.0.0.1:8000, so that is where it serves. Where the kernel
allows it (root, as on CI) the whole run goes into a network namespace of its own, with only a
loopback: port 8000 is free there whatever else runs on the machine, and a block that needs the
internet fails here rather than at random in CI. Without one (--no-netns, or not permitted)
port 8000 must be free.

A block fails when it exits non-zero (a command that fails, a variable never set, a reply
that is not the JSON a `python3 -c` reads), when it runs longer than --timeout, or when an
answer is one it does not expect: curl is the reader's curl behind a shim that records each
answer's status, and a 5xx (or no answer) fails the block, as does a 4xx whose status the block
does not name (a block that shows a refusal says so: `# 409 {"code": "built_in_role"...}`);
so does a 5xx the server logged while the block ran (a request made from Python). A failure
prints the block's file and line, its text, what it printed, the commands it ran last and the
tail of the server's log; the others still run. The last line is the summary:

    walkthroughs: 33 blocks, 33 passed, 0 failed
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PORT = 8000  # the address every block names: http://127.0.0.1:8000
BASE_URL = f"http://{HOST}:{PORT}"
MARK = ("sh", "run")
BLOCK_TIMEOUT = 60.0
SERVER_START_TIMEOUT = 60.0
IN_NETNS = "WALKTHROUGHS_IN_NETNS"
# What a plain shell keeps of the caller's environment: nothing of the settings (DEBUG,
# DATABASE_URL, REDIS_URL, FRONTEND_URL...), so a block that needs one must set it itself.
KEPT_ENV = ("PATH", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ")

OPENING = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    """A block marked to run: its document (relative to the root), the line of its opening
    fence (from 1) and its text, de-indented as Markdown reads it."""

    path: str
    line: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def last_line(self) -> int:
        """The line of the closing fence."""
        return self.line + self.text.count("\n") + 1


# --- Reading the documents --------------------------------------------------------------------


def extract(text: str, path: str) -> list[Block]:
    """The blocks marked `sh run` in one Markdown document, in order.

    Fenced code blocks as CommonMark reads them: an opening fence of three or more backticks or
    tildes, indented or not (a block inside a list item is indented with the item), closed by
    a fence of the same character at least as long; the lines inside lose the opening fence's
    indentation. A fence inside another block (a longer fence around it) is text, not a block.
    """
    found: list[Block] = []
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        opening = OPENING.match(lines[number])
        number += 1
        if not opening or (opening["fence"][0] == "`" and "`" in opening["info"]):
            continue
        indent, fence, info = len(opening["indent"]), opening["fence"], opening["info"]
        closing = re.compile(rf"^ *{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        start = number
        while number < len(lines) and not closing.match(lines[number]):
            number += 1
        if tuple(info.split()[: len(MARK)]) != MARK:
            number += 1
            continue
        if number == len(lines):
            raise ValueError(f"{path}:{start}: the block marked to run is never closed")
        body = "".join(_dedent(line, indent) + "\n" for line in lines[start:number])
        found.append(Block(path=path, line=start, text=body))
        number += 1
    return found


def _dedent(line: str, indent: int) -> str:
    """A line inside a fence without (up to) the fence's indentation."""
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, indent) :]


def documents(root: Path = ROOT) -> list[Path]:
    """README.md first, then docs/**/*.md in path order."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def collect(root: Path = ROOT) -> list[Block]:
    blocks: list[Block] = []
    for document in documents(root):
        if document.is_file():
            relative = document.relative_to(root).as_posix()
            blocks += extract(document.read_text(encoding="utf-8"), relative)
    return blocks


def select(blocks: list[Block], only: list[str]) -> list[Block]:
    """The blocks that `--only FILE[:LINE]` names: all of a file's, or the one whose fences
    enclose LINE. A selector that names no block is an error (a stale line number)."""
    if not only:
        return blocks
    chosen: list[Block] = []
    for selector in only:
        path, _, line = selector.partition(":")
        path = Path(path).as_posix().removeprefix("./")
        if line and not line.isdigit():
            raise ValueError(f"--only {selector}: LINE must be a number")
        matching = [
            block
            for block in blocks
            if block.path == path and (not line or block.line <= int(line) <= block.last_line)
        ]
        if not matching:
            raise ValueError(f"--only {selector}: no block marked to run there")
        chosen += [block for block in matching if block not in chosen]
    return [block for block in blocks if block in chosen]


# --- Judging the answers ------------------------------------------------------------------------

CURL_MARK = "@@walkthrough-answer "
CURL_RECORD = "%{stderr}" + CURL_MARK + "%{http_code} %{method} %{url_effective}\n"
RECORDED = re.compile(re.escape(CURL_MARK) + r"(\d{3}) (\S+) (\S+)\n")


def with_recording(args: list[str]) -> list[str]:
    """curl's arguments with a --write-out that records each answer on standard error. A block's
    own --write-out keeps its output (the record follows it, switched to standard error); one
    read from a file (@file) is left alone, unrecorded."""
    result = list(args)
    for index, arg in enumerate(result):
        if arg in ("-w", "--write-out") and index + 1 < len(result):
            if result[index + 1].startswith("@"):
                return result
            result[index + 1] += CURL_RECORD
            return result
        if arg.startswith("-w") and len(arg) > 2:
            if arg[2:].startswith("@"):
                return result
            result[index] = arg + CURL_RECORD
            return result
    return [*result, "--write-out", CURL_RECORD]


def curl_main(real: str, log: str, args: list[str]) -> int:
    """The shim: the real curl with its answers recorded in `log`; what it prints unchanged."""
    # stdin and stdout are the block's; standard error is read to take the records out.
    done = subprocess.run([real, *with_recording(args)], stderr=subprocess.PIPE, check=False)
    errors = done.stderr.decode("utf-8", "replace")
    with open(log, "a", encoding="utf-8") as records:
        records.writelines(" ".join(found.groups()) + "\n" for found in RECORDED.finditer(errors))
    sys.stderr.write(RECORDED.sub("", errors))
    return done.returncode


def unexpected(block_text: str, answers: list[str]) -> list[str]:
    """The recorded answers ("STATUS METHOD URL") that fail a block: no answer (000), a 5xx,
    or a 4xx whose status the block's text does not name."""
    bad = []
    for answer in answers:
        status = answer.split(" ", 1)[0]
        code = int(status)
        named = re.search(rf"(?<!\d)(?<!\d\.){status}(?!\d|\.\d)", block_text) is not None
        if code == 0 or code >= 500 or (code >= 400 and not named):
            bad.append(answer)
    return bad


SERVER_ERROR = re.compile(r'"[A-Z]+ \S+ HTTP/[\d.]+" 5\d\d ')


def server_errors(log_text: str) -> list[str]:
    """The requests the development server logged with a 5xx answer."""
    return [line.strip() for line in log_text.splitlines() if SERVER_ERROR.search(line)]


# --- The server ---------------------------------------------------------------------------------


def port_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def netns_command(argv: list[str]) -> list[str] | None:
    """This run again inside a network namespace of its own (loopback up), or None where the
    kernel does not allow one."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    if not unshare or not ip:
        return None
    probe = subprocess.run([unshare, "--net", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        return None
    return [
        unshare,
        "--net",
        "sh",
        "-c",
        f'{ip} link set lo up && exec "$@"',
        "sh",
        sys.executable,
        *argv,
    ]


class Server:
    """`make run` on a database of its own: migrate, seed_demo, runserver, in `work`."""

    def __init__(self, work: Path, python: Path) -> None:
        self.work = work
        self.python = python
        self.log_path = work / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.env = {
            **plain_env(work),
            "DEBUG": "1",
            "FRONTEND_URL": BASE_URL,
        }

    def manage(self, *args: str) -> None:
        done = subprocess.run(
            [str(self.python), "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"manage.py {' '.join(args)} failed ({done.returncode}):\n"
                f"{done.stdout[-4000:]}{done.stderr[-4000:]}"
            )

    def start(self) -> None:
        self.manage("migrate", "--noinput")
        self.manage("seed_demo", "--base-url", BASE_URL)
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [str(self.python), "manage.py", "runserver", "--noreload", f"{HOST}:{PORT}"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped at once:\n{self.log_tail(40)}")
            try:
                with urllib.request.urlopen(f"{BASE_URL}/healthz", timeout=5) as answer:  # noqa: S310 - our server
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        raise RuntimeError(f"no healthy answer from {BASE_URL}/healthz:\n{self.log_tail(40)}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def log_size(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def log_since(self, offset: int) -> str:
        with self.log_path.open("rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", "replace")

    def log_tail(self, lines: int) -> str:
        if not self.log_path.exists():
            return ""
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])


def plain_env(work: Path) -> dict[str, str]:
    """The environment of a reader's other shell: the caller's PATH and locale, none of the
    settings; VAR_DIR names this run's database (the one `make run` would use is var/'s), and
    HOME and TMPDIR are this run's own (no ~/.curlrc, nothing left in /tmp)."""
    env = {name: os.environ[name] for name in KEPT_ENV if name in os.environ}
    env.update({name: value for name, value in os.environ.items() if name.startswith("LC_")})
    for name in ("home", "tmp"):
        (work / name).mkdir(exist_ok=True)
    env.update({"VAR_DIR": str(work / "var"), "HOME": str(work / "home")})
    env["TMPDIR"] = str(work / "tmp")
    env.setdefault("PATH", os.defpath)
    return env


# --- Running the blocks ---------------------------------------------------------------------------


@dataclass
class Outcome:
    block: Block
    problems: list[str]
    answers: list[str]
    stdout: str
    stderr: str
    trace: str
    server_log: str
    seconds: float

    @property
    def passed(self) -> bool:
        return not self.problems


class Runner:
    def __init__(self, work: Path, server: Server, timeout: float) -> None:
        self.work = work
        self.server = server
        self.timeout = timeout
        self.answers = work / "answers.log"
        shims = work / "shims"
        shims.mkdir()
        real_curl = shutil.which("curl")
        if real_curl is None:
            raise RuntimeError("curl is not installed: the walk-throughs use it")
        shim = shims / "curl"
        shim.write_text(
            f"#!{sys.executable} -ISB\n"
            "import sys\n"
            f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
            "from walkthroughs import curl_main\n"
            f"sys.exit(curl_main({real_curl!r}, {str(self.answers)!r}, sys.argv[1:]))\n",
            encoding="utf-8",
        )
        shim.chmod(0o755)
        self.env = plain_env(work)
        self.env["PATH"] = f"{shims}{os.pathsep}{self.env['PATH']}"

    def run(self, block: Block) -> Outcome:
        script = self.work / "blocks" / f"{block.path.replace('/', '_')}_{block.line}.sh"
        script.parent.mkdir(exist_ok=True)
        script.write_text(block.text, encoding="utf-8")
        trace_path = script.with_suffix(".trace")
        self.answers.write_text("", encoding="utf-8")
        log_offset = self.server.log_size()
        problems: list[str] = []
        started = time.monotonic()
        with trace_path.open("w", encoding="utf-8") as trace:
            # The commands as bash ran them, on a descriptor of their own: shown on a failure.
            env = {**self.env, "BASH_XTRACEFD": str(trace.fileno())}
            process = subprocess.Popen(
                ["bash", "-euo", "pipefail", "-x", str(script)],  # noqa: S607 - the reader's bash
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(trace.fileno(),),
                start_new_session=True,
            )
            try:
                out, err = process.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                out, err = process.communicate()
                problems.append(f"still running after {self.timeout:g} s: stopped")
            else:
                if process.returncode != 0:
                    problems.append(f"exited with status {process.returncode}")
        seconds = time.monotonic() - started
        answers = self.answers.read_text(encoding="utf-8").splitlines()
        problems += [f"unexpected answer {answer}" for answer in unexpected(block.text, answers)]
        server_log = self.server.log_since(log_offset)
        problems += [f"the server answered 5xx: {line}" for line in server_errors(server_log)]
        return Outcome(
            block=block,
            problems=problems,
            answers=answers,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            trace=trace_path.read_text(encoding="utf-8", errors="replace"),
            server_log=server_log,
            seconds=seconds,
        )


def indented(text: str, limit: int = 60) -> str:
    lines = text.rstrip("\n").splitlines()
    if len(lines) > limit:
        lines = [f"[{len(lines) - limit} lines before]", *lines[-limit:]]
    return "\n".join(f"    {line}" for line in lines) if lines else "    (nothing)"


def report_failure(outcome: Outcome) -> None:
    block = outcome.block
    print(f"\n--- FAILED {block.where}: {'; '.join(outcome.problems)}")
    print(f"  the block (its line N is {block.path}:{block.line}+N):")
    numbered = block.text.rstrip("\n").splitlines()
    print("\n".join(f"  {n:>4}  {line}" for n, line in enumerate(numbered, 1)))
    print("  the answers it received (status, method, URL):")
    print(indented("\n".join(outcome.answers)))
    print("  its standard output:")
    print(indented(outcome.stdout))
    print("  its standard error:")
    print(indented(outcome.stderr))
    print("  the commands it ran last (bash -x):")
    print(indented(outcome.trace, limit=12))
    print("  the server's log while it ran, last lines:")
    print(indented(outcome.server_log, limit=40))
    print(f"--- end of {block.where}\n")


def run_all(blocks: list[Block], timeout: float, verbose: bool) -> int:
    with tempfile.TemporaryDirectory(prefix="walkthroughs-") as tmp:
        work = Path(tmp)
        python = ROOT / ".venv" / "bin" / "python"
        server = Server(work, python)
        print(f"walkthroughs: migrate, seed_demo and runserver on {BASE_URL} (a fresh database)")
        outcomes: list[Outcome] = []
        try:
            server.start()
            runner = Runner(work, server, timeout)
            for block in blocks:
                outcome = runner.run(block)
                outcomes.append(outcome)
                verdict = "ok  " if outcome.passed else "FAIL"
                print(f"{verdict} {block.where} ({outcome.seconds:.1f} s)", flush=True)
                if not outcome.passed:
                    report_failure(outcome)
                elif verbose:
                    print(indented(outcome.stdout))
                    print(indented("\n".join(outcome.answers)))
        except RuntimeError as exc:
            print(f"walkthroughs: {exc}")
            return 2
        finally:
            server.stop()
    failed = sum(not outcome.passed for outcome in outcomes)
    print(f"walkthroughs: {len(outcomes)} blocks, {len(outcomes) - failed} passed, {failed} failed")
    return 1 if failed else 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="walkthroughs",
        description="Run the documentation's `sh run` blocks against a fresh `make run` server.",
    )
    parser.add_argument("--list", action="store_true", help="list the blocks, run nothing")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="FILE[:LINE]",
        help="run a file's blocks, or the block around LINE (repeatable)",
    )
    parser.add_argument(
        "--reverse",
        action="store_true",
        help="run the blocks last first (each stands alone, so the order must not matter)",
    )
    parser.add_argument(
        "--timeout", type=float, default=BLOCK_TIMEOUT, help="seconds a block may take"
    )
    parser.add_argument(
        "--no-netns",
        action="store_true",
        help="serve on this machine's 127.0.0.1:8000 (it must be free), not in a namespace",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="print what every block prints and received"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        blocks = select(collect(), args.only)
    except ValueError as exc:
        print(f"walkthroughs: {exc}")
        return 2
    if args.reverse:
        blocks.reverse()
    if args.list:
        for block in blocks:
            first = block.text.splitlines()[0] if block.text.strip() else ""
            print(f"{block.where:<32} {first[:70]}")
        print(f"walkthroughs: {len(blocks)} blocks")
        return 0
    if not args.no_netns and not os.environ.get(IN_NETNS):
        command = netns_command([str(Path(__file__).resolve()), *argv])
        if command is not None:
            sys.stdout.flush()
            return subprocess.run(
                command, env={**os.environ, IN_NETNS: "1"}, check=False
            ).returncode
    if not port_free(HOST, PORT):
        print(
            f"walkthroughs: {HOST}:{PORT} is taken (a `make run`?) and the blocks name that "
            "address: stop what listens there, or run as root for a network namespace of its own"
        )
        return 2
    return run_all(blocks, args.timeout, args.verbose)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
