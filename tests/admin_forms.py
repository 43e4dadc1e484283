"""Driving admin pages as a browser does: a client that enforces CSRF, and forms posted with
the values their page rendered (management forms, hidden initials and the CSRF token
included), changed where a test says so."""

from __future__ import annotations

from html.parser import HTMLParser

from django.test import Client


class _FormParser(HTMLParser):
    """The fields of each form of a page as a browser submits them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[tuple[str, dict[str, list[str]]]] = []
        self.data: dict[str, list[str]] = {}
        self._in_form = False
        self._select: str | None = None
        self._select_multiple = False
        self._textarea: str | None = None
        self._text: list[str] = []
        self._options: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            form_id = attrs.get("id") or ""
            self._in_form = (
                "logout" not in form_id and (attrs.get("method") or "").lower() == "post"
            )
            if self._in_form:
                self.data = {}
                self.forms.append((form_id, self.data))
            return
        if not self._in_form:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = (attrs.get("type") or "text").lower()
            if kind in ("submit", "button", "file", "image", "reset"):
                return
            if kind in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.data.setdefault(name, []).append(attrs.get("value") or "on")
                return
            self.data.setdefault(name, []).append(attrs.get("value") or "")
        elif tag == "select" and name:
            self._select, self._select_multiple, self._options = name, "multiple" in attrs, []
        elif tag == "option" and self._select is not None:
            self._options.append((attrs.get("value") or "", "selected" in attrs))
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._options if selected]
            if not chosen and not self._select_multiple and self._options:
                chosen = [self._options[0][0]]
            self.data[self._select] = chosen
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            text = "".join(self._text)
            self.data[self._textarea] = [text[1:] if text.startswith("\n") else text]
            self._textarea = None

    def handle_data(self, data):
        if self._textarea is not None:
            self._text.append(data)


def csrf_client(user) -> Client:
    """A logged-in client that enforces CSRF checks, as a browser meets them."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def form_values(client: Client, url: str) -> dict:
    """The values the change form at `url` renders (one value, or a list for multiples)."""
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    parser = _FormParser()
    parser.feed(response.content.decode())
    # The change form (`<form id="..._form">`), else the page's one form (a confirmation).
    forms = sorted(parser.forms, key=lambda form: not form[0].endswith("_form"))
    assert forms, "no form on the page"
    data = forms[0][1]
    return {key: values[0] if len(values) == 1 else values for key, values in data.items()}


def post_form(client: Client, url: str, *, drop: tuple[str, ...] = (), **changes):
    """Post the form at `url` as rendered, with `changes` (None unchecks a box) and without
    the fields named in `drop`."""
    data = form_values(client, url)
    for name in drop:
        data.pop(name, None)
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    return client.post(url, data)


def post_action(client: Client, changelist_url: str, action: str, ids, **extra):
    """Run an admin action on the rows `ids` from the list page (its CSRF token included)."""
    response = client.get(changelist_url)
    assert response.status_code == 200, response.status_code
    token = response.cookies["csrftoken"].value if "csrftoken" in response.cookies else None
    token = token or client.cookies["csrftoken"].value
    data = {
        "action": action,
        "_selected_action": [str(pk) for pk in ids],
        "csrfmiddlewaretoken": token,
        **extra,
    }
    return client.post(changelist_url, data)


def form_errors(response) -> list[str]:
    """The error messages a re-rendered admin form shows (for assertion messages)."""
    import re

    html = response.content.decode()
    return [
        re.sub(r"<[^>]+>", " ", item).strip()
        for item in re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', html, re.S)
    ]
