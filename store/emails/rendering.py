"""The template language of the store's e-mails: Jinja2, sandboxed, over plain data.

Staff edit these templates, so a template may reach only the documented variables
(store.emails.types): the context holds dicts, lists, strings, numbers and booleans only, and
the environment answers attribute lookups on dicts by key and refuses every other attribute
(no methods of strings or lists, nothing that starts with an underscore): `{{ order.__class__ }}`
or `{{ ''.__class__.__mro__ }}` raise a SecurityError. There are no globals (no range, no
lipsum), a short list of filters (none that builds large strings or marks text safe), no
macros, includes, imports or recursive loops, at most two nested loops, `*` and `**` with
bounded results, and the output is cut at MAX_OUTPUT. HTML bodies are autoescaped.

`check()` is what a save runs: the syntax, the rules above, the names against the type's
variables, and a strict render with the type's sample data (an unknown attribute is an
error there, as is a SecurityError); each problem is named.
"""

from __future__ import annotations

import functools
import html as html_lib
import re
from dataclasses import dataclass

from jinja2 import StrictUndefined, TemplateSyntaxError, Undefined, meta, nodes
from jinja2.exceptions import SecurityError, TemplateError, UndefinedError
from jinja2.runtime import LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

MAX_SOURCE = 100_000  # characters of one template
MAX_SUBJECT = 500  # characters of a rendered subject
MAX_OUTPUT = 1_000_000  # characters of one rendered part
MAX_LOOP_DEPTH = 2
MAX_POWER = 64
LOOP_ATTRIBUTES = frozenset(
    {"index", "index0", "revindex", "revindex0", "first", "last", "length", "previtem", "nextitem"}
)
FORBIDDEN_NODES = {
    nodes.Macro: "macros",
    nodes.CallBlock: "call blocks",
    nodes.Include: "include",
    nodes.Import: "import",
    nodes.FromImport: "import",
    nodes.Extends: "extends",
}


class TemplateProblem(Exception):
    """A template the store will not save or send: `message` names the problem."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _replace(value, old, new, count=None):
    value, old, new = str(value), str(old), str(new)
    hits = value.count(old) if old else len(value) + 1
    if count is not None:
        hits = min(hits, max(int(count), 0))
    if len(value) + hits * max(len(new) - len(old), 0) > MAX_OUTPUT:
        raise SecurityError("the replacement would make the text too long")
    return value.replace(old, new) if count is None else value.replace(old, new, int(count))


def _truncate(value, length=255, end="..."):
    value = str(value)
    length = max(int(length), 0)
    return value if len(value) <= length else value[:length].rstrip() + str(end)[:20]


class EmailEnvironment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def getattr(self, obj, attribute):
        return self._lookup(obj, attribute)

    def getitem(self, obj, argument):
        if isinstance(obj, (list, tuple, str)) and isinstance(argument, (int, slice)):
            try:
                return obj[argument]
            except IndexError:
                return self.undefined(obj=obj, name=str(argument))
        return self._lookup(obj, argument)

    def _lookup(self, obj, name):
        if isinstance(name, str) and name.startswith("_"):
            return self.unsafe_undefined(obj, name)
        if isinstance(obj, dict):
            if name in obj:
                return obj[name]
            return self.undefined(obj=obj, name=name)
        if isinstance(obj, LoopContext) and name in LOOP_ATTRIBUTES:
            return getattr(obj, name)
        if isinstance(obj, Undefined):
            return obj._fail_with_undefined_error() if self.undefined is StrictUndefined else obj
        return self.unsafe_undefined(obj, str(name))

    def call_binop(self, context, operator, left, right):
        if operator == "**":
            if not isinstance(right, (int, float)) or abs(right) > MAX_POWER:
                raise SecurityError(f"powers are limited to {MAX_POWER}")
        elif operator == "*":
            for a, b in ((left, right), (right, left)):
                if (
                    isinstance(a, (str, list, tuple))
                    and isinstance(b, int)
                    and len(a) * b > MAX_OUTPUT
                ):
                    raise SecurityError("the repetition would make the text too long")
        return super().call_binop(context, operator, left, right)


FILTERS = (
    "abs",
    "capitalize",
    "default",
    "d",
    "escape",
    "e",
    "first",
    "last",
    "join",
    "length",
    "count",
    "lower",
    "upper",
    "title",
    "trim",
    "round",
    "striptags",
    "sum",
    "wordcount",
    "list",
    "sort",
    "int",
    "float",
    "string",
)


def _environment(*, html: bool, strict: bool) -> EmailEnvironment:
    env = EmailEnvironment(
        autoescape=html,
        undefined=StrictUndefined if strict else Undefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        loader=None,
        cache_size=0,
    )
    env.globals.clear()
    env.filters = {name: env.filters[name] for name in FILTERS}
    env.filters["replace"] = _replace
    env.filters["truncate"] = _truncate
    return env


_ENVIRONMENTS = {
    (html, strict): _environment(html=html, strict=strict)
    for html in (True, False)
    for strict in (True, False)
}


def _env(*, html: bool, strict: bool) -> EmailEnvironment:
    return _ENVIRONMENTS[(html, strict)]


def _loop_depth(node, depth: int = 0) -> int:
    deepest = depth
    for child in node.iter_child_nodes():
        deepest = max(deepest, _loop_depth(child, depth + isinstance(child, nodes.For)))
    return deepest


def _parse(source: str, *, html: bool):
    if not isinstance(source, str):
        raise TemplateProblem("A template is a string.")
    if len(source) > MAX_SOURCE:
        raise TemplateProblem(f"At most {MAX_SOURCE} characters.")
    env = _env(html=html, strict=True)
    try:
        tree = env.parse(source)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(f"Syntax error on line {exc.lineno}: {exc.message}") from None
    for kind, label in FORBIDDEN_NODES.items():
        if tree.find(kind) is not None:
            raise TemplateProblem(f"Templates cannot use {label}.")
    if any(loop.recursive for loop in tree.find_all(nodes.For)):
        raise TemplateProblem("Templates cannot use recursive loops.")
    if _loop_depth(tree) > MAX_LOOP_DEPTH:
        raise TemplateProblem(f"Loops nest at most {MAX_LOOP_DEPTH} deep.")
    return env, tree


@functools.lru_cache(maxsize=256)
def _compiled(html: bool, strict: bool, source: str):
    """A template compiled once per process and source (compiling costs far more than
    rendering; the same few templates are sent again and again)."""
    return _env(html=html, strict=strict).from_string(source)


def _render(source: str, context: dict, *, html: bool, strict: bool) -> str:
    template = _compiled(html, strict, source)
    out, size = [], 0
    for chunk in template.generate(context):
        size += len(chunk)
        if size > MAX_OUTPUT:
            raise TemplateProblem(f"The rendered text is longer than {MAX_OUTPUT} characters.")
        out.append(chunk)
    return "".join(out)


def render_part(source: str, context: dict, *, html: bool, strict: bool = False) -> str:
    """One template rendered; TemplateProblem names what went wrong."""
    try:
        return _render(source, context, html=html, strict=strict)
    except SecurityError as exc:
        raise TemplateProblem(f"Not allowed in a template: {exc}") from None
    except UndefinedError as exc:
        raise TemplateProblem(f"Unknown variable: {exc}") from None
    except TemplateSyntaxError as exc:
        raise TemplateProblem(f"Syntax error on line {exc.lineno}: {exc.message}") from None
    except (TemplateError, TypeError, ValueError, ArithmeticError, RecursionError) as exc:
        raise TemplateProblem(f"The template failed: {exc.__class__.__name__}: {exc}") from None


def check(source: str, *, names: frozenset[str], sample: dict, html: bool) -> None:
    """Refuse (TemplateProblem) a template that breaks a rule, names an undocumented variable
    or does not render the sample strictly."""
    _env_used, tree = _parse(source, html=html)
    try:
        unknown = sorted(meta.find_undeclared_variables(tree) - names)
    except TemplateSyntaxError as exc:  # e.g. a filter that does not exist
        raise TemplateProblem(f"Syntax error on line {exc.lineno}: {exc.message}") from None
    if unknown:
        raise TemplateProblem(
            f"Unknown variable(s): {', '.join(unknown)} (available: {', '.join(sorted(names))})."
        )
    render_part(source, sample, html=html, strict=True)


def subject_line(text: str) -> str:
    line = " ".join(text.split())
    if len(line) > MAX_SUBJECT:
        raise TemplateProblem(f"The subject is longer than {MAX_SUBJECT} characters.")
    return line


def in_layout(layout: str, content: str, *, subject: str, store: dict) -> str:
    return render_part(
        # `content` is the body this module rendered with autoescape on: safe as it is.
        layout,
        {"content": Markup(content), "subject": subject, "store": store},  # noqa: S704
        html=True,
    )


_BREAKS = re.compile(r"<\s*(br|/p|/div|/tr|/h[1-6]|/li|/table|/ul|/ol)\b[^>]*>", re.IGNORECASE)
_LINKS = re.compile(r"<a\b[^>]*\bhref=\"([^\"]*)\"[^>]*>(.*?)</a\s*>", re.IGNORECASE | re.DOTALL)
_CELLS = re.compile(r"</t[dh]\s*>", re.IGNORECASE)
_TAGS = re.compile(r"<[^>]*>")
_STYLE = re.compile(r"<(style|script|title)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def html_to_text(markup: str) -> str:
    """The text part of an e-mail written as HTML only: links as `label (url)`, one line per
    paragraph, row or item."""
    text = _STYLE.sub("", markup)
    text = _LINKS.sub(lambda m: f"{m.group(2)} ({m.group(1)})", text)
    text = _BREAKS.sub(lambda m: f"<{m.group(1)}>\n", text)
    text = _CELLS.sub("  ", text)
    text = html_lib.unescape(_TAGS.sub("", text))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip() + "\n"


@dataclass(frozen=True)
class Rendered:
    subject: str
    html: str
    text: str
