"""What every tool result must satisfy, how the fuzzer draws arguments, and the mutations every tool
must reject.

Nothing here names a tool: it reads the registry, the published tool listing and the shared schemas.
What a property is for is read from its schema: a property named ``url``/``urls`` (or ``*_url``, or
with ``format: uri``) holds URLs, drawn mostly from the fixture site; a ``config`` object or
``yaml`` string (or a ``$ref`` to the shared ``FeedConfig``) holds a feed config, drawn from the
real html2rss configs and the feed fixtures; a ``*_selector`` string holds a CSS selector. Every
other value comes from the schema's own generator (schemathesis's JSON Schema 2020-12 generator).
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import functools
import itertools
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import jsonschema_rs
import yaml
from hypothesis import Phase, find
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from schemathesis.generation.jsonschema.builder import build

from netglean.calls.registry import ToolSpec
from netglean.core import untrusted
from tests.support.fuzz_site import World
from tests.support.paths import PROJECT

MIN_OK_SHARE = {"fast": 0.2, "full": 0.3}
"""The least share of valid generated inputs each tool must succeed on, by depth: a share over the
fast set's 100 calls strays further from the tool's rate than one over the full set's 400 (two
standard errors of 0.3: 0.09 and 0.05). At the default seed the lowest is download's, 25% of the
first 100 and 34% of 400."""
NEVER_SUCCEEDS = frozenset({"build_project"})
"""Tools that say what this server cannot do (RTILA's builder, for a person): every answer is
not_available."""
STATS: defaultdict[str, defaultdict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
"""What each fuzz test saw, by test and tool: result codes ("ok" for a success); printed after the
run."""
NONCE_CHECKS: Counter[str] = Counter()
"""Target-origin results whose nonce was recomputed from the BEGIN marker's source and the framed
text ("checked"), and those whose notice showed the source exactly, so that the marker's spelling of
it was checked too ("named")."""
SHARED_SCHEMAS = PROJECT / "netglean" / "generated" / "schemas" / "shared"
NOTICE_KEY = "untrusted_content_notice"

# Values of every JSON type; a "wrong type" mutation picks the first one a property refuses.
_CANDIDATES: tuple[Any, ...] = ("text", 12345, 1.5, True, None, [1], {"k": 1})
UNKNOWN = "zz_not_an_argument"

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Arbitrary JSON values."""


def dump_yaml(value: Any) -> str:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(value, Dumper=dumper, sort_keys=False, allow_unicode=True)


PROJECT_PACKAGES = ("codegen", "netglean")


def import_project_modules() -> None:
    """Import every module of the project's packages (not ``__main__``) before any fuzzing.

    Hypothesis draws some values from the constants it finds in the local modules loaded so far, and
    netglean loads its handlers and reading layers lazily, on a first call or when a server warms up
    in its quiet moments. Without this, what a seed generates would depend on which tests ran before
    and on timing, and a failure could not be replayed alone."""
    import importlib
    import pkgutil

    for name in PROJECT_PACKAGES:
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)


def result_code(envelope: Mapping[str, Any]) -> str:
    """The result's error code, or "ok"; a crash anywhere in it (the call's, or one entry's of a
    batch or a crawl) is "internal_error"."""
    if "internal_error" in entry_codes(envelope["payload"]):
        return "internal_error"
    return "ok" if envelope["ok"] else str(envelope["payload"]["error"]["code"])


class Tally:
    """Counts one fuzz test's results for the report printed after the run, until its first failure:
    what hypothesis calls after that (shrinking, replaying) would only skew the shares."""

    def __init__(self, test: str, tool: str) -> None:
        self.codes = STATS[test][tool]
        self.failed = False

    def record(self, envelope: Mapping[str, Any]) -> str:
        code = result_code(envelope)
        if not self.failed:
            self.codes[code] += 1
        return code

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """Stop counting once a check fails inside."""
        try:
            yield
        except BaseException:
            self.failed = True
            raise


def entry_codes(value: Any) -> Iterator[str]:
    """The code of every error object inside a payload (a batch's failed entries, a crawl's failed
    pages)."""
    if isinstance(value, Mapping):
        error = value.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("code"), str):
            yield error["code"]
        for inner in value.values():
            yield from entry_codes(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from entry_codes(inner)


# --- Reading schemas ------------------------------------------------------------------------------


def _resolve(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    while isinstance(schema, Mapping) and "$ref" in schema:
        schema = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
    return schema


def _types(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return set(kind)
    return set()


def _branch(schema: Mapping[str, Any], want: str, defs: Mapping[str, Any]) -> Mapping[str, Any]:
    """The alternative of a oneOf/anyOf that takes ``want`` (array, object), or the schema
    itself."""
    schema = _resolve(schema, defs)
    for alternative in [*schema.get("oneOf", []), *schema.get("anyOf", [])]:
        resolved = _resolve(alternative, defs)
        if want in _types(resolved):
            return resolved
    return schema


def is_url(name: str, schema: Mapping[str, Any]) -> bool:
    """A property (or array of them) that holds URLs to fetch."""
    formats = {schema.get("format"), (schema.get("items") or {}).get("format")}
    return (
        name in {"url", "urls"}
        or name.endswith(("_url", "_urls"))
        or bool(formats & {"uri", "iri"})
    )


def feed_config_kind(name: str, schema: Mapping[str, Any]) -> str | None:
    """ "object" for a property holding a feed config, "yaml" for one holding its YAML text, else
    None."""
    if str(schema.get("$ref", "")).endswith("/FeedConfig") or schema.get("title") == "FeedConfig":
        return "object"
    if name == "config" and _types(schema) == {"object"}:
        return "object"
    if name == "yaml" and _types(schema) == {"string"}:
        return "yaml"
    return None


def is_glob(name: str, schema: Mapping[str, Any]) -> bool:
    """A string of glob patterns over URLs (``include_patterns`` items and the like)."""
    return _types(schema) == {"string"} and name.endswith(("pattern", "patterns"))


def is_selector(name: str, schema: Mapping[str, Any]) -> bool:
    return _types(schema) == {"string"} and (name == "selector" or name.endswith("_selector"))


@functools.cache
def shared_schema(title: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        (SHARED_SCHEMAS / f"{title}.json").read_text(encoding="utf-8")
    )
    return schema


def feed_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The shared schema a feed-config property holds (FeedConfig unless its $ref names another)."""
    reference = str(schema.get("$ref", "#/$defs/FeedConfig"))
    return shared_schema(reference.rsplit("/", 1)[-1])


def _validator(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**schema, "$defs": {**defs, **schema.get("$defs", {})}})


def _refuses(schema: Mapping[str, Any], value: Any, defs: Mapping[str, Any]) -> bool:
    return not _validator(schema, defs).is_valid(value)


def _minimal(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Any:
    """A simple value of ``schema``'s shape (not always valid: if/then and the like are not
    read)."""
    schema = _resolve(schema, defs)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for alternatives in ("oneOf", "anyOf"):
        if schema.get(alternatives) and not schema.get("properties") and "type" not in schema:
            return _minimal(schema[alternatives][0], defs)
    kind = sorted(_types(schema))[0] if _types(schema) else "object"
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: _minimal(properties.get(name, {}), defs) for name in schema.get("required", [])
        }
    if kind == "array":
        return [
            _minimal(schema.get("items", {}), defs) for _ in range(int(schema.get("minItems", 0)))
        ]
    if kind == "string":
        return "x" * int(schema.get("minLength", 0))
    if kind in {"integer", "number"}:
        return max(0, schema.get("minimum", 0), schema.get("exclusiveMinimum", -1) + 1)
    return {"boolean": False, "null": None}.get(kind)


def sample(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Any:
    """A simple value ``schema`` accepts: built from its shape, else found by hypothesis
    (cached)."""
    value = _minimal(schema, defs)
    if _validator(schema, defs).is_valid(value):
        return value
    merged = {**_resolve(schema, defs), "$defs": dict(defs)}
    return copy.deepcopy(_found(json.dumps(merged, sort_keys=True)))


@functools.cache
def _found(schema_json: str) -> Any:
    return find(
        build(json.loads(schema_json), draft=jsonschema_rs.Draft202012, formats={}),
        lambda _: True,
        settings=hypothesis_settings(
            database=None, derandomize=True, phases=[Phase.generate, Phase.shrink]
        ),
    )


def pointer(parts: tuple[str | int, ...]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def dotted(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# --- Valid arguments, steered into the fixture site -----------------------------------------------


@functools.cache
def _built(schema_json: str) -> st.SearchStrategy[Any]:
    return build(json.loads(schema_json), draft=jsonschema_rs.Draft202012, formats={})


def schema_strategy(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values drawn by schemathesis's JSON Schema 2020-12 generator (formats are not generated)."""
    return _built(json.dumps(schema, sort_keys=True))


def url_strategy(world: World, own: Any) -> st.SearchStrategy[Any]:
    """Mostly (7 in 10) the fixture site's pages or listings; else its failing pages, a URL no tool
    may fetch, or ``own`` (the schema's own value)."""
    choices = {
        "page": st.sampled_from(world.pages),
        "listing": st.sampled_from(world.listings),
        "failing": st.sampled_from(world.failing),
        "hostile": st.sampled_from(world.hostile),
        "own": st.just(own),
    }
    return st.sampled_from(["page"] * 3 + ["listing"] * 4 + ["failing", "hostile", "own"]).flatmap(
        choices.__getitem__
    )


def _url_list(
    draw: st.DrawFn, world: World, schema: Mapping[str, Any], own: list[Any]
) -> list[Any]:
    low = max(1, int(schema.get("minItems", 0)))
    high = max(low, min(int(schema.get("maxItems", 4)), 4))
    size = draw(st.integers(low, high))
    urls = [draw(url_strategy(world, own[n % len(own)] if own else "")) for n in range(size)]
    if schema.get("uniqueItems"):
        urls = list(dict.fromkeys(urls))
    return urls if len(urls) >= low else own


def _feed_config(draw: st.DrawFn, world: World, schema: Mapping[str, Any]) -> dict[str, Any]:
    """A config from the corpus or the feed fixtures (pointing into the site); now and then
    mutated."""
    config = world.config(draw(st.integers(0, len(world.configs) - 1)))
    if draw(st.integers(0, 4)) == 0:
        config = _edit(draw, config, schema)
    return config


YAML_TYPED: tuple[Any, ...] = (
    datetime.date(2026, 11, 29),
    datetime.datetime(2026, 11, 29, 8, 30),
    float("inf"),
    float("-inf"),
    float("nan"),
    b"\x00\xff bytes",
    10**30,
    None,
)
"""Values YAML writes as plain scalars or tags (2026-11-29, .inf, .nan, !!binary...) that are no
JSON value."""


def _free_places(
    schema: Mapping[str, Any], defs: Mapping[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Paths of objects in ``schema`` that take any key and any value (html2rss's directory
    metadata)."""
    schema = _resolve(schema, defs)
    if len(path) > 4 or ("object" not in _types(schema) and "properties" not in schema):
        return
    if schema.get("additionalProperties", True) is True and not schema.get("patternProperties"):
        yield path
    for name, inner in schema.get("properties", {}).items():
        yield from _free_places(inner, defs, (*path, name))


def _yaml_typed(
    draw: st.DrawFn, config: dict[str, Any], schema: Mapping[str, Any]
) -> dict[str, Any]:
    """The config with a YAML-typed value added where any value goes, or put in place of any
    node."""
    defs = schema.get("$defs", {})
    value = draw(st.sampled_from(YAML_TYPED))
    free = [place for place in _free_places(schema, defs) if place]
    add: bool = draw(st.booleans())
    if free and add:
        place = draw(st.sampled_from(free))
        config = _ensure(config, place)
        return dict(_set(config, place, {**_get(config, place), "zz_note": value}))
    path = draw(st.sampled_from(list(_nodes(config))[:0:-1]))
    return dict(_set(config, path, value))


def _ensure(document: Any, path: tuple[str, ...]) -> dict[str, Any]:
    """``document`` (an object) with an object at ``path``, made where it is missing or not an
    object."""
    found: dict[str, Any] = document if isinstance(document, dict) else {}
    if not path:
        return found
    return {**found, path[0]: _ensure(found.get(path[0]), path[1:])}


def _nodes(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _nodes(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _nodes(inner, (*path, index))


def subschema(
    schema: Mapping[str, Any], path: tuple[str | int, ...], defs: Mapping[str, Any]
) -> Mapping[str, Any]:
    """The schema of the value at ``path`` inside a value of ``schema`` ({} where it says
    nothing)."""
    current = _resolve(schema, defs)
    for part in path:
        if isinstance(part, int):
            current = _resolve(_branch(current, "array", defs).get("items", {}), defs)
        else:
            holder = _branch(current, "object", defs)
            extra = holder.get("additionalProperties")
            current = _resolve(
                holder.get("properties", {}).get(part)
                or (extra if isinstance(extra, dict) else {}),
                defs,
            )
    return current


def _get(document: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        document = document[part]
    return document


def _set(document: Any, path: tuple[str | int, ...], value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``path`` (the containers on the way copied, the rest
    shared)."""
    if not path:
        return value
    copied = copy.copy(document)
    copied[path[0]] = value if len(path) == 1 else _set(document[path[0]], path[1:], value)
    return copied


def _delete(document: Any, path: tuple[str | int, ...]) -> Any:
    parent = copy.copy(_get(document, path[:-1]))
    del parent[path[-1]]
    return _set(document, path[:-1], parent)


def _edit(draw: st.DrawFn, config: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """One random edit: a node replaced by a value its schema allows, by arbitrary JSON, or
    deleted."""
    defs = schema.get("$defs", {})
    path = draw(st.sampled_from(list(_nodes(config))[:0:-1]))  # leaves first
    how = draw(st.sampled_from(["schema", "schema", "json", "delete"]))
    if how == "delete":
        return dict(_delete(config, path))
    inner = subschema(schema, path, defs)
    value = draw(JSON if how == "json" or not inner else schema_strategy({**inner, "$defs": defs}))
    return dict(_set(config, path, value))


def _parameters(draw: st.DrawFn, config: Any, own: Any) -> Any:
    """Values for a drawn config's declared parameters (its defaults, mostly), or the schema's own,
    or none."""
    declared = (config.get("parameters") or {}) if isinstance(config, dict) else {}
    how = draw(st.sampled_from(["declared", "declared", "own", "none"]))
    if how == "own":
        return own
    if how == "none" or not isinstance(declared, dict):
        return None
    values = {}
    for name, spec in declared.items():
        default = spec.get("default") if isinstance(spec, dict) else None
        choices = (
            [default, default, "sport", 7]
            if isinstance(default, str | int | float | bool)
            else ["sport", 7]
        )
        values[str(name)] = draw(st.sampled_from(choices))
    return values


_NAMES = itertools.count()
"""Numbers that make every fuzzed project name unique (a name already taken is a conflict, not the
contract's)."""


def _steer(draw: st.DrawFn, name: str, schema: Mapping[str, Any], value: Any, world: World) -> Any:
    kind = feed_config_kind(name, schema)
    if kind == "object" and isinstance(value, dict):
        return _feed_config(draw, world, feed_schema(schema))
    if kind == "yaml" and isinstance(value, str):
        if draw(st.booleans()):
            return draw(st.sampled_from(world.yaml_texts))
        config = _feed_config(draw, world, feed_schema(schema))
        if draw(st.integers(0, 3)) == 0:
            config = _yaml_typed(draw, config, feed_schema(schema))
        return draw(st.sampled_from([dump_yaml(config), value]))
    if isinstance(value, str) and is_url(name, schema):
        return draw(url_strategy(world, value))
    if isinstance(value, str) and name == "run_id" and world.runs:
        return draw(st.one_of(st.sampled_from(world.runs), st.just(value)))
    if isinstance(value, str) and name == "project_id" and world.projects:
        return draw(st.one_of(st.sampled_from([pid for pid, _ in world.projects]), st.just(value)))
    if isinstance(value, dict) and name == "definition" and world.projects:
        return draw(
            st.one_of(
                st.sampled_from([saved["definition"] for _, saved in world.projects]),
                st.just(value),
            )
        )
    if isinstance(value, str) and name == "filter" and world.projects:
        valid = [
            'name ~ "fuzz"',
            'kind = "extract"',
            "text != null",
            'text ~ "a" || text = null',
            "",
        ]
        return draw(st.one_of(st.sampled_from(valid), st.just(value)))
    if isinstance(value, str) and name == "sort" and world.projects:
        return draw(
            st.one_of(
                st.sampled_from(["-updated", "name,-created", "-created", "key"]), st.just(value)
            )
        )
    # a project's: unique, or it is a conflict
    if isinstance(value, str) and name == "name" and world.projects:
        return f"{value[:150]} {next(_NAMES)}"
    if isinstance(value, str) and name == "check_id":
        from netglean.generated.readability import ENTRIES

        return draw(st.one_of(st.sampled_from(sorted(ENTRIES)), st.just(value)))
    if isinstance(value, str) and name == "domain":  # a host, or what a model might pass for one
        return draw(
            st.one_of(
                st.sampled_from(["127.0.0.1", "shop.example", "http://127.0.0.1/x"]), st.just(value)
            )
        )
    # the saved projects' one, mostly
    if isinstance(value, str) and name == "dataset" and world.projects:
        return draw(st.sampled_from(["items", "items", value]))
    if isinstance(value, str) and is_glob(name, schema):
        return draw(st.one_of(st.sampled_from(world.globs), st.just(value)))
    if isinstance(value, str) and is_selector(name, schema):
        return draw(st.one_of(st.sampled_from(world.selectors), st.just(value)))
    if isinstance(value, list):
        if is_url(name, schema) and _types(schema.get("items", {})) == {"string"}:
            return _url_list(draw, world, schema, value)
        return [_steer(draw, name, schema.get("items", {}), item, world) for item in value]
    if isinstance(value, dict) and "properties" in schema:
        properties = schema["properties"]
        steered = {
            key: _steer(draw, key, properties.get(key, {}), inner, world)
            for key, inner in value.items()
        }
        configs = [key for key in steered if feed_config_kind(key, properties.get(key, {}))]
        if configs and "parameters" in properties:
            held = steered[configs[0]]
            if isinstance(held, str):
                try:
                    held = yaml.safe_load(held)
                except yaml.YAMLError:
                    held = None
            parameters = _parameters(draw, held, steered.get("parameters"))
            steered.pop("parameters", None)
            if parameters is not None:
                steered["parameters"] = parameters
        if "definition" in steered and "kind" in steered and draw(st.integers(0, 3)):
            steered.pop("kind")  # the kind its shape says: most draws name another's
        if "schedule" in steered and draw(st.integers(0, 3)):
            steered["schedule"] = draw(
                st.sampled_from(["2h", "1d", "0 7 * * 1-5", "every 90 minutes"])
            )
        if (
            "name" in steered
            and "definition" not in steered
            and world.projects
            and draw(st.booleans())
        ):
            # a lookup
            steered["name"] = draw(st.sampled_from([saved["name"] for _, saved in world.projects]))
        return steered
    return value


def argument_schema(spec: ToolSpec) -> dict[str, Any]:
    """The tool's input schema with its exactly_one_of groups written as the oneOf the published
    schema cannot hold (function-calling clients refuse one at the root): what valid arguments are,
    for the fuzzer."""
    schema = dict(spec.input_schema)
    choices = [{"oneOf": [{"required": [name]} for name in group]} for group in spec.exactly_one_of]
    if len(choices) == 1:
        schema.update(choices[0])
    elif choices:
        schema["allOf"] = choices
    return schema


def arguments_strategy(
    schema: Mapping[str, Any], world: World | None = None
) -> st.SearchStrategy[Any]:
    """Valid arguments drawn from the input schema; with a ``world``, URLs, feed configs and
    selectors in them are drawn from it (any draw the schema refuses is put back as generated)."""
    generated = schema_strategy(schema)
    if world is None:
        return generated
    check = _validator(schema, {})

    @st.composite
    def steered(draw: st.DrawFn) -> Any:
        value = draw(generated)
        changed = _steer(draw, "", schema, value, world)
        return changed if check.is_valid(changed) else value

    return steered()


def arbitrary_arguments(schema: Mapping[str, Any], world: World) -> st.SearchStrategy[Any]:
    """Arbitrary JSON objects, mostly keyed by the tool's real property names, whose values are
    arbitrary JSON, values the property's schema allows, or (for URLs, configs, selectors) values
    drawn from the world."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    noise = st.dictionaries(st.text(max_size=12), JSON, max_size=4)

    def value(name: str, prop: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        own = schema_strategy(prop)

        @st.composite
        def steered(draw: st.DrawFn) -> Any:
            return _steer(draw, name, prop, draw(own), world)

        return st.sampled_from([JSON, own, steered(), steered()]).flatmap(lambda strategy: strategy)

    values = {name: value(name, prop) for name, prop in properties.items()}
    # one way at a time to satisfy a oneOf of required keys (a feed config, or its YAML)
    branches = [set(b["required"]) for b in schema.get("oneOf", []) if set(b) == {"required"}] or [
        set()
    ]
    shapes = []
    for keys in branches:
        others = set().union(*branches) - keys
        required = {
            name: values[name]
            for name in [*schema.get("required", []), *sorted(keys)]
            if name in values
        }
        optional = {
            name: v for name, v in values.items() if name not in required and name not in others
        }
        shapes.append(st.fixed_dictionaries(required, optional=optional))
    real = st.one_of(shapes)
    loose = st.fixed_dictionaries({}, optional=values)
    extra = st.tuples(real, noise).map(lambda pair: {**pair[1], **pair[0]})
    return st.sampled_from([real, real, real, loose, extra, noise]).flatmap(
        lambda strategy: strategy
    )


# --- The envelope and its text block --------------------------------------------------------------

_BEGIN = re.compile(
    r"<<<BEGIN UNTRUSTED CONTENT (?P<nonce>[0-9a-f]{24}) "
    r"source=(?P<source>[!-~]{0,300}|[!-~]{0,299}…)>>>"
)
_END = re.compile(r"<<<END UNTRUSTED CONTENT (?P<nonce>[0-9a-f]{24})>>>")
_FRAME = re.compile(r"<<<(BEGIN|END) UNTRUSTED CONTENT")
"""Anything that starts a marker: none may occur between the two real ones."""
_URL_RESERVED = "!#$%&'()*+,/:;=?@[]~"
"""RFC 3986's reserved characters (and escapes' percent sign): what the marker's source keeps as the
notice shows it."""
_SCREENSHOTS = "(?P<screenshots>[0-9]+)"
_NOTICE = re.compile(
    re.escape(untrusted.NOTICE).replace(re.escape("{source}"), "(?P<source>.*?)")
    + f"(?: {re.escape(untrusted.SCREENSHOTS_NOTICE).replace(re.escape('{count}'), _SCREENSHOTS)})?"
)
"""The notice line: the source named, and the screenshots attached beside the text when there are
any."""


_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
"""Characters third-party text never keeps in a result: controls (ESC too), zero-width, bidi, BOM,
tags."""
_LOOK_ALIKE = re.compile(r"(BEGIN|END)[\s_-]*UNTRUSTED", re.IGNORECASE)


def assert_cleaned(payload: Any, tool: str) -> None:
    """A target-origin payload holds third-party text only as cleaned: no hidden or
    direction-changing characters, no frame-marker look-alike (it reads "END (quoted) UNTRUSTED"),
    and cleaning changes nothing."""
    for text in _strings(payload):
        hidden = _HIDDEN.search(text)
        assert hidden is None, f"{tool}: {hidden[0]!r} left in the payload: {text[:200]!r}"
        marker = _LOOK_ALIKE.search(text)
        assert marker is None, f"{tool}: a frame marker left in the payload: {text[:200]!r}"
    assert untrusted.clean_tree(payload) == payload, (
        f"{tool}: the payload is not what cleaning makes of it"
    )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield str(key)
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def _plain(text: str) -> bool:
    """Text the notice shows as it is: nothing for cleaning to take out, no runs of white space, no
    marker."""
    return (
        text.isascii()
        and text.isprintable()
        and " ".join(text.split()) == text
        and "untrusted" not in text.lower()
    )


def _refuse_constant(name: str) -> Any:
    raise AssertionError(
        f"the text block holds {name}, which is not JSON (RFC 8259 has no NaN or Infinity)"
    )


def strict_json(text: str) -> Any:
    """``text`` parsed as JSON, refusing the NaN and Infinity Python's own parser would accept."""
    return json.loads(text, parse_constant=_refuse_constant)


def assert_frame(
    text: str,
    envelope: Mapping[str, Any],
    spec: ToolSpec,
    arguments: Any = None,
    screenshots: int = 0,
) -> None:
    """A target-origin text block: control line, notice naming the source (and the ``screenshots``
    attached beside the text), payload JSON framed by one nonce, the BEGIN marker naming the source
    in one token (``source=``), the nonce the hash of that token and the framed text."""
    lines = text.split("\n")
    assert len(lines) >= 4, (
        f"{spec.name}: the text block is not control line, notice and frame: {text[:300]!r}"
    )
    control = strict_json(lines[0])
    assert control == {key: envelope[key] for key in ("ok", "next_step", "guidance")}, (
        "the control line differs"
    )
    notice = _NOTICE.fullmatch(lines[1])
    assert notice is not None, f"{spec.name}: not the untrusted-content notice: {lines[1][:300]!r}"
    said = int(notice["screenshots"] or 0)
    assert said == screenshots, (
        f"{spec.name}: the notice names {said} screenshot(s); {screenshots} are attached"
    )
    begin, end = _BEGIN.fullmatch(lines[2]), _END.fullmatch(lines[-1])
    assert begin is not None, (
        f"{spec.name}: no BEGIN marker with nonce and source=: {lines[2][:200]!r}"
    )
    assert end is not None, f"{spec.name}: no END marker: {lines[-1][:200]!r}"
    assert begin["nonce"] == end["nonce"], (
        f"{spec.name}: BEGIN nonce {begin['nonce']} but END nonce {end['nonce']}"
    )
    named = begin["source"]
    assert ">" not in named and "<" not in named, (
        f"{spec.name}: the marker's source can break the marker: {named!r}"
    )
    inside = "\n".join(lines[3:-1])
    assert strict_json(inside) == envelope["payload"], (
        f"{spec.name}: the framed JSON is not the structured payload"
    )
    assert not _FRAME.search(inside), f"{spec.name}: a frame marker inside the frame"
    assert_cleaned(envelope["payload"], spec.name)
    assert envelope.get(NOTICE_KEY), f"{spec.name}: a target-origin envelope without {NOTICE_KEY}"
    # what any client holding the frame alone can recompute
    expected = untrusted.nonce(named, inside)
    assert begin["nonce"] == expected, (
        f"{spec.name}: nonce {begin['nonce']}, but nonce(source, content) is {expected}"
    )
    NONCE_CHECKS["checked"] += 1
    source = notice["source"]
    shown_whole = not (len(source) >= 300 and source.endswith("…"))
    args_plain = arguments is not None and all(_plain(s) for s in _strings(arguments))
    if shown_whole and (args_plain or source == spec.name):
        NONCE_CHECKS["named"] += 1
        spelt = quote(source, safe=_URL_RESERVED)
        assert named == spelt or (named.endswith("…") and spelt.startswith(named[:-1])), (
            f"{spec.name}: the marker names {named!r}, the notice {source!r}"
        )
    # a background run's answer: its frame names the run, not a URL
    handle = set(envelope["payload"]) == {"run"}
    if (
        envelope["ok"]
        and shown_whole
        and args_plain
        and isinstance(arguments, Mapping)
        and not handle
    ):
        for name, value in arguments.items():
            asked = value[0] if isinstance(value, list) and value else value
            if is_url(name, spec.input_schema.get("properties", {}).get(name, {})) and isinstance(
                asked, str
            ):
                assert asked in source, (
                    f"{spec.name}: the notice names {source!r}, not the URL asked for {asked!r}"
                )


def assert_envelope(
    result: Any, spec: ToolSpec, published_output: Mapping[str, Any], arguments: Any = None
) -> dict[str, Any]:
    """The MCP result is a valid envelope: schema, isError, next_step and text block all agree."""
    envelope = result.structured_content
    assert isinstance(envelope, dict), f"{spec.name}: no structured content"
    errors = sorted(Draft202012Validator(published_output).iter_errors(envelope), key=str)
    assert not errors, f"{spec.name}: envelope breaks its published schema: {errors[0].message}"
    assert result.is_error is (not envelope["ok"])
    assert envelope["next_step"] in {*spec.next_step, spec.name}
    images = envelope["payload"].get("images") or [] if envelope["ok"] else []
    assert result.content[0].type == "text" and len(result.content) == 1 + len(images)
    # a screenshot is an image block of its own, its base64 out of the payload, marked
    for image in images:
        block = result.content[image["content_index"]]
        assert (
            block.type == "image" and block.mime_type == image["mime_type"] and "data" not in image
        )
        assert block.meta == {"netglean/untrusted": True}, (
            f"{spec.name}: a screenshot not marked untrusted"
        )
    if images:
        screenshots = untrusted.SCREENSHOTS_NOTICE.format(count=len(images))
        assert envelope[NOTICE_KEY].endswith(screenshots), (
            f"{spec.name}: the envelope's notice omits the screenshots"
        )
    text = result.content[0].text
    if spec.origin == "target":
        assert_frame(text, envelope, spec, arguments, len(images))
    else:
        assert strict_json(text) == envelope, (
            f"{spec.name}: the text block is not the structured content"
        )
        assert NOTICE_KEY not in envelope, (
            f"{spec.name}: a local tool's envelope carries {NOTICE_KEY}"
        )
    return envelope


# --- Mutations ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """Arguments wrong in one way, and where the error must point.

    ``fault`` is the path of the wrong value (for an unknown or missing key: the key's own place,
    its last part). ``config`` names the argument holding a feed config when the fault is inside it
    (then ``fault`` is relative to the config); an unknown key there is a ``warning``, not an
    error."""

    what: str
    arguments: dict[str, Any]
    fault: tuple[str | int, ...]
    key: str | None = None
    config: str | None = None
    warning: bool = False
    """A key the config format does not know: ignored with a warning at ``fault``, as html2rss
    ignores it."""


def _value_faults(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Values ``schema`` refuses, each wrong in one way: type, bounds, length, enum."""
    schema = _resolve(schema, defs)
    wrong = next((v for v in _CANDIDATES if _refuses(schema, v, defs)), None)
    if wrong is not None:
        yield "wrong type", wrong
    types = _types(schema)
    if "integer" in types and "string" not in types:
        yield "'50' for an integer", "50"
        if "number" not in types:
            yield "a fraction for an integer", 2.5
    for bound, step in (
        ("maximum", 1),
        ("minimum", -1),
        ("exclusiveMaximum", 0),
        ("exclusiveMinimum", 0),
    ):
        if isinstance(schema.get(bound), int | float) and not isinstance(schema.get(bound), bool):
            yield f"beyond {bound}", schema[bound] + step
    if "enum" in schema and "zz-not-a-choice" not in schema["enum"]:
        yield "outside its enum", "zz-not-a-choice"
    if isinstance(schema.get("minLength"), int) and schema["minLength"] >= 1:
        yield "shorter than minLength", "x" * (schema["minLength"] - 1)
    if isinstance(schema.get("maxLength"), int) and schema["maxLength"] <= 200_000:
        yield "longer than maxLength", "x" * (schema["maxLength"] + 1)


def _distinct(items: Mapping[str, Any], count: int, defs: Mapping[str, Any]) -> list[Any] | None:
    """``count`` different values ``items`` accepts, or None."""
    check = _validator(items, defs)
    width = int(items.get("minLength", 0))
    for candidates in ([f"{n:0{max(width, 1)}d}" for n in range(count)], list(range(count))):
        found: list[Any] = [value for value in candidates if check.is_valid(value)]
        if len(found) == count:
            return found
    return None


_Fault = tuple[str, Any, tuple[str | int, ...], str | None]


def _faults(
    schema: Mapping[str, Any], value: Any, defs: Mapping[str, Any], depth: int = 0
) -> Iterator[_Fault]:
    """(what, the value made wrong inside, path of the fault relative to the value, key) for a valid
    ``value``."""
    schema = _resolve(schema, defs)
    if depth > 8:
        return
    if isinstance(value, dict):
        holder = _branch(schema, "object", defs)
        properties: Mapping[str, Any] = holder.get("properties", {})
        extra = holder.get("additionalProperties")
        if extra is False:
            yield "unknown key", {**value, UNKNOWN: 1}, (UNKNOWN,), UNKNOWN
        for name in holder.get("required", []):
            if name in value:
                yield (
                    f"missing {name}",
                    {k: v for k, v in value.items() if k != name},
                    (name,),
                    name,
                )
        for branches in ("oneOf", "anyOf"):
            keys = [
                set(b.get("required", []))
                for b in holder.get(branches, [])
                if set(b) == {"required"}
            ]
            without = {k: v for k, v in value.items() if k not in set().union(*keys)}
            if any(keys) and without != value:
                yield f"no {branches} branch", without, (), None
        children = [(name, prop) for name, prop in properties.items()]
        if isinstance(extra, dict):
            children += [
                (key, extra) for key in sorted(k for k in value if k not in properties)[:2]
            ]
            children.append((UNKNOWN, extra))
        for name, prop in children:
            for what, wrong in _value_faults(prop, defs):
                yield f"{name}: {what}", {**value, name: wrong}, (name,), None
            current = value[name] if name in value else _sample_or_none(prop, defs)
            if current is not None:
                for what, inner, fault, key in _faults(prop, current, defs, depth + 1):
                    yield f"{name}: {what}", {**value, name: inner}, (name, *fault), key
    elif isinstance(value, list):
        holder = _branch(schema, "array", defs)
        items = _resolve(holder.get("items", {}), defs)
        low, high = holder.get("minItems", 0), holder.get("maxItems")
        if low >= 1 and len(value) >= low - 1:
            yield "fewer than minItems", value[: low - 1], (), None
        if (
            isinstance(high, int)
            and high <= 1000
            and (more := _distinct(items, high + 1, defs)) is not None
        ):
            yield "more than maxItems", more, (), None
        if holder.get("uniqueItems") and (high is None or high >= 2) and value:
            yield "repeated items", [value[0], value[0]], (), None
        first = value[0] if value else _sample_or_none(items, defs)
        if first is not None and items:
            rest = value[1:]
            for what, wrong in _value_faults(items, defs):
                yield f"item {what}", [wrong, *rest], (0,), None
            for what, inner, fault, key in _faults(items, first, defs, depth + 1):
                yield f"item {what}", [inner, *rest], (0, *fault), key


def _sample_or_none(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Any:
    resolved = _resolve(schema, defs)
    if not _types(resolved) & {"object", "array"} and not any(
        k in resolved for k in ("oneOf", "anyOf")
    ):
        return None
    try:
        return sample(resolved, defs)
    except Exception:  # a schema hypothesis cannot satisfy simply: no nested mutations there
        return None


def mutations(spec: ToolSpec, base: dict[str, Any]) -> Iterator[Mutation]:
    """Every generic way to get ``base`` (valid arguments) wrong, at the top level and inside arrays
    and objects."""
    schema = argument_schema(spec)
    for what, arguments, fault, key in _faults(schema, base, schema.get("$defs", {})):
        yield Mutation(what, arguments, fault, key)


def _semantic_faults(
    config: dict[str, Any],
) -> Iterator[tuple[str, dict[str, Any], tuple[str | int, ...]]]:
    """Config problems the schema cannot see but the html2rss format forbids (each at its
    pointer)."""
    yield (
        "a local file as the channel",
        _set(config, ("channel", "url"), "file:///etc/passwd"),
        ("channel", "url"),
    )
    yield (
        "an unknown time zone",
        _set(config, ("channel", "time_zone"), "Mars/Olympus"),
        ("channel", "time_zone"),
    )
    if isinstance(config.get("selectors"), dict):
        items = ("selectors", "items", "selector")
        yield "an unreadable items selector", _set(config, items, "tr[["), items
        categories = ("selectors", "categories")
        named = _set(config, categories, ["zz_no_field"])
        yield "a category naming no field", named, (*categories, 0)


def config_mutations(spec: ToolSpec, base: dict[str, Any], world: World) -> Iterator[Mutation]:
    """Feed configs wrong in one way inside, for each property holding one (as an object or as YAML
    text)."""
    properties: Mapping[str, Any] = spec.input_schema.get("properties", {})
    kinds = {
        name: kind for name, prop in properties.items() if (kind := feed_config_kind(name, prop))
    }
    if not kinds:
        return
    rest = {k: v for k, v in base.items() if k not in kinds}
    for name, kind in kinds.items():
        schema = feed_schema(properties[name])
        defs = schema.get("$defs", {})
        tried: set[tuple[str, tuple[str | int, ...]]] = set()
        for config in representative_configs(world):
            found = [
                (what, inner, fault, key, False)
                for what, inner, fault, key in _faults(schema, config, defs)
            ]
            found += [
                (what, inner, fault, None, False) for what, inner, fault in _semantic_faults(config)
            ]
            found += [
                (UNKNOWN_KEY, inner, fault, None, True)
                for inner, fault in _unknown_keys(schema, config, defs)
            ]
            for what, inner, fault, key, warning in found:
                # one case per way to be wrong at each place in the schema (every field is a
                # FeedField)
                if (case := (what.rsplit(": ", 1)[-1], _abstract(schema, fault, defs))) in tried:
                    continue
                tried.add(case)
                value = inner if kind == "object" else dump_yaml(inner)
                arguments = {**rest, name: value}
                yield Mutation(
                    f"{name} ({kind}), {what}", arguments, fault, key, config=name, warning=warning
                )


UNKNOWN_KEY = "a key the format does not know"


def _unknown_keys(
    schema: Mapping[str, Any], config: dict[str, Any], defs: Mapping[str, Any]
) -> Iterator[tuple[dict[str, Any], tuple[str | int, ...]]]:
    """``config`` with an unknown key added to each object whose schema names its properties and
    says nothing of other keys (those the format reads), and where it stands."""
    for path in _nodes(config):
        holder = _branch(subschema(schema, path, defs), "object", defs)
        if (
            isinstance(_get(config, path), dict)
            and holder.get("properties")
            and "additionalProperties" not in holder
        ):
            yield _set(config, (*path, UNKNOWN), 1), (*path, UNKNOWN)


def _abstract(
    schema: Mapping[str, Any], path: tuple[str | int, ...], defs: Mapping[str, Any]
) -> tuple[str | int, ...]:
    """``path`` with array indexes as 0 and keys the schema does not name (a field's) as "*"."""
    out: list[str | int] = []
    for depth, part in enumerate(path):
        holder = _branch(subschema(schema, path[:depth], defs), "object", defs)
        out.append(
            0 if isinstance(part, int) else part if part in holder.get("properties", {}) else "*"
        )
    return tuple(out)


def representative_configs(world: World) -> list[dict[str, Any]]:
    """The world's richest config, then each config that brings a top-level key the chosen ones
    lack."""
    ranked = sorted(
        range(len(world.configs)), key=lambda i: (-sum(1 for _ in _nodes(world.configs[i])), i)
    )
    chosen: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index in ranked:
        config = world.config(index)
        if not chosen or set(config) - seen:
            chosen.append(config)
            seen |= set(config)
    return chosen[:3]


def assert_names_argument(envelope: Mapping[str, Any], mutation: Mutation) -> None:
    assert envelope["ok"] is False, "wrong arguments were accepted"
    error = envelope["payload"]["error"]
    assert error["code"] == "invalid_arguments", error
    problems = error["detail"]["errors"]
    want, argument = pointer(mutation.fault), dotted(mutation.fault)
    pointers = [p["pointer"] for p in problems]
    assert want in pointers, f"the error points at {pointers}, not {want!r}"
    assert argument in {p["argument"] for p in problems}, (
        f"the error names {[p['argument'] for p in problems]}"
    )
    assert argument in error["message"], (
        f"the message does not name {argument!r}: {error['message']}"
    )


def assert_names_config_problem(envelope: Mapping[str, Any], mutation: Mutation) -> None:
    """A config problem comes back as the feed tools document it: ``invalid_config`` whose
    payload.errors (a copy of detail.errors) lists each problem as {path (a JSON pointer), message};
    a key the format does not know comes back as a warning at its own pointer in payload.warnings,
    whether the call then succeeds or fails."""
    if mutation.warning:
        _assert_names_config_warning(envelope, mutation)
        return
    assert envelope["ok"] is False, (
        f"a wrong config was accepted: {json.dumps(envelope['payload'])[:300]}"
    )
    error = envelope["payload"]["error"]
    assert error["code"] == "invalid_config", error
    problems = error["detail"]["errors"]
    assert envelope["payload"].get("errors") == problems, (
        "payload.errors is not the error's detail.errors"
    )
    want = pointer(mutation.fault[:-1] if mutation.key else mutation.fault) or "/"
    at = [p for p in problems if p["path"] == want]
    assert at, f"the problems point at {[p['path'] for p in problems]}, not {want!r}"
    if mutation.key:
        assert any(mutation.key in p["message"] for p in at), (
            f"no problem at {want} names {mutation.key!r}: {at}"
        )


def _assert_names_config_warning(envelope: Mapping[str, Any], mutation: Mutation) -> None:
    payload = envelope["payload"]
    if not envelope["ok"]:
        assert payload["error"]["code"] != "invalid_config", (
            f"an unknown key made the config invalid: {payload}"
        )
    want = pointer(mutation.fault)
    warnings = payload.get("warnings")
    assert warnings is not None, f"no payload.warnings: {json.dumps(payload)[:300]}"
    at = [w for w in warnings if w["path"] == want]
    assert at and UNKNOWN in at[0]["message"], (
        f"the warnings point at {[w['path'] for w in warnings]}, not {want!r}"
    )


def assert_matches_example(envelope: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    assert envelope["ok"] is expect["ok"]
    assert envelope["next_step"] == expect["next_step"]
    if "error" in expect:
        assert envelope["payload"]["error"]["code"] == expect["error"]
    if "payload" in expect:
        assert envelope["payload"] == expect["payload"]
    for key, value in expect.get("payload_includes", {}).items():
        assert envelope["payload"][key] == value
