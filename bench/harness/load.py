"""The processes of a run: gunicorn serving the bench, wrk loading it, a Celery worker taking
its tasks (each measurement waits for the worker's queue to be empty first).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.harness.cases import Case, parse_wrk_output, wrk_script
from bench.harness.environment import (
    DEFAULT_REDIS,
    ROOT,
    database_url,
    django_setup,
    queue_keys,
    server_env,
)


def start_server(env: dict[str, str], *, port: int, workers: int) -> subprocess.Popen:
    gunicorn = Path(sys.executable).parent / "gunicorn"
    process = subprocess.Popen(  # noqa: S603 - our own virtualenv's gunicorn
        [
            str(gunicorn),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            "--timeout",
            "60",
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited; see its output above")
        try:
            with urllib.request.urlopen(  # loopback
                f"http://127.0.0.1:{port}/bench/floor/pk", timeout=5
            ) as answer:
                if answer.status == 200:
                    return process
        except (OSError, urllib.error.URLError):
            time.sleep(0.3)
    stop_server(process)
    raise RuntimeError(f"gunicorn did not answer on port {port}")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def probe(port: int, case: Case) -> tuple[int, str]:
    """One request as the case sends it (without its Lua script): (status, start of the body)."""
    request = urllib.request.Request(  # loopback
        f"http://127.0.0.1:{port}{case.path}",
        data=None if case.body is None else case.body.encode(),
        headers=case.headers,
        method=case.method,
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310
            return answer.status, answer.read(300).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(300).decode(errors="replace")


def run_wrk(
    port: int,
    *,
    method: str,
    path: str,
    body: str | None,
    headers: dict[str, str],
    expect_status: int,
    lua: str | None,
    seconds: float,
    connections: int,
    threads: int,
) -> dict:
    wrk = shutil.which("wrk")
    if not wrk:
        raise RuntimeError("wrk is not installed (apt-get install wrk)")
    script = wrk_script(
        method=method, body=body, headers=headers, expect_status=expect_status, user_lua=lua
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
        file.write(script)
    try:
        result = subprocess.run(  # noqa: S603 - wrk with our arguments
            [
                wrk,
                f"-t{threads}",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                "--timeout",
                "10s",
                "--latency",
                "-s",
                file.name,
                f"http://127.0.0.1:{port}{path}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(file.name)
    if result.returncode != 0:
        raise RuntimeError(f"wrk failed ({result.returncode}): {result.stderr or result.stdout}")
    return parse_wrk_output(result.stdout)


@contextlib.contextmanager
def celery_worker(name: str, extra_env: dict[str, str] | None = None, *, drain: float = 30.0):
    """A Celery worker (one process) on the bench's database and Redis for the run, as in
    production, on the bench's own queues (queue_prefix). Tasks an earlier run left in them
    (for a database since recreated, perhaps) are dropped before it starts; on leaving, it is
    given up to `drain` seconds to empty them."""
    import redis

    redis_url = os.environ.get("BENCH_REDIS_URL") or DEFAULT_REDIS
    bench_env = {**server_env(name, database_url(name), redis_url), **(extra_env or {})}
    django_setup(bench_env)  # as the seed will: the queue names are the settings'
    env = {**os.environ, **bench_env}
    keys = queue_keys(name)
    dropped = sum(redis.Redis.from_url(redis_url).delete(key) for key in keys)
    if dropped:
        print(f"[bench] {dropped} queue(s) of an earlier {name} run emptied")
    celery = os.path.join(os.path.dirname(sys.executable), "celery")
    worker = subprocess.Popen(  # noqa: S603 - our own worker
        [celery, "-A", "config", "worker", "-c", "1", "-l", "WARNING", "--without-gossip"],
        env=env,
        cwd=ROOT,
    )
    entry = (redis_url, keys, worker)
    _WORKERS.append(entry)
    try:
        yield worker
    finally:
        _WORKERS.remove(entry)
        with contextlib.suppress(Exception):
            _wait_for_empty_queue(redis_url, keys, drain, worker)
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


# The bench's Celery workers (celery_worker), so that each measurement starts with their queue
# empty: tasks a case left behind (a status change's stock release and e-mail) are charged to
# that case's own measurement, not to the one measured next, floor or case.
_WORKERS: list[tuple[str, list[str], subprocess.Popen]] = []
SETTLE_SECONDS = 60.0


def settle() -> None:
    """Wait (bounded) until the bench's workers have emptied their queue."""
    for redis_url, keys, worker in list(_WORKERS):
        with contextlib.suppress(Exception):
            _wait_for_empty_queue(redis_url, keys, SETTLE_SECONDS, worker)
            time.sleep(0.3)  # the task taken last finishes


def _wait_for_empty_queue(
    redis_url: str, keys: list[str], seconds: float, worker: subprocess.Popen
) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    deadline = time.monotonic() + seconds
    while (
        worker.poll() is None
        and time.monotonic() < deadline
        and sum(client.llen(key) for key in keys)
    ):
        time.sleep(0.2)
