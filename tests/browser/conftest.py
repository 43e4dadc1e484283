"""Real-browser tests: headless Chromium, driven by Selenium, on pytest-django's live server.

What the Django test client cannot show: the headers a browser itself sends (a form's `Origin`
and `Referer` follow the page's Referrer-Policy; a policy of `no-referrer` made Chromium post
`Origin: null`, which CSRF refuses), the admin's JavaScript (actions, downloads) and the
Swagger UI. The flows click through the pages a person opens.

Cheap by construction: one Chromium per xdist worker for the whole run (`browser`, session
scope), one live server per worker (pytest-django's `live_server`, session scope), and each test
starting from no cookies and an empty outbox. A live-server test commits for real
(`transaction=True`); the test database is copied back from its template after it
(tests/fixtures/db.py). On SQLite the server's threads share the test's in-memory connection,
so the test reads the database only once the page is loaded and the server answers nothing:
`wait_for` and `fetch` return then, and each test ends with the server idle.

Chromium and chromedriver are Debian's (`apt-get install chromium chromium-driver`), found on
PATH (`CHROMIUM` and `CHROMEDRIVER` name others). Without them the tests are skipped, unless
`BROWSER_TESTS_REQUIRED=1` (CI) turns the skip into a failure. Selenium is given the driver
through a Service, so Selenium Manager never tries to download one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.core.servers.basehttp import ThreadedWSGIServer
from django.core.signals import request_finished, request_started
from django.test import Client
from django.test.testcases import LiveServerThread

from tests.fixtures.waiting import wait_until

SIGNALS = "tests.browser"  # the dispatch_uid of the Browser's receivers
WAIT_SECONDS = 15  # for a page or an element; a test that waits this long has failed anyway
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",  # as root
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--window-size=1280,1024",
)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: drives headless Chromium (tests/browser); `-m 'not browser'` skips"
    )


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.browser)


def executables() -> tuple[str | None, str | None]:
    """Chromium and its chromedriver, each when it is there and runs: named by CHROMIUM and
    CHROMEDRIVER, else found on PATH."""
    binary = os.environ.get("CHROMIUM") or shutil.which("chromium") or "chromium-browser"
    driver = os.environ.get("CHROMEDRIVER") or "chromedriver"
    return shutil.which(binary), shutil.which(driver)


class _ClosableServer(ThreadedWSGIServer):
    """The live server, knowing the connections it holds open so that it can close them: a
    connection Chromium keeps alive would otherwise hold its thread in a read with no end when
    a child process of the browser outlives `quit()` (seen on a loaded machine)."""

    open_connections: ClassVar[set[socket.socket]] = set()
    # The threads serving a connection of this server (not those of other servers a test of
    # the same worker started and whose clients keep their connections alive).
    serving: ClassVar[set[threading.Thread]] = set()

    def process_request_thread(self, request, client_address):
        self.serving.add(threading.current_thread())
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.serving.discard(threading.current_thread())

    def process_request(self, request, client_address):
        self.open_connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        self.open_connections.discard(request)
        super().shutdown_request(request)

    @classmethod
    def hang_up(cls) -> None:
        """End every connection still open: its thread reads the end and finishes."""
        for connection in list(cls.open_connections):
            with contextlib.suppress(OSError):  # closed meanwhile
                connection.shutdown(socket.SHUT_RDWR)


LiveServerThread.server_class = _ClosableServer


def _serving_threads() -> list[threading.Thread]:
    """The live server's threads still serving a connection (one per connection)."""
    return [thread for thread in list(_ClosableServer.serving) if thread.is_alive()]


def _serving_stacks() -> str:
    """Where each thread still serving stands (the failure's explanation)."""
    frames = sys._current_frames()
    return "\n".join(
        f"{thread.name}:\n{''.join(traceback.format_stack(frames[thread.ident]))}"
        for thread in _serving_threads()
        if thread.ident in frames
    )


@pytest.fixture(scope="session")
def _chromium(tmp_path_factory, live_server):
    """One headless Chromium for the worker's whole run. It quits before the live server
    stops (this fixture asks for the server), and the server's threads are let finish the
    connections it held open: a thread closing its database connection after the server
    stopped would find it no longer shared (SQLite) or keep the test database from being
    dropped (PostgreSQL)."""
    binary, driver_path = executables()
    if not (binary and driver_path):
        reason = "needs Chromium and chromedriver (apt-get install chromium chromium-driver)"
        if os.environ.get("BROWSER_TESTS_REQUIRED") == "1":
            pytest.fail(f"{reason}; BROWSER_TESTS_REQUIRED=1 forbids skipping", pytrace=False)
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    downloads = tmp_path_factory.mktemp("downloads")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.add_experimental_option(
        "prefs",
        {
            "download.default_directory": str(downloads),
            "download.prompt_for_download": False,
            "safebrowsing.enabled": False,
        },
    )
    # The network log: the answers' statuses and headers, as the browser received them.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    options.add_experimental_option(
        "perfLoggingPrefs", {"enableNetwork": True, "enablePage": False}
    )
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(WAIT_SECONDS)
    driver.set_script_timeout(WAIT_SECONDS)
    driver.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    # No favicon requests: noise that would reach the server while a test reads the database.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/favicon.ico"]})
    try:
        yield driver, downloads
    finally:
        driver.quit()
        try:
            wait_until(lambda: not _serving_threads(), timeout=2, what="Chromium to hang up")
        except AssertionError:
            _ClosableServer.hang_up()
        wait_until(
            lambda: not _serving_threads(),
            timeout=WAIT_SECONDS,
            what="the live server's connections to close after Chromium quit",
            details=_serving_stacks,
        )


@dataclass(frozen=True)
class Received:
    """A request as the live server received it: the headers a browser chose to send."""

    method: str
    path: str
    origin: str | None
    referer: str | None


@dataclass(frozen=True)
class Answer:
    """An answer as the browser received it (its status and headers, names in lower case)."""

    url: str
    kind: str  # Document, Fetch, XHR, Script...
    status: int
    headers: dict[str, str]


class Browser:
    """The worker's Chromium on the live server, with the few moves the flows need."""

    def __init__(self, driver, downloads: Path, base_url: str):
        self.driver = driver
        self.downloads = downloads
        self.base_url = base_url
        self.requests: list[Received] = []  # filled by the live server's threads
        self._answers: list[Answer] = []
        self._serving = 0  # requests the live server is answering now
        self._lock = threading.Lock()

    # --- the live server's side (its threads call these through Django's signals) ----------

    def request_started(self, sender, environ, **kwargs) -> None:
        with self._lock:
            self._serving += 1
        self.requests.append(
            Received(
                method=environ["REQUEST_METHOD"],
                path=environ["PATH_INFO"],
                origin=environ.get("HTTP_ORIGIN"),
                referer=environ.get("HTTP_REFERER"),
            )
        )

    def request_finished(self, sender, **kwargs) -> None:
        with self._lock:
            self._serving -= 1

    def server_idle(self) -> bool:
        return self._serving <= 0

    def settled(self) -> bool:
        """The page is loaded and the server answers nothing: the test may read the database
        (on SQLite the server's threads use the test's own connection)."""
        ready = self.driver.execute_script("return document.readyState") == "complete"
        return ready and self.server_idle()

    def wait_until_idle(self) -> None:
        wait_until(self.server_idle, timeout=WAIT_SECONDS, what="the live server to answer")

    # --- pages -----------------------------------------------------------------------------

    def url(self, path: str) -> str:
        return path if path.startswith("http") else f"{self.base_url}{path}"

    def open(self, path: str) -> None:
        self.driver.get(self.url(path))

    def find(self, css: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css: str) -> list:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def wait_for(self, css: str, *, text: str | None = None, visible: bool = False):
        """The element `css` once it is there (shown, and holding `text`, when asked: in any
        case, since the text read is the one shown, where CSS may capitalise it)."""
        from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait

        def found(driver):
            if not self.settled():
                return False
            for element in self.find_all(css):
                try:
                    if visible and not element.is_displayed():
                        continue
                    if text is not None and text.casefold() not in element.text.casefold():
                        continue
                except StaleElementReferenceException:
                    continue
                return element
            return False

        try:
            return WebDriverWait(self.driver, WAIT_SECONDS, poll_frequency=0.05).until(found)
        except TimeoutException:
            wanted = f"{css!r}" + (f" holding {text!r}" if text is not None else "")
            shown = self.text()[:2000]
            raise AssertionError(f"no {wanted} on {self.driver.current_url}:\n{shown}") from None

    def click(self, css: str, **wait) -> None:
        """Click the element `css` once it is shown; again if the page drew it anew between
        finding and clicking (a React page such as the Swagger UI does)."""
        from selenium.common.exceptions import (
            ElementClickInterceptedException,
            StaleElementReferenceException,
        )
        from selenium.webdriver.support.ui import WebDriverWait

        def clicked(driver) -> bool:
            try:
                self.wait_for(css, visible=True, **wait).click()
            except (StaleElementReferenceException, ElementClickInterceptedException):
                return False
            return True

        WebDriverWait(self.driver, WAIT_SECONDS, poll_frequency=0.05).until(
            clicked, f"could not click {css!r} on {self.driver.current_url}"
        )

    def fill(self, css: str, value: str) -> None:
        element = self.wait_for(css, visible=True)
        element.clear()
        element.send_keys(value)

    def paste(self, element, value: str) -> None:
        """Put `value` in place of what the field holds as a paste does: one input, where
        typing it key by key makes a page like the Swagger UI render again at each key."""
        from selenium.webdriver.common.keys import Keys

        element.click()
        element.send_keys(Keys.CONTROL, "a")
        self.driver.execute_cdp_cmd("Input.insertText", {"text": value})

    def text(self, css: str = "body") -> str:
        """The text shown in the first element `css` ("" when there is none)."""
        from selenium.common.exceptions import StaleElementReferenceException

        try:
            elements = self.find_all(css)
            return elements[0].text if elements else ""
        except StaleElementReferenceException:  # the page changed meanwhile: read it again
            return self.text(css)

    def log_in_as(self, user) -> None:
        """Log `user` in without the log-in form: a session made on the server, its cookie
        given to the browser (for tests whose subject is not logging in)."""
        client = Client()
        client.force_login(user)
        self.open("/browser-tests/")  # any page of the site: a cookie needs its domain open
        self.driver.add_cookie(
            {
                "name": django_settings.SESSION_COOKIE_NAME,
                "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value,
                "path": "/",
            }
        )

    # --- requests from the page, as its own scripts would send them ---------------------------

    def fetch(self, method: str, path: str, body: dict | None = None, headers=None) -> dict:
        """Send a request with the page's fetch() (its Origin, its cookies); answers the
        status and the body (JSON when it is JSON)."""
        script = """
            const [method, url, body, headers, done] = arguments;
            const init = {method, headers: {"Accept": "application/json", ...headers}};
            if (body !== null) {
                init.body = JSON.stringify(body);
                init.headers["Content-Type"] = "application/json";
            }
            fetch(url, init).then(async (response) => {
                const text = await response.text();
                let json = null;
                try { json = JSON.parse(text); } catch (e) {}
                done({status: response.status, json, text});
            }).catch((error) => done({status: 0, json: null, text: String(error)}));
        """
        answer = self.driver.execute_async_script(
            script, method, self.url(path), body, headers or {}
        )
        self.wait_until_idle()  # the server's thread is done with it, not only the answer sent
        return answer

    # --- what went over the wire ------------------------------------------------------------

    def received(self, method: str, path: str) -> Received:
        """The last `method` request for `path` that the live server received."""
        for request in reversed(self.requests):
            if (request.method, request.path) == (method, path):
                return request
        sent = "\n".join(f"{r.method} {r.path}" for r in self.requests)
        raise AssertionError(f"the server received no {method} {path}; it received:\n{sent}")

    def answers(self) -> list[Answer]:
        """The answers the browser got since the test began (read from its network log)."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") != "Network.responseReceived":
                continue
            params = message["params"]
            response = params["response"]
            self._answers.append(
                Answer(
                    url=response["url"],
                    kind=params.get("type", ""),
                    status=response["status"],
                    headers={name.lower(): value for name, value in response["headers"].items()},
                )
            )
        return list(self._answers)

    def page_answer(self, path: str) -> Answer:
        """The answer of the last page (document) the browser loaded from `path`."""
        for answer in reversed(self.answers()):
            if answer.kind == "Document" and urlsplit(answer.url).path == path:
                return answer
        loaded = "\n".join(f"{a.kind} {a.url} {a.status}" for a in self._answers)
        raise AssertionError(f"the browser loaded no page {path}; it loaded:\n{loaded}")

    # --- downloads --------------------------------------------------------------------------

    def downloads_now(self) -> set[str]:
        return {path.name for path in self.downloads.iterdir()}

    def downloaded(self, before: set[str], *, suffix: str) -> Path:
        """The file that appeared in the downloads since `before` (names), once complete
        (Chromium writes `.crdownload` first and renames it when done)."""
        new: list[Path] = []

        def arrived() -> bool:
            new[:] = [
                self.downloads / name
                for name in self.downloads_now() - before
                if name.endswith(suffix)
            ]
            return bool(new)

        wait_until(
            arrived,
            timeout=WAIT_SECONDS,
            what=f"a *{suffix} download",
            details=lambda: f"the downloads: {sorted(self.downloads_now())}",
        )
        return new[0]

    def reset(self) -> None:
        """A new visitor: no cookies, a blank page, nothing left in the network log."""
        self.driver.get("about:blank")
        self.wait_until_idle()  # a request the blank page cut short may still be answered
        self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        self.driver.get_log("performance")
        self._answers.clear()
        self.requests.clear()


@pytest.fixture
def browser(_chromium, live_server, settings) -> Browser:
    """The worker's Chromium as a new visitor of the live server, whose e-mails link to it."""
    driver, downloads = _chromium
    settings.FRONTEND_URL = live_server.url
    mail.outbox.clear()
    browser = Browser(driver, downloads, live_server.url)
    browser.reset()
    request_started.connect(browser.request_started, dispatch_uid=SIGNALS)
    request_finished.connect(browser.request_finished, dispatch_uid=SIGNALS)
    try:
        yield browser
    finally:
        # nothing of this test's left loading while the database is put back
        browser.reset()
        request_started.disconnect(dispatch_uid=SIGNALS)
        request_finished.disconnect(dispatch_uid=SIGNALS)


def origin_of(url: str) -> str:
    """`scheme://host:port` of `url`: what a browser sends as Origin from a page there."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
