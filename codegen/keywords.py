"""The words of JSON Schema 2020-12 the catalog checks, and where a schema holds other schemas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.yaml_source import escape

SCHEMA_KEYWORDS = frozenset(
    """$schema $id $ref $anchor $dynamicRef $dynamicAnchor $vocabulary $comment $defs prefixItems
    items contains additionalProperties properties patternProperties dependentSchemas
    propertyNames if then else allOf anyOf oneOf not unevaluatedItems unevaluatedProperties type
    const enum multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength
    pattern maxItems minItems uniqueItems maxContains minContains maxProperties minProperties
    required dependentRequired title description default deprecated readOnly writeOnly examples
    format contentEncoding contentMediaType contentSchema""".split()
)
ONE_SCHEMA = frozenset(
    "items contains additionalProperties propertyNames if then else not unevaluatedItems "
    "unevaluatedProperties contentSchema".split()
)
"""Keywords whose value is one schema."""
SCHEMA_LISTS = frozenset({"prefixItems", "allOf", "anyOf", "oneOf"})
"""Keywords whose value is a list of schemas."""
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})
"""Keywords whose value maps names to schemas."""


def subschemas(key: str, value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """The schemas that keyword ``key`` (standing at ``where``) holds in ``value``, each with its
    pointer."""
    if key in ONE_SCHEMA:
        yield where, value
    elif key in SCHEMA_LISTS and isinstance(value, list):
        for index, inner in enumerate(value):
            yield f"{where}/{index}", inner
    elif key in SCHEMA_MAPS and isinstance(value, dict):
        for name, inner in value.items():
            yield f"{where}/{escape(name)}", inner
