"""Request bodies: the portal's and the store's parsers, built on the one JSON loader
(common.jsonload: a depth limit, no NaN, no unstorable text)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from common.jsonload import MAX_JSON_DEPTH, UnusableInput, loads, unstorable_text_problem

__all__ = [
    "MAX_JSON_DEPTH",
    "JSONParser",
    "MultiPartParser",
    "UnusableInput",
    "loads",
    "unstorable_text_problem",
]


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser on `loads`: malformed, too deep or unstorable bodies are 400."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read()
        try:
            text = raw.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            raise ParseError(f"JSON parse error - the body is not valid {encoding}.") from None
        try:
            return loads(text)
        except UnusableInput as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


class MultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser, refusing field names, values and file names that hold NUL
    characters or unpaired surrogates (400, like a malformed JSON body), and bodies with more
    fields or files than DATA_UPLOAD_MAX_NUMBER_FIELDS / _FILES (400, not Django's
    SuspiciousOperation escaping DRF as a 500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            result = super().parse(stream, media_type, parser_context)
        except (TooManyFieldsSent, TooManyFilesSent) as exc:
            raise ParseError(f"Multipart parse error - {exc}") from None
        for name in result.data:
            for value in [name, *result.data.getlist(name)]:
                _refuse_unstorable(value, f"The form field {name!r}")
        for name, uploads in result.files.lists():
            for upload in uploads:
                _refuse_unstorable(upload.name or "", f"The name of the file in {name!r}")
        return result


def _refuse_unstorable(text: str, what: str) -> None:
    problem = unstorable_text_problem(text)
    if problem:
        raise ParseError(f"Multipart parse error - {what} {problem}.")
