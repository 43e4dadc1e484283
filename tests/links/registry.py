"""Every kind of e-mail the project sends, found from the code rather than listed by hand, so
that a new kind fails the link tests until it has a trigger there.

Three ways out exist, and a kind is named after its way:
- `store:<slug>`: the store's machinery (store.emails.services.email_send): the types of
  store.emails.types.TYPES and every other EmailType declared in the project's code (the
  theme's, ...);
- `template:<name>`: common.email.send_templated_email, one per template set found under a
  templates directory (`emails/<name>_subject.txt`);
- `direct:<app>.<function>`: a function that builds a message itself (EmailMessage,
  EmailMultiAlternatives, send_mail, ...), other than the two carriers that deliver the kinds
  above; named by its top-level package, so that moving it inside its app renames nothing.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.template import engines

from store.emails import types as store_types

BASE_DIR = Path(settings.BASE_DIR)
SENDERS = {"EmailMessage", "EmailMultiAlternatives", "send_mail", "send_mass_mail"}
SENDERS |= {"mail_admins", "mail_managers"}
# The functions that deliver messages built elsewhere: their kinds are the store's types and
# the templates.
CARRIERS = {
    "common.send_email": "common.tasks: delivers common.email's templated e-mails",
    "store.email_deliver": "store.emails.services: delivers the store's typed e-mails",
}


def project_sources() -> list[Path]:
    """The project's own modules (its apps' packages), without migrations."""
    roots = {
        BASE_DIR / app.name.split(".")[0]
        for app in apps.get_app_configs()
        if Path(app.path).resolve().is_relative_to(BASE_DIR)
    }
    return sorted(
        path
        for root in roots
        for path in root.rglob("*.py")
        if "migrations" not in path.parts and ".venv" not in path.parts
    )


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _app(path: Path) -> str:
    return path.relative_to(BASE_DIR).parts[0]


def _scan(path: Path) -> tuple[set[str], set[str]]:
    """(EmailType slugs declared, functions that build a message) of one module."""
    text = path.read_text(encoding="utf-8")
    slugs: set[str] = set()
    senders: set[str] = set()
    if "EmailType" not in text and not any(name in text for name in SENDERS):
        return slugs, senders  # parsing every module takes seconds
    tree = ast.parse(text)

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name if not function else f"{function}.{child.name}"
            if isinstance(child, ast.Call):
                name = _name(child.func)
                if name.endswith("EmailType"):
                    slugs.update(
                        kw.value.value
                        for kw in child.keywords
                        if kw.arg == "slug" and isinstance(kw.value, ast.Constant)
                    )
                if name in SENDERS:
                    senders.add(f"{_app(path)}.{function or '<module>'}")
            visit(child, inner)

    visit(tree, "")
    return slugs, senders


def template_names() -> set[str]:
    """`<name>` of every `emails/<name>_subject.txt` a template loader can find."""
    found = set()
    for engine in engines.all():
        for directory in engine.template_dirs:
            folder = Path(directory) / "emails"
            for subject in folder.rglob("*_subject.txt"):
                found.add(str(subject.relative_to(folder)).removesuffix("_subject.txt"))
    return found


@cache
def _scan_all() -> tuple[frozenset[str], frozenset[str]]:
    slugs: set[str] = set()
    senders: set[str] = set()
    for path in project_sources():
        declared, building = _scan(path)
        slugs |= declared
        senders |= building
    return frozenset(slugs), frozenset(senders)


def email_kinds() -> set[str]:
    slugs, senders = _scan_all()
    kinds = {f"store:{slug}" for slug in set(store_types.TYPES) | slugs}
    kinds |= {f"template:{name}" for name in template_names()}
    kinds |= {f"direct:{name}" for name in senders - set(CARRIERS)}
    return kinds


def carriers_found() -> set[str]:
    """The carriers as the code has them (a renamed carrier must be renamed here too)."""
    return set(_scan_all()[1]) & set(CARRIERS)
