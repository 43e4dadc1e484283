"""The builder's block types, each with the JSON Schema of its settings, and the validation of
a layout: a tree of blocks `{"type", "settings", "children"?}`.

A layout is a list of blocks. Only container types take children (`columns` holds `column`
blocks, a `column` holds content blocks); the tree is bounded in depth (MAX_DEPTH) and size
(MAX_BLOCKS). Settings validate against their type's schema (jsonschema, Draft 2020-12, no
unknown keys). Text is plain and every value is escaped when rendered (theme.builder.render);
the one block that carries markup, `rich_text`, is sanitised with nh3 (an allow-list of
formatting tags, links only to the URLs below) when it is saved and again when it is rendered.
URLs are http(s), site-relative (`/path`, not `//host`) or fragments (`#id`): never
`javascript:`, `data:` or any other scheme.

Pure: no database, so the API, the services, the presets' tests and the admin share it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

import nh3

MAX_DEPTH = 6
MAX_BLOCKS = 300
MAX_ERRORS = 20
MAX_ID = 2**63 - 1

# http(s) with a host, a site-relative path or a fragment; no spaces, quotes, angle brackets,
# backslashes (a browser reads `/\host` as `//host`) or control characters. It ends with
# (?![\s\S]), not $: Python's $ (jsonschema uses re.search) also matches before a final \n.
URL_PATTERN = (
    r"^(?:https?://[A-Za-z0-9.\-]+(?::[0-9]{1,5})?(?:[/?#][^\s\"'<>\\`\x00-\x1f\x7f]*)?"
    r"|/(?![/\\])[^\s\"'<>\\`\x00-\x1f\x7f]*"
    r"|#[A-Za-z0-9_\-:.]*)(?![\s\S])"
)
URL = {"type": "string", "maxLength": 2000, "pattern": URL_PATTERN}
_URL = re.compile(URL_PATTERN)
ALIGN = {"type": "string", "enum": ["left", "center", "right"], "default": "left"}
ID = {"type": "integer", "minimum": 1, "maximum": MAX_ID}


def _object(properties: dict, required: tuple[str, ...] = ()) -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class BlockType:
    type: str
    label: str
    description: str
    schema: dict
    children: tuple[str, ...] | None = None  # the child types a container takes
    max_children: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def container(self) -> bool:
        return self.children is not None


CONTENT = (
    "heading",
    "text",
    "rich_text",
    "image",
    "button",
    "columns",
    "product_grid",
    "spacer",
)
# What rich text keeps: formatting, lists, quotes, code and links; no images, tables, forms,
# styles, classes or scripts (their tags go, their text stays; script and style go whole).
RICH_TEXT_TAGS = frozenset(
    {"p", "br", "hr", "strong", "b", "em", "i", "u", "s", "sub", "sup", "small", "mark"}
    | {"h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "code", "pre", "a"}
)
RICH_TEXT_MAX = 20000


def _href(tag: str, attribute: str, value: str) -> str | None:
    """A link keeps its href only when it is one of the builder's URLs (the block rule)."""
    if attribute == "href":
        return value if len(value) <= 2000 and _URL.fullmatch(value) else None
    return value


@cache
def _cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=set(RICH_TEXT_TAGS),
        attributes={"a": {"href", "title"}},
        attribute_filter=_href,
        url_schemes={"http", "https"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def clean_rich_text(html) -> str:
    """`html` with only the allowed tags and attributes, every link's rel set, well formed."""
    return _cleaner().clean(html) if isinstance(html, str) else ""


BLOCK_TYPES: dict[str, BlockType] = {
    b.type: b
    for b in (
        BlockType(
            "heading",
            "Heading",
            "A title, h1 to h6.",
            _object(
                {
                    "text": {"type": "string", "minLength": 1, "maxLength": 300},
                    "level": {"type": "integer", "minimum": 1, "maximum": 6, "default": 2},
                    "align": ALIGN,
                    "anchor": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_-]{0,63}$"},
                },
                ("text",),
            ),
        ),
        BlockType(
            "text",
            "Text",
            "Plain text: blank lines make paragraphs, line breaks are kept; no markup (every "
            "character is shown as written).",
            _object(
                {
                    "text": {"type": "string", "maxLength": 20000},
                    "align": ALIGN,
                },
                ("text",),
            ),
        ),
        BlockType(
            "rich_text",
            "Rich text",
            "Formatted text as HTML: paragraphs, headings h2-h6, bold, italic, lists, quotes, "
            "code and links (http(s), site-relative or #fragment). Anything else is removed "
            "when saved (the text of an unknown tag stays; scripts and styles go whole), and "
            'every link gets rel="noopener noreferrer nofollow".',
            _object(
                {
                    "html": {"type": "string", "maxLength": RICH_TEXT_MAX},
                    "align": ALIGN,
                },
                ("html",),
            ),
        ),
        BlockType(
            "image",
            "Image",
            "An image by URL, with its alternative text and an optional link.",
            _object(
                {
                    "src": URL,
                    "alt": {"type": "string", "maxLength": 300},
                    "width": {"type": "integer", "minimum": 1, "maximum": 10000},
                    "height": {"type": "integer", "minimum": 1, "maximum": 10000},
                    "link": URL,
                    "caption": {"type": "string", "maxLength": 500},
                },
                ("src", "alt"),
            ),
        ),
        BlockType(
            "button",
            "Button",
            "A link styled as a button.",
            _object(
                {
                    "label": {"type": "string", "minLength": 1, "maxLength": 100},
                    "url": URL,
                    "style": {
                        "type": "string",
                        "enum": ["primary", "secondary", "link"],
                        "default": "primary",
                    },
                    "new_tab": {"type": "boolean", "default": False},
                    "align": ALIGN,
                },
                ("label", "url"),
            ),
        ),
        BlockType(
            "columns",
            "Columns",
            "A row of 1 to 6 `column` blocks.",
            _object(
                {
                    "gap": {
                        "type": "string",
                        "enum": ["none", "small", "medium", "large"],
                        "default": "medium",
                    },
                    "stack_on_mobile": {"type": "boolean", "default": True},
                }
            ),
            children=("column",),
            max_children=6,
        ),
        BlockType(
            "column",
            "Column",
            "One column of a `columns` block (only there): content blocks.",
            _object({"width": {"type": "integer", "minimum": 1, "maximum": 12}}),
            children=CONTENT,
            max_children=50,
        ),
        BlockType(
            "product_grid",
            "Product grid",
            "Products of the catalog: chosen by id (in that order), or a category's (by id), "
            "newest first. Only active products are shown.",
            {
                **_object(
                    {
                        "product_ids": {
                            "type": "array",
                            "items": ID,
                            "minItems": 1,
                            "maxItems": 48,
                            "uniqueItems": True,
                        },
                        "category_id": ID,
                        "limit": {"type": "integer", "minimum": 1, "maximum": 48, "default": 8},
                        "columns": {"type": "integer", "minimum": 1, "maximum": 6, "default": 4},
                        "title": {"type": "string", "maxLength": 200},
                    }
                ),
                "oneOf": [{"required": ["product_ids"]}, {"required": ["category_id"]}],
            },
        ),
        BlockType(
            "spacer",
            "Spacer",
            "Vertical space, in pixels.",
            _object({"height": {"type": "integer", "minimum": 0, "maximum": 400, "default": 32}}),
        ),
    )
}
TOP_LEVEL = CONTENT
BLOCK_KEYS = frozenset({"type", "settings", "children"})


@cache
def _strict_validator_class():
    """Draft 2020-12, but JSON Schema counts 2.0 as an integer and the builder takes integers
    only (what it stores is what it renders, and a 2.0 would fail the renderer's own checks).
    jsonschema is imported by the first validation, not by every process that loads the app."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
            "integer",
            lambda _checker, value: isinstance(value, int) and not isinstance(value, bool),
        ),
    )


@cache
def validator(block_type: str):
    schema = BLOCK_TYPES[block_type].schema
    strict = _strict_validator_class()
    strict.check_schema(schema)
    return strict(schema)


def _where(path: str, error) -> str:
    where = path + ".settings"
    for part in error.absolute_path:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return where


def _message(error) -> str:
    if error.validator == "pattern":
        return "Not an allowed URL or value (http(s), a site-relative path or a #fragment)."
    if error.validator == "oneOf":
        return "Give exactly one of product_ids or category_id."
    text = error.message
    return text if len(text) <= 200 else text[:197] + "..."


def check_layout(blocks) -> dict[str, list[str]]:
    """Each problem of the layout `blocks`, by where it is (`blocks[1].children[0].settings.
    level`); empty when valid. Stops after MAX_ERRORS problems or MAX_BLOCKS blocks."""
    errors: dict[str, list[str]] = {}
    count = 0

    def add(where: str, message: str) -> bool:
        errors.setdefault(where, []).append(message)
        return len(errors) < MAX_ERRORS

    def walk(items, path: str, depth: int, allowed: tuple[str, ...], most: int) -> bool:
        nonlocal count
        if not isinstance(items, list):
            return add(path, "Must be a list of blocks.")
        if len(items) > most:
            return add(path, f"At most {most} blocks here.")
        for index, block in enumerate(items):
            where = f"{path}[{index}]"
            count += 1
            if count > MAX_BLOCKS:
                add("blocks", f"At most {MAX_BLOCKS} blocks in a layout.")
                return False
            if not isinstance(block, dict):
                if not add(where, "Must be a block object {type, settings, children?}."):
                    return False
                continue
            unknown = sorted(str(k)[:40] for k in block if k not in BLOCK_KEYS)
            if unknown and not add(where, f"Unknown keys: {', '.join(unknown[:5])}."):
                return False
            kind = block.get("type")
            if not isinstance(kind, str) or kind not in BLOCK_TYPES:
                if not add(where + ".type", "Unknown block type (see GET /builder/blocks)."):
                    return False
                continue
            if kind not in allowed:
                if not add(where + ".type", f"A {kind} block is not allowed here."):
                    return False
                continue
            settings = block.get("settings", {})
            if not isinstance(settings, dict):
                if not add(where + ".settings", "Must be an object."):
                    return False
            else:
                for error in sorted(validator(kind).iter_errors(settings), key=str)[:3]:
                    if not add(_where(where, error), _message(error)):
                        return False
            spec = BLOCK_TYPES[kind]
            if spec.container:
                if depth >= MAX_DEPTH:
                    if not add(where, f"Nested too deep (at most {MAX_DEPTH} levels)."):
                        return False
                    continue
                children = block.get("children", [])
                if not walk(
                    children, where + ".children", depth + 1, spec.children, spec.max_children
                ):
                    return False
            elif "children" in block and not add(
                where + ".children", f"A {kind} block takes no children."
            ):
                return False
        return True

    walk(blocks, "blocks", 1, TOP_LEVEL, MAX_BLOCKS)
    return errors


def normalise(blocks: list) -> list:
    """A valid layout with every block's keys in their canonical form (settings and children
    always present on containers; settings always present; rich text sanitised)."""
    out = []
    for block in blocks:
        item = {"type": block["type"], "settings": dict(block.get("settings", {}))}
        if block["type"] == "rich_text":  # stored as it will be shown
            item["settings"]["html"] = clean_rich_text(item["settings"].get("html"))
        if BLOCK_TYPES[block["type"]].container:
            item["children"] = normalise(block.get("children", []))
        out.append(item)
    return out


def count_blocks(blocks: list) -> int:
    return sum(1 + count_blocks(b.get("children", [])) for b in blocks)


def product_references(blocks: list) -> tuple[set[int], set[int]]:
    """The product ids and category ids a (valid) layout's product grids name."""
    products: set[int] = set()
    categories: set[int] = set()
    for block in blocks if isinstance(blocks, list) else ():
        if not isinstance(block, dict):
            continue
        settings = block.get("settings")
        if block.get("type") == "product_grid" and isinstance(settings, dict):
            ids = settings.get("product_ids", [])
            if isinstance(ids, list):
                products.update(i for i in ids if isinstance(i, int))
            if isinstance(settings.get("category_id"), int):
                categories.add(settings["category_id"])
        sub_products, sub_categories = product_references(block.get("children", []))
        products |= sub_products
        categories |= sub_categories
    return products, categories


def describe() -> list[dict]:
    return [
        {
            "type": b.type,
            "label": b.label,
            "description": b.description,
            "container": b.container,
            "children": list(b.children) if b.container else [],
            "max_children": b.max_children,
            "top_level": b.type in TOP_LEVEL,
            "schema": b.schema,
        }
        for b in BLOCK_TYPES.values()
    ]
