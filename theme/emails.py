"""The theme apps' e-mail types: sent through the store's e-mail machinery
(store.emails.services.email_send: rendered now, recorded, sent by a task after the commit),
with their built-in templates in the sending app's own folder.

An app declares its type with `folder` (its templates: <slug>.subject.txt, <slug>.html,
<slug>.txt) and builds the type's variables with `template_context`; the store's (`store.name`,
`store.email`) are always there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from store.emails import selectors as email_selectors
from store.emails.types import EmailType

_SUFFIX = {"subject": ".subject.txt", "body_html": ".html", "body_text": ".txt"}


@cache
def _read(folder: Path, slug: str, part: str) -> str:
    text = (folder / f"{slug}{_SUFFIX[part]}").read_text(encoding="utf-8")
    return text.strip() if part == "subject" else text


@dataclass(frozen=True)
class FolderEmailType(EmailType):
    folder: Path | None = None  # keyword-only in practice: EmailType's fields have defaults

    def __post_init__(self) -> None:
        if self.folder is None or not self.folder.is_dir():
            raise ValueError(f"The e-mail type {self.slug} needs its template folder.")

    def default(self, part: str) -> str:
        return _read(self.folder, self.slug, part)


def template_context(*, config: dict, **values) -> dict:
    """A template's variables: the store's, then the type's own."""
    return {"store": email_selectors.store_data(config), **values}
