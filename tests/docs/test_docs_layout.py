"""The documentation's shape: a short README that leads to docs/architecture.md, links that lead
somewhere, and walk-through blocks marked to run that stand on their own."""

import re
import unicodedata
from pathlib import Path

import pytest
from django.conf import settings

from tests.docs import runner

# A reading of the files: the same in every pass.
pytestmark = pytest.mark.sqlite_only

ROOT = Path(settings.BASE_DIR)
README = ROOT / "README.md"
README_MAX_BYTES = 15_360

FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)
# A shell variable used: $NAME or ${NAME}; and one set: NAME=..., a function name, a for loop.
USED = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
SET = re.compile(r"(?:^|[\s;(])([A-Za-z_][A-Za-z0-9_]*)=|\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b")
PLACEHOLDERS = ("...", "…", "<token>", "<etag>", "APP_PASSWORD", "abcd efgh ijkl")


def doc_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


def prose(text: str) -> str:
    """The text outside fenced blocks and inline code, where links live."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(path: Path) -> list[str]:
    return LINK.findall(prose(path.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = INLINE_CODE.sub(lambda m: m.group(0)[1:-1], heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _level, title in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def run_blocks(path: Path) -> list[str]:
    """The blocks marked `sh run`, read as the walk-through runner reads them (fences indented
    in a list included, de-indented)."""
    text = path.read_text(encoding="utf-8")
    return [block.text for block in runner.load().extract(text, str(path.relative_to(ROOT)))]


def without_comments(block: str) -> str:
    return "\n".join(re.sub(r"(^|\s)#.*$", "", line) for line in block.splitlines())


def test_the_readme_is_short():
    assert README.stat().st_size <= README_MAX_BYTES


def test_the_readme_starts_with_the_two_commands():
    first_block = README.read_text(encoding="utf-8").split("```", 2)[1]
    assert "make run" in first_block
    assert "make test" in first_block


def test_the_readmes_first_link_into_docs_is_the_architecture():
    into_docs = [target for target in links(README) if target.startswith("docs/")]
    assert into_docs[0] == "docs/architecture.md"


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_its_heading(path):
    broken = []
    for target in links(path):
        if EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        missing_heading = anchor and destination.suffix == ".md" and destination.exists()
        if not destination.exists() or (missing_heading and anchor not in anchors(destination)):
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_blocks_marked_to_run_stand_on_their_own(path):
    """Each `sh run` block sets every variable it reads and names no placeholder, so that
    .ci/walkthroughs.py runs it as it is against `make run`."""
    for block in run_blocks(path):
        code = without_comments(block)
        defined = {name for pair in SET.findall(code) for name in pair if name}
        assert set(USED.findall(code)) - defined == set(), block
        assert [p for p in PLACEHOLDERS if p in code] == [], block
        assert "127.0.0.1:8000" in code or "manage.py" in code, block


def test_the_walk_throughs_are_marked_to_run():
    marked = {str(path.relative_to(ROOT)): len(run_blocks(path)) for path in doc_files()}
    assert marked["README.md"] >= 3
    for guide in ("portal", "store", "erp", "theme-and-core", "mcp"):
        assert marked[f"docs/api/{guide}.md"] >= 1, guide


def test_the_link_reader_finds_what_it_must():
    """The helpers the tests above rely on, on text whose answer is known."""
    sample = ROOT / "docs" / "architecture.md"
    assert slug("Logs: gunicorn's access log, the worker and the beat") == (
        "logs-gunicorns-access-log-the-worker-and-the-beat"
    )
    assert slug("Inside an app: api → services and selectors → models") == (
        "inside-an-app-api--services-and-selectors--models"
    )
    assert "the-import-rules" in anchors(sample)
    assert LINK.findall(prose("see [a](b.md#c) and ![i](img.png) but not `[x](y)`")) == [
        "b.md#c",
        "img.png",
    ]
    assert links(README)[0].startswith("https://")
