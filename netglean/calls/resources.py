"""Resources and prompts: reading a resource by URI and rendering a prompt by name."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from netglean.calls.context import Context
from netglean.calls.registry import PromptSpec, ResourceSpec, resolve
from netglean.core import untrusted

ResourceHandler = Callable[..., Awaitable[str | Mapping[str, Any] | list[Any]]]


class ResourceNotFound(LookupError):
    pass


class PromptError(ValueError):
    """A prompt request that names an unknown prompt or leaves out a required argument."""


@dataclass(frozen=True, slots=True)
class ResourceBody:
    uri: str
    mime_type: str
    text: str


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{([A-Za-z_]+)\}", template)
    regex = "".join(
        re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/?#]+)" for i, p in enumerate(parts)
    )
    return re.compile(f"^{regex}$")


async def read_resource(
    specs: tuple[ResourceSpec, ...], context: Context, uri: str
) -> ResourceBody:
    """Find the resource (or template) matching ``uri`` and run its handler."""
    for spec in specs:
        variables: dict[str, str] | None = None
        if spec.uri is not None and spec.uri == uri:
            variables = {}
        elif spec.uri_template is not None:
            match = _template_pattern(spec.uri_template).match(uri)
            variables = (
                {spec.variables.get(k, k): v for k, v in match.groupdict().items()}
                if match
                else None
            )
        if variables is None:
            continue
        handler: ResourceHandler = resolve(spec.handler)
        body = await handler(context, **variables)
        # a project's or a run's fields, as a caller stored them: cleaned as tools' are
        if not isinstance(body, str):
            body = untrusted.clean_tree(body)
        text = (
            body
            if isinstance(body, str)
            else json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True)
        )
        return ResourceBody(uri, spec.mime_type, text)
    raise ResourceNotFound(uri)


def render_prompt(spec: PromptSpec, arguments: Mapping[str, str] | None) -> list[tuple[str, str]]:
    """Fill the prompt's placeholders; argument values are inserted as data, never evaluated."""
    given = dict(arguments or {})
    unknown = sorted(set(given) - {a.name for a in spec.arguments})
    if unknown:
        raise PromptError(f"prompt {spec.name!r} has no argument(s) {', '.join(unknown)}")
    values: dict[str, str] = {}
    for argument in spec.arguments:
        if argument.name in given:
            values[argument.name] = given[argument.name]
        elif argument.required:
            raise PromptError(f"prompt {spec.name!r} needs the argument {argument.name!r}")
        else:
            values[argument.name] = argument.default or ""
    return [(role, string.Template(text).substitute(values)) for role, text in spec.messages]
