"""The levels of recorded entries (Python's logging levels) and where an entry came from."""

from __future__ import annotations

from django.db import models


class Level(models.IntegerChoices):
    DEBUG = 10, "debug"
    INFO = 20, "info"
    WARNING = 30, "warning"
    ERROR = 40, "error"
    CRITICAL = 50, "critical"

    @classmethod
    def named(cls, name: str) -> Level:
        """`"warning"` (any case; `warn` and `fatal` as Python's logging has them) -> Level."""
        text = name.strip().lower()
        text = {"warn": "warning", "fatal": "critical"}.get(text, text)
        for level in cls:
            if level.label == text:
                return level
        raise ValueError(name)

    @classmethod
    def of(cls, levelno: int) -> Level:
        """The recorded level of a logging record's number (custom levels round down)."""
        found = cls.DEBUG
        for level in cls:
            if levelno >= level.value:
                found = level
        return found


LEVEL_NAMES = tuple(level.label for level in Level)


class Source(models.TextChoices):
    SERVER = "server", "Server log record"
    CLIENT = "client", "Client-side (js-log)"
    TEST = "test", "Test entry"
