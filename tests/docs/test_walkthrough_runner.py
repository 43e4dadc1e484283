"""The walk-through runner (.ci/walkthroughs.py) without its server: which blocks it finds, from
which line, which ones `--only` picks, and how it judges the answers a block received."""

import re
import stat
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.docs import runner

# A reading of the files: the same in every pass.
pytestmark = pytest.mark.sqlite_only

ROOT = Path(settings.BASE_DIR)


walkthroughs = runner.load()

DOCUMENT = "\n".join(
    [
        "# A guide",  # 1
        "",
        "```sh run",  # 3
        "A=1",
        "echo $A",
        "```",  # 6
        "",
        "```sh",  # 8: illustrative
        "make run",
        "```",
        "",
        "1. In a list:",  # 12
        "",
        "   ```sh run",  # 14
        "   echo in a list",
        "     echo indented further",
        "",
        "   ```",  # 18
        "",
        "````markdown",  # 20: a fence shown inside a longer one is text
        "```sh run",
        "echo shown, not run",
        "```",
        "````",
        "",
        "~~~sh run slow",  # 26
        "echo tildes",
        "~~~",
        "",
        "```sh running",  # 30: not the mark
        "echo no",
        "```",
        "",
        "```shell run",  # 34: nor this
        "echo no",
        "```",
        "",
    ]
)


def test_the_marked_blocks_are_found_with_their_line_and_text():
    found = walkthroughs.extract(DOCUMENT, "docs/guide.md")

    assert [(block.where, block.text) for block in found] == [
        ("docs/guide.md:3", "A=1\necho $A\n"),
        ("docs/guide.md:14", "echo in a list\n  echo indented further\n\n"),
        ("docs/guide.md:26", "echo tildes\n"),
    ]
    assert [block.last_line for block in found] == [6, 18, 28]


def test_a_marked_block_never_closed_is_an_error_and_an_unmarked_one_is_not():
    with pytest.raises(ValueError, match=r"^a\.md:3: .* never closed"):
        walkthroughs.extract("# A guide\n\n```sh run\ncurl -s http://127.0.0.1:8000/\n", "a.md")

    assert walkthroughs.extract("```sh\nmake run\n", "docs/guide.md") == []


def test_the_repositorys_docs_yield_every_marked_fence_in_document_order():
    blocks = walkthroughs.collect()

    fences = []
    for path in walkthroughs.documents():
        lines = path.read_text(encoding="utf-8").splitlines()
        relative = path.relative_to(ROOT).as_posix()
        fences += [
            f"{relative}:{number}"
            for number, line in enumerate(lines, 1)
            if re.match(r"^ *```sh run\b", line)
        ]
    assert [block.where for block in blocks] == fences
    assert blocks[0].path == "README.md"
    assert all(block.text.strip() for block in blocks)


def test_only_picks_a_files_blocks_or_the_one_around_a_line():
    blocks = walkthroughs.extract(DOCUMENT, "docs/guide.md") + walkthroughs.extract(
        "```sh run\necho readme\n```\n", "README.md"
    )

    def where(only):
        return [block.where for block in walkthroughs.select(blocks, only)]

    assert where([]) == [block.where for block in blocks]
    assert where(["docs/guide.md"]) == ["docs/guide.md:3", "docs/guide.md:14", "docs/guide.md:26"]
    assert where(["./docs/guide.md:16", "README.md:1"]) == ["docs/guide.md:14", "README.md:1"]
    assert where(["docs/guide.md:6", "docs/guide.md:3"]) == ["docs/guide.md:3"]
    for stale in ("docs/guide.md:8", "docs/other.md", "docs/guide.md:x"):
        with pytest.raises(ValueError, match=re.escape(stale)):
            walkthroughs.select(blocks, [stale])


def test_curl_records_each_answer_and_keeps_a_blocks_own_write_out():
    record = walkthroughs.CURL_RECORD

    assert walkthroughs.with_recording(["-s", "http://x/"]) == [
        "-s",
        "http://x/",
        "--write-out",
        record,
    ]
    assert walkthroughs.with_recording(["-s", "-w", "%{http_code}\n", "http://x/"]) == [
        "-s",
        "-w",
        "%{http_code}\n" + record,
        "http://x/",
    ]
    assert walkthroughs.with_recording(["--write-out", "%{url}", "u"]) == [
        "--write-out",
        "%{url}" + record,
        "u",
    ]
    assert walkthroughs.with_recording(["-w%{url}", "u"]) == ["-w%{url}" + record, "u"]
    assert walkthroughs.with_recording(["-w", "@format.txt", "u"]) == ["-w", "@format.txt", "u"]


def test_the_shim_logs_the_records_and_passes_the_rest_through(tmp_path, capfd):
    fake_curl = tmp_path / "curl"
    fake_curl.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "print('body')\n"
        "sys.stderr.write('curl: a warning\\n')\n"
        f"sys.stderr.write({walkthroughs.CURL_MARK!r} + '201 POST http://127.0.0.1:8000/a\\n')\n"
        f"sys.stderr.write({walkthroughs.CURL_MARK!r} + '404 GET http://127.0.0.1:8000/b\\n')\n"
        "sys.exit(22)\n",
        encoding="utf-8",
    )
    fake_curl.chmod(fake_curl.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "answers.log"

    status = walkthroughs.curl_main(str(fake_curl), str(log), ["-s", "http://127.0.0.1:8000/a"])

    assert status == 22
    assert log.read_text(encoding="utf-8").splitlines() == [
        "201 POST http://127.0.0.1:8000/a",
        "404 GET http://127.0.0.1:8000/b",
    ]
    printed = capfd.readouterr()
    assert (printed.out, printed.err) == ("body\n", "curl: a warning\n")


def test_an_answer_fails_a_block_when_it_is_an_error_the_block_does_not_show():
    block = (
        'curl -s -u "$A" -X PATCH $B/managers/roles/shop_manager -d \'{"name": "Boss"}\'\n'
        '# 409 {"code": "built_in_role", ...}\n'
        'curl -s $B/orders/4090    # {"total": "403.50"}\n'
        "curl -s -X DELETE $B/coupons/1    # once used, this answers 410.\n"
    )
    answers = [
        "200 GET http://127.0.0.1:8000/rest/ec/v1/orders",
        "201 POST http://127.0.0.1:8000/rest/ec/v1/orders",
        "304 GET http://127.0.0.1:8000/feeds/google.xml",
        "409 PATCH http://127.0.0.1:8000/rest/ec/v1/managers/roles/shop_manager",
        "410 DELETE http://127.0.0.1:8000/rest/ec/v1/coupons/1",
        "404 GET http://127.0.0.1:8000/rest/ec/v1/orders/4090",
        "403 GET http://127.0.0.1:8000/rest/ec/v1/customers",
        "500 GET http://127.0.0.1:8000/rest/ec/v1/orders",
        "000 GET http://127.0.0.1:8001/",
    ]

    assert walkthroughs.unexpected(block, answers) == answers[5:]
    assert walkthroughs.unexpected(block + "# 500\n", answers[7:8]) == answers[7:8]


def test_the_servers_5xx_are_read_from_its_log():
    log = (
        '[29/Nov/2026 20:01:35] "GET /rest/ec/v1/orders HTTP/1.1" 200 512\n'
        "Internal Server Error: /rest/ec/v1/marketplace/webhook/skroutz\n"
        '[29/Nov/2026 20:01:36] "POST /rest/ec/v1/marketplace/webhook/skroutz HTTP/1.1" 500 145\n'
        '"GET /rest/ec/v1/nothing HTTP/1.1" 404 106\n'
    )

    assert walkthroughs.server_errors(log) == [
        '[29/Nov/2026 20:01:36] "POST /rest/ec/v1/marketplace/webhook/skroutz HTTP/1.1" 500 145'
    ]
