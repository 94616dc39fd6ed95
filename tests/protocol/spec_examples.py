"""Valid example values and Hypothesis strategies derived from field specs alone.

Both walk a message's declared ``Spec``s, so a new message type is covered by the
round-trip tests without touching them; a new *kind* of Spec makes them fail loudly
until it is taught here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from protocol.errors import ProtocolError
from protocol.messages import Message, field_specs
from protocol.schema import Binary, Bool, Int, Items, ListOf, MapOf, Number, OneOf, Optional, Plain, Record, Spec, Text

# Characters that exercise UTF-8 (multi-byte) while staying printable.
_SAMPLE_TEXT = "Aton é ☥ 𓂀 x"


def example_value(spec: Spec) -> Any:
    """One valid value for ``spec``, in the form ``parse`` returns it (tuples for lists)."""
    if isinstance(spec, Int):
        return spec.low + (spec.high - spec.low) // 3
    if isinstance(spec, Number):
        return spec.low + (spec.high - spec.low) / 4
    if isinstance(spec, Bool):
        return True
    if isinstance(spec, Text):
        size = max(spec.min_len, min(spec.max_len, len(_SAMPLE_TEXT)))
        return (_SAMPLE_TEXT * (size // len(_SAMPLE_TEXT) + 1))[:size]
    if isinstance(spec, OneOf):
        return spec.choices[-1]
    if isinstance(spec, Binary):
        size = max(spec.min_len, min(spec.max_len, 20))
        return bytes((7 * i + 200) % 256 for i in range(size))
    if isinstance(spec, ListOf):
        size = max(spec.min_len, min(spec.max_len, 3))
        item = example_value(spec.item)
        return tuple(item for _ in range(size))
    if isinstance(spec, Optional):
        return example_value(spec.inner)
    if isinstance(spec, MapOf):
        return {key: example_value(spec.value) for key in spec.keys}
    if isinstance(spec, Record):
        return {"name": "Ra", "n": -3, "flag": False, "nested": {"list": [1, "two", None]}}
    if isinstance(spec, Items):
        return tuple({"key": i, "label": f"entry {i}"} for i in range(min(spec.max_len, 2)))
    if isinstance(spec, Plain):
        return {"kind": "program", "cards": [[1, "fog"], [3, "crab"], [6, "net"]]}
    raise TypeError(f"example_value does not know {type(spec).__name__}: teach it this Spec kind")


def has_default(cls: type[Message], name: str) -> bool:
    """Whether the dataclass field ``name`` may be left out of the constructor."""
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    return field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING


def example_message(cls: type[Message], *, optional: str = "filled") -> Message:
    """An instance of ``cls`` built from its declaration.

    optional="filled": every field gets an example value;
    optional="omitted": fields with a default are left out (they keep it);
    optional="nil": every field declared ``Optional`` is None, the others get examples.
    """
    values: dict[str, object] = {}
    for name, spec, _ in field_specs(cls):
        if optional == "omitted" and has_default(cls, name):
            continue
        if optional == "nil" and isinstance(spec, Optional):
            values[name] = None
        else:
            values[name] = example_value(spec)
    return cls(**values)


# ------------------------------------------------------------------ Hypothesis strategies

MSGPACK_INT = st.integers(min_value=-(2**63), max_value=2**64 - 1)
MSGPACK_SCALARS = (
    st.none()
    | st.booleans()
    | MSGPACK_INT
    | st.floats(allow_nan=False)  # NaN != NaN would spoil equality checks, nothing else
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
# Arbitrary msgpack-encodable structures: maps with string keys, as the decoder allows.
MSGPACK_VALUES = st.recursive(
    MSGPACK_SCALARS,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=25,
)
# What msgpack hands back for a Record/Items entry (lists, never tuples).
_RECORD_VALUES = st.recursive(
    st.none() | st.booleans() | MSGPACK_INT | st.text(max_size=10) | st.binary(max_size=10),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=10,
)


def _fits(spec: Spec, value: Any) -> bool:
    try:
        spec.check(value, "")
    except ProtocolError:
        return False
    return True


def valid_values(spec: Spec) -> st.SearchStrategy:
    """Every value ``spec`` accepts (in the form ``parse`` returns it)."""
    if isinstance(spec, Int):
        return st.integers(spec.low, spec.high)
    if isinstance(spec, Bool):
        return st.booleans()
    if isinstance(spec, Text):
        if spec.printable:  # str.isprintable: no C* or Z* category except the ASCII space
            chars = st.characters(codec="utf-8", include_characters=" ",
                                  exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"))
        else:
            chars = st.characters(codec="utf-8")
        return st.text(chars, min_size=spec.min_len, max_size=min(spec.max_len, 80))
    if isinstance(spec, OneOf):
        return st.sampled_from(spec.choices)
    if isinstance(spec, Binary):
        return st.binary(min_size=spec.min_len, max_size=min(spec.max_len, 80))
    if isinstance(spec, ListOf):
        return st.lists(valid_values(spec.item), min_size=spec.min_len,
                        max_size=min(spec.max_len, 10)).map(tuple)
    if isinstance(spec, Optional):
        return st.none() | valid_values(spec.inner)
    if isinstance(spec, MapOf):
        return st.dictionaries(st.sampled_from(spec.keys), valid_values(spec.value), max_size=len(spec.keys))
    if isinstance(spec, Record):
        return st.dictionaries(st.text(max_size=8), _RECORD_VALUES, max_size=min(spec.max_keys, 5))
    if isinstance(spec, Items):
        entry = st.dictionaries(st.text(max_size=8), _RECORD_VALUES, max_size=4)
        return st.lists(entry, max_size=min(spec.max_len, 4)).map(tuple)
    if isinstance(spec, Plain):
        leaf = st.integers(-(2**31), 2**31) | st.text(max_size=spec.max_text)
        item = st.recursive(leaf, lambda children: st.lists(children, max_size=spec.max_items), max_leaves=6)
        return st.dictionaries(st.text(max_size=spec.max_text), item, max_size=spec.max_keys).filter(
            lambda value: _fits(spec, value))
    raise TypeError(f"valid_values does not know {type(spec).__name__}: teach it this Spec kind")


@st.composite
def valid_messages(draw, cls: type[Message]) -> Message:
    """A valid instance of ``cls``; optional fields are sometimes left at their default."""
    values = {}
    for name, spec, _ in field_specs(cls):
        if not has_default(cls, name) or draw(st.booleans()):
            values[name] = draw(valid_values(spec))
    return cls(**values)
