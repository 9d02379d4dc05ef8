"""Pydantic models for every tool's input and payload, in one datamodel-code-generator run."""

from __future__ import annotations

import json
from typing import Any

from codegen.catalog_types import Catalog


def shared_payloads(catalog: Catalog) -> dict[str, str]:
    """The tools whose payload is one shared schema (``{type: object, $ref: ...}``): NameOutput ->
    the schema's name.

    Such a payload is that schema's model, not a copy of it: ``NameOutput`` is written as another
    name for it, so a handler builds one model whether it returns the schema whole (scrape, crawl)
    or inside a list (batch_crawl).
    """
    found: dict[str, str] = {}
    for tool in catalog.tools:
        body = {k: v for k, v in tool.payload_schema.items() if k != "$defs"}
        ref = body.get("$ref")
        if isinstance(ref, str) and set(body) <= {"$ref", "type"}:
            found[f"{tool.class_stem}Output"] = ref.rsplit("/", 1)[-1]
    return found


def combined_document(catalog: Catalog) -> dict[str, Any]:
    """One JSON Schema whose ``$defs`` hold the shared schemas and each tool's input and payload.

    References between them already point at ``#/$defs/<Name>``, so one document
    resolves them all and the generator runs once for the whole catalog.
    """
    defs: dict[str, Any] = {name: schema for name, schema in sorted(catalog.shared.items())}
    aliases = shared_payloads(catalog)
    for tool in catalog.tools:
        for suffix, schema in (("Input", tool.input_schema), ("Output", tool.payload_schema)):
            name = f"{tool.class_stem}{suffix}"
            if name not in aliases:
                body = {k: v for k, v in schema.items() if k != "$defs"}
                defs[name] = {**body, "title": name}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "CatalogModels",
        "description": "Every model the catalog declares.",
        "type": "object",
        "$defs": defs,
    }


def render_models(catalog: Catalog, header: str) -> str:
    from datamodel_code_generator import generate
    from datamodel_code_generator._format_types import Formatter, PythonVersion
    from datamodel_code_generator._shared_types import LiteralType
    from datamodel_code_generator.enums import DataModelType, InputFileType, StrictTypes

    code = generate(
        json.dumps(combined_document(catalog), sort_keys=True),
        input_file_type=InputFileType.JsonSchema,
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_311,
        disable_timestamp=True,
        extra_fields="forbid",
        # Strings and booleans are strict. Numbers follow JSON Schema, the published contract, where
        # 4.0 is an integer: StrictInt would refuse what the schema accepts. The runtime validates
        # every call against the schema first, so "50", true and 1.5 never reach a model as an
        # integer.
        strict_types=[StrictTypes.str, StrictTypes.bool],
        # A field with a default is never None: `max_chars: int = 20000`, so the catalog's default
        # is the only one and a handler needs no fallback of its own.
        strict_nullable=True,
        # A date-time is a string the runtime formats (ISO 8601, UTC, milliseconds, +00:00):
        # a datetime would come back out of pydantic as ...20.123000Z, another wire for one instant.
        type_mappings=["string+date-time=string"],
        # A oneOf/anyOf that only says which properties must be there (a feed config's selectors or
        # auto_source) is a check on one model, not a union of near-copies (FeedConfig1 |
        # FeedConfig2 in a RootModel); uniqueItems too.
        generate_schema_validators=True,
        # A constrained string in a list is an alias of an annotated str, not a RootModel: args.urls
        # holds strings. (collapse_root_models keeps a constrained root model beside a list, by
        # design.)
        use_type_alias=True,
        # An object schema's title names its model (crawl's CrawlVisit, not Page).
        use_title_as_name=True,
        enum_field_as_literal=LiteralType.All,
        use_annotated=True,
        # A field named for a Python keyword or builtin (json_, schema_: aliased to the wire's
        # name) is built by its Python name, so a handler builds every payload with keyword
        # arguments mypy checks. The published schemas carry the alias alone, and the runtime
        # checks a call against them before any model sees it.
        allow_population_by_field_name=True,
        field_constraints=True,
        use_schema_description=True,
        use_field_description=True,
        keep_model_order=True,
        use_double_quotes=True,
        custom_file_header=header,
        formatters=[Formatter.BUILTIN],
    )
    if not isinstance(code, str):
        raise TypeError("datamodel-code-generator returned several modules; expected one")
    code = code if code.endswith("\n") else code + "\n"
    for name, target in sorted(shared_payloads(catalog).items()):
        code += (
            f'\n\n{name} = {target}\n"""The payload is the shared schema {target}: this is its '
            'model."""\n'
        )
    return code
