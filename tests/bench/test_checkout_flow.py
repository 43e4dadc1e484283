"""bench_checkout's wrk script against a stub store (when wrk exists): every shopper's steps go
in order with its own cart token, and the script counts the paid completions."""

import http.server
import json
import shutil
import threading

import pytest

from bench import bench_checkout, harness

pytestmark = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed")


class StubStore(http.server.BaseHTTPRequestHandler):
    """Answers like the store's three routes, and 400 for any step out of order."""

    protocol_version = "HTTP/1.1"
    lock = threading.Lock()
    carts: dict[str, str] = {}  # token -> "new" | "started:<id>" | "done"
    checkouts: dict[str, str] = {}  # id -> token
    errors: list[str] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        cookie = (self.headers.get("Cookie") or "").removeprefix("ec_cart_id=")
        with self.lock:
            status, answer, headers = self.route(body, cookie)
        data = json.dumps(answer, separators=(",", ":")).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def route(self, body, cookie):
        api = "/rest/ec/v1"
        if self.path == f"{api}/cart/items" and not cookie and body["product_id"] in (1, 2):
            token = f"t{len(self.carts):040d}"
            self.carts[token] = "new"
            return 200, {"items": [], "totals": {}}, {"X-Cart-ID": token}
        if self.path == f"{api}/checkout" and self.carts.get(cookie) == "new":
            if body["shipping_method"] != 7 or body["payment_method"] != "sandbox_card":
                self.errors.append(f"start body {body}")
            checkout_id = str(len(self.checkouts) + 1)
            self.checkouts[checkout_id] = cookie
            self.carts[cookie] = f"started:{checkout_id}"
            return 201, {"id": int(checkout_id), "status": "open", "email": body["email"]}, {}
        if self.path.startswith(f"{api}/checkout/") and self.path.endswith("/complete"):
            checkout_id = self.path.split("/")[-2]
            if self.checkouts.get(checkout_id) == cookie and self.carts.get(cookie) == (
                f"started:{checkout_id}"
            ):
                self.carts[cookie] = "done"
                assert body["payment_data"]["card_number"].startswith("4242")
                return 200, {"checkout_id": int(checkout_id), "payment_status": "paid"}, {}
        self.errors.append(f"{self.path} cookie {cookie!r} body {body}")
        return 400, {"code": "out_of_order"}, {}

    def log_message(self, *args):
        pass


def test_each_connection_walks_whole_checkouts_and_the_completions_are_counted():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StubStore)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    (case,) = [c.formatted({"products": "1,2", "method": 7}) for c in bench_checkout.CASES]
    try:
        m = harness.run_wrk(
            server.server_address[1],
            method=case.method,
            path=case.path,
            body=case.body,
            headers=case.headers,
            expect_status=case.expect_status,
            lua=case.lua,
            seconds=1,
            connections=4,
            threads=2,
        )
    finally:
        server.shutdown()
    assert StubStore.errors == []
    assert m["bad"] == 0
    assert m["ok"] > 30
    done = sum(1 for state in StubStore.carts.values() if state == "done")
    assert 0 < m["counts"]["checkouts"] <= done
    assert set(m["counts"]) == {"checkouts"}
