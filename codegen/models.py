"""Pydantic models for every tool's input and payload, in one datamodel-code-generator run."""

from __future__ import annotations

import json
from typing import Any

from codegen.catalog import Catalog


def combined_document(catalog: Catalog) -> dict[str, Any]:
    """One JSON Schema whose ``$defs`` hold the shared schemas and each tool's input and payload.

    References between them already point at ``#/$defs/<Name>``, so one document
    resolves them all and the generator runs once for the whole catalog.
    """
    defs: dict[str, Any] = {name: schema for name, schema in sorted(catalog.shared.items())}
    for tool in catalog.tools:
        for suffix, schema in (("Input", tool.input_schema), ("Output", tool.payload_schema)):
            body = {k: v for k, v in schema.items() if k != "$defs"}
            defs[f"{tool.class_stem}{suffix}"] = {**body, "title": f"{tool.class_stem}{suffix}"}
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
        # Strings and booleans are strict. Numbers follow JSON Schema, the published contract, where 4.0
        # is an integer: StrictInt would refuse what the schema accepts. The runtime validates every
        # call against the schema first, so "50", true and 1.5 never reach a model as an integer.
        strict_types=[StrictTypes.str, StrictTypes.bool],
        enum_field_as_literal=LiteralType.All,
        use_annotated=True,
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
    return code if code.endswith("\n") else code + "\n"
