"""Field specifications: the one declaration of every message field's type and bounds.

A message is a frozen dataclass whose fields are ``Annotated[type, Spec]``.  The
spec validates a decoded value (``check``), and describes itself for the docs
(``describe``); ``protocol.messages`` builds validation, the Python types and the
docs tables from these declarations alone.
"""

from __future__ import annotations

import typing
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, TypeVar

from .errors import ErrorCode, ProtocolError

T = TypeVar("T")


def _quoted(text: str) -> str:
    """A string in double quotes; quotes, backslashes and unprintable characters escaped."""
    def escaped(c: str) -> str:
        if c in '"\\':
            return "\\" + c
        if c.isprintable():
            return c
        return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
    return '"' + "".join(map(escaped, text)) + '"'


def brief(value: Any, depth: int = 0) -> str:
    """A decoded value in the wire's own terms (nil, true, "text", binary of N bytes, [..], {..}),
    bounded in depth and breadth (hostile frames nest deeply); never a Python repr."""
    if depth > 3:
        return "..."
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _quoted(value[:41])
    if isinstance(value, (bytes, bytearray)):
        return f"binary of {len(value)} byte{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        items = [f"{brief(k, depth + 1)}: {brief(v, depth + 1)}" for k, v in list(value.items())[:10]]
        return "{" + ", ".join(items + (["..."] if len(value) > 10 else [])) + "}"
    if isinstance(value, (list, tuple)):
        items = [brief(v, depth + 1) for v in value[:10]]
        return "[" + ", ".join(items + (["..."] if len(value) > 10 else [])) + "]"
    return str(value)  # an integer or a float


def shown(value: Any) -> str:
    """A short rendering of an offending value for an error message (at most 40 characters)."""
    text = brief(value)
    return text if len(text) <= 40 else text[:37] + "..."


_ZERO_WIDTH_JOINER = "\u200d"  # joins emoji such as 👨‍👩‍👧
_UNPRINTABLE = {"Cc", "Cs", "Zl", "Zp"}


def is_printable(text: str) -> bool:
    """No control, format (bidi overrides…) or line-breaking characters, but emoji joiners."""
    return all(
        unicodedata.category(c) not in _UNPRINTABLE
        and (unicodedata.category(c) != "Cf" or c == _ZERO_WIDTH_JOINER)
        for c in text
    )


def declared_fields(cls: type) -> tuple[tuple[str, Spec, bool], ...]:
    """(name, spec, required) for each field of a dataclass whose fields are
    ``Annotated[type, Spec]`` (a message or an event), in declaration order.

    A field is required when it has no default and nil is not allowed."""
    found = _DECLARED.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls, include_extras=True)
        declared = []
        for f in fields(cls):
            spec = next(m for m in hints[f.name].__metadata__ if isinstance(m, Spec))
            declared.append((f.name, spec, f.default is MISSING and not isinstance(spec, Optional)))
        found = _DECLARED[cls] = tuple(declared)
    return found


_DECLARED: dict[type, tuple[tuple[str, Spec, bool], ...]] = {}


def build(cls: type[T], data: Mapping[str, Any], path: str = "") -> T:
    """``cls`` from a decoded map, every field checked against its declaration (keys that are
    not fields are ignored); ProtocolError ``invalid`` names the first wrong field."""
    values: dict[str, Any] = {}
    for name, spec, required in declared_fields(cls):
        if name not in data or data[name] is None:
            if required:
                raise invalid(path + name, f"required field is missing ({spec.expected()})")
            if isinstance(spec, Optional):
                values[name] = None
            continue
        values[name] = spec.check(data[name], path + name)
    return cls(**values)


def invalid(path: str, problem: str) -> ProtocolError:
    return ProtocolError(ErrorCode.INVALID, f"{path}: {problem}", field=path)


class Spec(ABC):
    """One field's type and bounds."""

    @abstractmethod
    def check(self, value: Any, path: str) -> Any:
        """The validated (possibly normalised) value; raise ``invalid`` otherwise."""

    @abstractmethod
    def describe(self) -> str:
        """The type in words, as the docs' tables and error messages show it."""

    def expected(self) -> str:
        """'expected …' phrase for error messages."""
        return "expected " + self.describe()

    def wrong(self, value: Any, path: str) -> ProtocolError:
        return invalid(path, f"{self.expected()}, got {shown(value)}")


@dataclass(frozen=True)
class Int(Spec):
    low: int
    high: int

    def check(self, value: Any, path: str) -> int:
        if type(value) is not int or not self.low <= value <= self.high:
            raise self.wrong(value, path)
        return value

    def describe(self) -> str:
        return f"an integer {self.low}–{self.high}"


@dataclass(frozen=True)
class Number(Spec):
    """An integer or a float (msgpack int or float) within bounds."""

    low: float
    high: float

    def check(self, value: Any, path: str) -> float:
        if type(value) not in (int, float) or not self.low <= value <= self.high:
            raise self.wrong(value, path)
        number: float = value
        return number

    def describe(self) -> str:
        return f"a number {self.low:g}–{self.high:g}"


@dataclass(frozen=True)
class Bool(Spec):
    def check(self, value: Any, path: str) -> bool:
        if type(value) is not bool:
            raise self.wrong(value, path)
        return value

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Text(Spec):
    """A UTF-8 string of bounded length; ``printable`` rejects control characters."""

    min_len: int
    max_len: int
    printable: bool = True

    def check(self, value: Any, path: str) -> str:
        if type(value) is not str or not self.min_len <= len(value) <= self.max_len:
            raise self.wrong(value, path)
        if self.printable and not is_printable(value):
            raise invalid(path, "must not contain control characters")
        return value

    def describe(self) -> str:
        return f"a string of {self.min_len}–{self.max_len} characters"


@dataclass(frozen=True)
class OneOf(Spec):
    choices: tuple[str, ...]

    def check(self, value: Any, path: str) -> str:
        if value not in self.choices or type(value) is not str:
            raise self.wrong(value, path)
        return value

    def describe(self) -> str:
        return "one of " + ", ".join(f'"{c}"' for c in self.choices)


@dataclass(frozen=True)
class Binary(Spec):
    min_len: int
    max_len: int

    def check(self, value: Any, path: str) -> bytes:
        if type(value) is not bytes or not self.min_len <= len(value) <= self.max_len:
            raise self.wrong(value, path)
        return value

    def describe(self) -> str:
        if self.min_len == self.max_len:
            return f"binary of {self.min_len} bytes"
        return f"binary of {self.min_len}–{self.max_len} bytes"


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec
    min_len: int
    max_len: int

    def check(self, value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, (list, tuple)) or not self.min_len <= len(value) <= self.max_len:
            raise self.wrong(value, path)
        return tuple(self.item.check(v, f"{path}[{i}]") for i, v in enumerate(value))

    def describe(self) -> str:
        size = str(self.min_len) if self.min_len == self.max_len else f"{self.min_len}–{self.max_len}"
        return f"a list of {size} items, each {self.item.describe()}"


@dataclass(frozen=True)
class MapOf(Spec):
    """A map from some of ``keys`` to values that are each ``value``."""

    keys: tuple[str, ...]
    value: Spec

    def check(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict) or not set(value) <= set(self.keys):
            raise self.wrong(value, path)
        return {key: self.value.check(item, f"{path}.{key}") for key, item in value.items()}

    def describe(self) -> str:
        return f"a map from {' or '.join(self.keys)} to {self.value.describe()}"


@dataclass(frozen=True)
class Optional(Spec):
    """The inner spec, or nil (absent counts as nil)."""

    inner: Spec

    def check(self, value: Any, path: str) -> Any:
        return None if value is None else self.inner.check(value, path)

    def describe(self) -> str:
        return self.inner.describe() + ", or nil"


@dataclass(frozen=True)
class Record(Spec):
    """A map whose layout is documented elsewhere (views, events, options sent by the server).

    Only its kind and size are checked here; ``doc`` says where its fields are described.
    """

    doc: str
    max_keys: int = 64

    def check(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict) or len(value) > self.max_keys:
            raise self.wrong(value, path)
        return value

    def describe(self) -> str:
        return f"a map ({self.doc})"


@dataclass(frozen=True)
class Items(Spec):
    """A list of maps documented elsewhere (lobby entries, events)."""

    doc: str
    max_len: int

    def check(self, value: Any, path: str) -> tuple[dict[str, Any], ...]:
        if not isinstance(value, (list, tuple)) or len(value) > self.max_len:
            raise self.wrong(value, path)
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise invalid(f"{path}[{i}]", f"expected a map, got {shown(item)}")
        return tuple(value)

    def describe(self) -> str:
        return f"a list of up to {self.max_len} maps ({self.doc})"


@dataclass(frozen=True)
class Plain(Spec):
    """A small map of plain values, bounded all the way down: at most ``max_keys`` keys (short
    strings), each value an integer, a short string, or a list of at most ``max_items`` such
    values, lists nested at most ``max_depth`` deep.  Its meaning is checked elsewhere (a
    game's move: ``doc`` says where)."""

    doc: str
    max_keys: int = 4
    max_items: int = 3
    max_depth: int = 2
    max_text: int = 16

    def check(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict) or len(value) > self.max_keys:
            raise self.wrong(value, path)
        for key, item in value.items():
            if type(key) is not str or len(key) > self.max_text:
                raise invalid(path, f"keys must be strings of at most {self.max_text} characters, got {shown(key)}")
            self._check_item(item, f"{path}.{key}", 0)
        return value

    def _check_item(self, item: Any, path: str, depth: int) -> None:
        if type(item) is int or (type(item) is str and len(item) <= self.max_text):
            return
        if isinstance(item, (list, tuple)) and depth < self.max_depth and len(item) <= self.max_items:
            for i, inner in enumerate(item):
                self._check_item(inner, f"{path}[{i}]", depth + 1)
            return
        raise invalid(path, f"expected an integer, a string of at most {self.max_text} characters or a list "
                            f"of at most {self.max_items} of them (nested {self.max_depth} deep), got {shown(item)}")

    def describe(self) -> str:
        return f"a map of at most {self.max_keys} keys ({self.doc})"
