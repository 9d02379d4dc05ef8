"""Feed configs in the html2rss format: read from YAML or an object, checked, parameters filled in.

The format's JSON Schema is catalog/schemas/FeedConfig.yaml (generated, bundled, into
generated/schemas/shared/). Checking goes past the schema where a config could pass it and
still not work: a regex that does not compile, a template naming no field, a time zone that
does not exist, a channel that is not an http(s) page. Every problem carries the JSON
pointer of the offending value and a sentence a person understands.

A key the schema does not name is not a problem: html2rss ignores such keys (a comment, a
``methods`` in a template step), so configs written for it carry them. Each becomes a warning at
its own pointer, with the closest key the schema names (a typo is still caught), and the config
runs without it. An object schema that names its ``properties`` and says nothing of other keys
is one whose other keys are unknown; ``additionalProperties`` makes them values (fields, headers).
"""

from __future__ import annotations

import copy
import difflib
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from netglean.core.validation import (
    MAX_REPORTED,
    json_type,
    quote_name,
    quote_value,
    shorten_message,
)
from netglean.feeds import steps as feed_steps
from netglean.feeds.problems import Problem, invalid, json_pointer
from netglean.feeds.selectors import selector_problem

SCHEMA_FILE = (
    Path(__file__).resolve().parents[1] / "generated" / "schemas" / "shared" / "FeedConfig.json"
)
RESERVED_SELECTORS = frozenset({"items", "categories", "guid"})
EXTRACTORS: dict[str, str] = {
    "attribute": "The first element's value of the attribute named by `attribute` (src, "
    "datetime, data-*...).",
    "href": "The first element's href attribute, made absolute against the page URL.",
    "html": "The outer HTML of every element the selector finds, joined and sanitised (no "
    "scripts, styles, handlers or frames; URLs made absolute).",
    "static": "The fixed value given as `static`; no element is read.",
    "text": "The text of every element the selector finds, joined by a space, whitespace "
    "collapsed (the default).",
}
"""The extractors a field may name, alphabetically, each with what it takes."""
STRATEGIES: dict[str, str] = {
    "auto": "Plain HTTP through netglean's fetcher; the page is rendered in the server's browser "
    "when it gives no items over HTTP (a single-page app's listing).",
    "faraday": "Plain HTTP through netglean's fetcher, never rendered.",
    "botasaurus": "Rendered in the server's browser (Chromium, inside the same network policy).",
    "browserless": "Rendered in the server's browser (Chromium, inside the same network policy).",
}
"""The request strategies a config may name (net.strategy's), each with what it means here."""
DEFAULT_STRATEGY = "faraday"
"""What a config that names no strategy gets, as in html2rss: plain HTTP."""
MCP_STRATEGIES = ("auto", "faraday", "botasaurus")
"""The strategies html2rss's MCP server publishes (html2rss://strategies): browserless is a strategy
of configs it does not offer to MCP clients, and local_file is never one."""
_PARAMETER = re.compile(r"%<(\w+)>s")


@functools.cache
def config_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(config_schema())


def problems(config: Any) -> list[Problem]:
    """Everything wrong with ``config``, schema first, then what only running it would reveal."""
    if not isinstance(config, dict):
        return [
            Problem(
                "", f"a config is a mapping (channel, selectors, ...), not {type(config).__name__}"
            )
        ]
    found = [_explain(error) for error in _validator().iter_errors(config)]
    found = sorted(set(found), key=lambda p: (p.path, p.message))
    return found or _semantic_problems(config)


def without_unknown_keys(config: Any) -> tuple[Any, list[Problem]]:
    """``config`` without the keys the format does not name (html2rss ignores them, and so does
    netglean), and a warning for each, at the key's own pointer and with the closest key that is
    named there."""
    found: list[Problem] = []
    kept = _known(config, config_schema(), "", found)
    return kept, sorted(found, key=lambda p: p.path)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A config ready to run, and what the caller should know about how it was read."""

    config: dict[str, Any]
    """The config as it runs: only the keys the format names, its parameters filled in."""
    warnings: tuple[Problem, ...]
    """The keys left out (unknown to the format), and a url argument the config's own channel.url
    overrides."""


def load(
    config: Any, parameters: dict[str, Any] | None = None, *, url: str | None = None
) -> Loaded:
    """A checked config with its parameters filled in, or InvalidFeedConfig listing every problem
    (and the warnings). ``url`` stands in for a missing channel.url, as html2rss's apply_config
    takes it."""
    config, own = _with_url(config, url)
    kept, unknown = without_unknown_keys(config)
    # A parameterised channel.url is compared with the url argument once its parameters are filled
    # in.
    compared = url if own is not None and url is not None and not _PARAMETER.search(own) else None
    warnings = (*unknown, *_url_note(own, compared))
    found = problems(kept)
    if found:
        raise invalid(found, warnings)
    values = {name: spec.get("default") for name, spec in (kept.get("parameters") or {}).items()}
    for name, value in (parameters or {}).items():
        if name not in values:
            problem = Problem(
                json_pointer(["parameters", name]),
                f"the config has no parameter {quote_value(name)} (it has: "
                f"{_names(sorted(values))})",
            )
            raise invalid([problem], warnings)
        values[name] = value
    filled = copy.deepcopy(kept)
    for section in ("channel", "headers"):  # where html2rss fills parameters in
        if section in filled:
            filled[section] = _fill(filled[section], values, warnings, f"/{section}")
    channel_url = filled["channel"]["url"]
    if compared is None and url is not None:
        warnings = (*warnings, *_url_note(channel_url, url))
    if not re.match(r"https?://", channel_url, re.IGNORECASE):
        problem = Problem(
            "/channel/url",
            f"{quote_value(channel_url)} is not an http(s) URL; tools never read local files",
        )
        raise invalid([problem], warnings)
    return Loaded(dict(filled), warnings)


def _with_url(config: Any, url: str | None) -> tuple[Any, str | None]:
    """``config`` with ``url`` as its channel.url when it has none, and its own channel.url when it
    has one."""
    if (
        url is None
        or not isinstance(config, dict)
        or not isinstance(config.get("channel", {}), dict)
    ):
        return config, None
    channel = config.get("channel", {})
    if "url" not in channel:
        return {**config, "channel": {**channel, "url": url}}, None
    own = channel["url"]
    return config, own if isinstance(own, str) else None


def _url_note(own: str | None, url: str | None) -> tuple[Problem, ...]:
    """A warning when the config's own channel.url, the page it reads, is not the url argument."""
    if own is None or url is None or own == url:
        return ()
    note = (
        "the config's own channel.url is read, not the url argument, which stands in only for a "
        "missing one"
    )
    return (Problem("/channel/url", note),)


def _names(names: list[str]) -> str:
    """Names of the config's own (its parameters), each cut short, at most MAX_REPORTED of them."""
    if not names:
        return "none"
    more = f" and {len(names) - MAX_REPORTED} more" if len(names) > MAX_REPORTED else ""
    return ", ".join(quote_name(name) for name in names[:MAX_REPORTED]) + more


def _known(value: Any, schema: dict[str, Any], path: str, found: list[Problem]) -> Any:
    """``value`` without the keys ``schema`` does not name, each added to ``found`` as a warning. Of
    a oneOf or anyOf, the branch meant for the value's JSON type is the one whose keys count."""
    schema = _resolved(schema)
    for keyword in ("oneOf", "anyOf"):
        branch = next((b for b in schema.get(keyword, ()) if _meant_for(_resolved(b), value)), None)
        if branch is not None:
            value = _known(value, branch, path, found)
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        kept: dict[str, Any] = {}
        for key, inner in value.items():
            where = f"{path}/{json_pointer([key])[1:]}"
            if key in properties:
                kept[key] = _known(inner, properties[key], where, found)
            elif isinstance(extra, dict):
                kept[key] = _known(inner, extra, where, found)
            elif properties and extra is None and isinstance(key, str):
                found.append(Problem(where, _unknown_key(key, path, sorted(properties))))
            else:
                kept[key] = inner
        return kept
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        return [_known(inner, items, f"{path}/{n}", found) for n, inner in enumerate(value)]
    return value


def _resolved(schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved: dict[str, Any] = config_schema()["$defs"][ref.removeprefix("#/$defs/")]
        return resolved
    return schema


def _meant_for(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``schema`` states the JSON type ``value`` has (a schema that states none is meant for
    any)."""
    stated = schema.get("type")
    if stated is None:
        return True
    kinds = {stated} if isinstance(stated, str) else set(stated)
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return bool(kinds & {"integer", "number"})
    return json_type(value) in kinds


def _unknown_key(key: str, path: str, known: list[str]) -> str:
    said = (
        f"{quote_value(key)} is not a key of {_named(path)}, so it is ignored (as html2rss "
        "ignores it)"
    )
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return f"{said}; did you mean {close[0]!r}?"
    return f"{said}; the keys there are: {', '.join(known)}"


def _fill(value: Any, values: dict[str, Any], warnings: tuple[Problem, ...], path: str = "") -> Any:
    """Replace %<name>s with parameter values in every string."""
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in values:
                raise invalid(
                    [Problem(path, f"%<{quote_name(name)}>s names no parameter")], warnings
                )
            return str(values[name])

        return _PARAMETER.sub(replace, value)
    if isinstance(value, dict):
        return {k: _fill(v, values, warnings, path + json_pointer([k])) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, values, warnings, f"{path}/{i}") for i, v in enumerate(value)]
    return value


def _explain(error: Any) -> Problem:
    """One schema error as a sentence; for oneOf/anyOf the most specific inner error speaks."""
    from jsonschema.exceptions import best_match

    if error.validator == "anyOf" and not error.absolute_path:
        return Problem("", "a config needs selectors (with items) or auto_source")
    if error.context:
        # The branch the value was meant for: not one that merely wanted another type here.
        meant = [
            e
            for e in error.context
            if e.validator != "type" or len(e.absolute_path) > len(error.absolute_path)
        ]
        inner = best_match(meant or error.context, key=lambda e: -len(e.absolute_path))
        if inner is not None and len(inner.absolute_path) >= len(error.absolute_path):
            return _explain(inner)
    path = json_pointer(error.absolute_path)
    kind, value, schema = error.validator, error.instance, error.schema
    where = _named(path)
    if kind == "required":
        missing = re.findall(r"'([^']+)' is a required property", error.message)
        name = missing[0] if missing else error.message
        hint = (schema.get("properties", {}).get(name) or {}).get("description", "")
        subject = (
            f"{quote_name(str(value['name']))} needs"
            if isinstance(value, dict) and "name" in value
            else f"{where} needs"
        )
        return Problem(path, f"{subject} {name!r}" + (f": {hint}" if hint else ""))
    if kind == "enum":
        choices = ", ".join(str(c) for c in error.validator_value)
        return Problem(
            path, f"{quote_value(value)} is not allowed for {where}; use one of: {choices}"
        )
    if kind == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return Problem(
            path,
            f"{where} must be {_article(expected)}, not {_json_type(value)} {quote_value(value)}",
        )
    if kind in {"minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength"}:
        return Problem(path, shorten_message(f"{where}: {_quoted_briefly(error.message, value)}"))
    return Problem(path, shorten_message(_quoted_briefly(error.message, value)))


def _quoted_briefly(message: str, value: Any) -> str:
    """jsonschema's message with the value it quotes (as Python writes it) cut short by
    ``quote_value``."""
    return message.replace(repr(value), quote_value(value), 1)


def _named(path: str) -> str:
    """What a message calls the value at ``path``: its key, or an item as list[n]
    (post_process[0])."""
    if not path:
        return "the config"
    parts = path.split("/")
    last = parts[-1]
    return f"{parts[-2]}[{last}]" if last.isdigit() and len(parts) > 2 else last


def _article(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _json_type(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
    }.get(type(value), type(value).__name__)


def _semantic_problems(config: dict[str, Any]) -> list[Problem]:
    found: list[Problem] = []
    if "local_file_path" in (config.get("request") or {}):
        hint = "the tools never read local files (html2rss's CLI reads a fixture with --input)"
        found.append(
            Problem("/request/local_file_path", f"a local file cannot be the page: {hint}")
        )
    zone = config["channel"].get("time_zone")
    if zone and not _known_zone(zone):
        found.append(
            Problem(
                "/channel/time_zone",
                f"{quote_value(zone)} is not a known IANA time zone (like Europe/Berlin)",
            )
        )
    selectors: dict[str, Any] = config.get("selectors") or {}
    found.extend(_selector_problems(selectors))
    if "url" in selectors and "link" in selectors:
        found.append(
            Problem(
                "/selectors/link",
                "give url or link, not both: link is html2rss's older name for url",
            )
        )
    fields = {name for name in selectors if name not in RESERVED_SELECTORS}
    for listing in ("categories", "guid"):
        for index, name in enumerate(selectors.get(listing) or []):
            if name not in fields:
                found.append(
                    Problem(
                        f"/selectors/{listing}/{index}",
                        f"{quote_value(name)} names no field of the selectors",
                    )
                )
    for name in sorted(fields):
        steps = selectors[name].get("post_process") or []
        for index, step in enumerate(steps if isinstance(steps, list) else [steps]):
            path = json_pointer(["selectors", name, "post_process"]) + (
                f"/{index}" if isinstance(steps, list) else ""
            )
            found.extend(_step_problems(step, path, fields))
    return found


def _selector_problems(selectors: dict[str, Any]) -> list[Problem]:
    """Selectors lexbor cannot read, even after the rewrite of Nokogiri's additions (:first,
    :eq(n)...)."""
    items = (selectors.get("items") or {}).get("selector")
    if not isinstance(items, str):
        return []
    found: list[Problem] = []
    if (problem := selector_problem(items)) is not None:
        return [Problem("/selectors/items/selector", problem)]
    pagination = (selectors["items"].get("pagination") or {}).get("selector")
    if pagination and (problem := selector_problem(pagination)) is not None:
        found.append(Problem("/selectors/items/pagination/selector", problem))
    for name, spec in sorted(selectors.items()):
        if name in RESERVED_SELECTORS or not isinstance(spec, dict) or not spec.get("selector"):
            continue
        if (problem := selector_problem(spec["selector"], items=items)) is not None:
            found.append(Problem(json_pointer(["selectors", name, "selector"]), problem))
    return found


def _step_problems(step: dict[str, Any], path: str, fields: set[str]) -> list[Problem]:
    import regex

    from netglean.read.patterns import ruby_regex

    found: list[Problem] = []
    if step["name"] == "gsub":
        try:
            ruby_regex(step["pattern"])
        except regex.error as exc:
            found.append(
                Problem(f"{path}/pattern", shorten_message(f"the pattern does not compile: {exc}"))
            )
    if step["name"] == "template":
        for match in feed_steps.TEMPLATE_REFERENCE.finditer(step["string"]):
            name = match.group(1) or match.group(2)
            if name != "self" and name not in fields:
                found.append(
                    Problem(
                        f"{path}/string",
                        f"the template names {quote_value(name)}, which is no field",
                    )
                )
    if (
        step["name"] == "parse_time"
        and step.get("time_zone")
        and not _known_zone(step["time_zone"])
    ):
        found.append(
            Problem(
                f"{path}/time_zone",
                f"{quote_value(step['time_zone'])} is not a known IANA time zone",
            )
        )
    return found


def _known_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True
