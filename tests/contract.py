"""What every tool result must satisfy, and the mutations every tool must reject cleanly.

Nothing here names a tool: it reads the registry and the published tool listing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema_rs
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from schemathesis.generation.jsonschema.builder import build

from netglean.registry import ToolSpec

# Values of every JSON type; a "wrong type" mutation picks the first one a property refuses.
_CANDIDATES: tuple[Any, ...] = ("text", 12345, 1.5, True, None, [1], {"k": 1})


def arguments_strategy(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Valid arguments drawn from the input schema by schemathesis's JSON Schema 2020-12 generator."""
    return build(dict(schema), draft=jsonschema_rs.Draft202012, formats={})


def assert_envelope(result: Any, spec: ToolSpec, published_output: Mapping[str, Any]) -> dict[str, Any]:
    """The MCP result is a valid envelope: schema, isError, next_step and text block all agree."""
    envelope = result.structured_content
    assert isinstance(envelope, dict), f"{spec.name}: no structured content"
    errors = sorted(Draft202012Validator(published_output).iter_errors(envelope), key=str)
    assert not errors, f"{spec.name}: envelope breaks its published schema: {errors[0].message}"
    assert result.is_error is (not envelope["ok"])
    assert envelope["next_step"] in {*spec.next_step, spec.name}
    assert len(result.content) == 1 and result.content[0].type == "text"
    text = result.content[0].text
    if spec.origin == "target":
        assert "BEGIN UNTRUSTED CONTENT" in text and text.rstrip().split("\n")[-1].startswith(
            "<<<END UNTRUSTED CONTENT"
        )
    else:
        assert json.loads(text) == envelope
    return envelope


def _refuses(schema: Mapping[str, Any], value: Any, defs: Mapping[str, Any]) -> bool:
    return not Draft202012Validator({**schema, "$defs": defs}).is_valid(value)


def mutations(spec: ToolSpec, base: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(what, arguments, argument the error must name) for every generic way to get arguments wrong."""
    schema = spec.input_schema
    defs = schema.get("$defs", {})
    properties: Mapping[str, Any] = schema.get("properties", {})
    if not schema.get("additionalProperties", False):
        yield "unknown key", {**base, "zz_not_an_argument": 1}, "zz_not_an_argument"
    for name in schema.get("required", []):
        yield f"missing {name}", {k: v for k, v in base.items() if k != name}, name
    for name, prop in properties.items():
        wrong = next((v for v in _CANDIDATES if _refuses(prop, v, defs)), None)
        if wrong is not None:
            yield f"wrong type for {name}", {**base, name: wrong}, name
        if prop.get("type") == "integer":
            yield f"'50' for integer {name}", {**base, name: "50"}, name
        for bound, step in (("maximum", 1), ("minimum", -1)):
            if isinstance(prop.get(bound), int | float):
                yield f"{name} beyond {bound}", {**base, name: prop[bound] + step}, name
        if "enum" in prop:
            yield f"{name} outside its enum", {**base, name: "zz-not-a-choice"}, name
        if isinstance(prop.get("maxLength"), int) and prop["maxLength"] <= 10_000:
            yield f"{name} too long", {**base, name: "x" * (prop["maxLength"] + 1)}, name


def assert_names_argument(envelope: Mapping[str, Any], argument: str) -> None:
    assert envelope["ok"] is False
    error = envelope["payload"]["error"]
    assert error["code"] == "invalid_arguments", error
    named = {problem["argument"] for problem in error["detail"]["errors"]}
    assert argument in named, f"error names {named}, not {argument!r}: {error['message']}"
    assert argument in error["message"]


def assert_matches_example(envelope: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    assert envelope["ok"] is expect["ok"]
    assert envelope["next_step"] == expect["next_step"]
    if "error" in expect:
        assert envelope["payload"]["error"]["code"] == expect["error"]
    if "payload" in expect:
        assert envelope["payload"] == expect["payload"]
    for key, value in expect.get("payload_includes", {}).items():
        assert envelope["payload"][key] == value
