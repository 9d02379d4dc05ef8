"""Extract projects over MCP (issue 17's first tools): save with every definition problem named by
its path, run as a background run over a shop served on 127.0.0.1, read rows back by filter, sort
and page, and re-run after the shop changed: only what is new or changed is written."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.client._memory import InMemoryTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.core.settings import Settings
from netglean.core.untrusted import sanitize
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve

SHOP: dict[str, list[tuple[str, str, str]]] = {}
"""The shop's products by category: (sku, title, price) — a test changes them between runs."""


async def category(request: Request) -> HTMLResponse:
    items = "".join(
        f'<li class="product" data-sku="{sku}"><h2>{title}</h2><span '
        f'class="price">{price}</span><a href="/p/{sku}">more</a><ul><li '
        f'class="tag">{request.path_params["name"]}</li></ul></li>'
        for sku, title, price in SHOP.get(request.path_params["name"], [])
    )
    return HTMLResponse(f"<html><body><ul class='products'>{items}</ul></body></html>")


async def hostile(request: Request) -> HTMLResponse:
    """3,000 items, each nested 20 deep, whose text makes a backtracking pattern work hard."""
    opened = "".join(f"<b class=d{depth}>" for depth in range(20))
    items = "".join(
        f"<section class=i>{opened}{n} {'a' * 28}c{'</b>' * 20}</section>" for n in range(3_000)
    )
    return HTMLResponse(f"<html><body>{items}</body></html>")


APP = Starlette(routes=[Route("/c/{name}", category), Route("/hostile", hostile)])
DEFINITION = {
    "start_urls": ["{origin}/c/{category}"],
    "strategy": "http",
    "datasets": [
        {
            "name": "products",
            "item_selector": "li.product",
            "key": "sku",
            "properties": [
                {"key": "sku", "type": "attribute", "attribute": "data-sku"},
                {"key": "title", "type": "text", "selector": "h2"},
                {"key": "price", "type": "number", "selector": ".price"},
                {"key": "url", "type": "url", "selector": "a"},
            ],
        },
        {
            "name": "tags",
            "parent": "products",
            "item_selector": "li.tag",
            "properties": [{"key": "tag"}],
        },
    ],
}


@pytest.fixture(scope="module")
def shop(registry: Registry) -> Iterator[tuple[SyncClient, str]]:
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        allow_private_hosts=True,
        host_interval=0.0,
        read_workers=0,
    )
    runner = build_runner(registry, settings)
    with (
        serve(app=APP) as port,
        open_client(InMemoryTransport(build_server(runner)), runner) as client,
    ):
        yield client, f"http://127.0.0.1:{port}"


def _call(client: SyncClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = client.call(tool, arguments).structured_content
    return envelope


def _saved(client: SyncClient, name: str, origin: str) -> str:
    saved = _call(
        client,
        "save_project",
        {
            "name": name,
            "definition": DEFINITION,
            "variables": {"origin": origin, "category": "kettles"},
        },
    )
    assert saved["ok"] is True and saved["payload"]["created"] is True, saved["payload"]
    return str(saved["payload"]["project"]["project_id"])


def test_a_project_reads_its_rows_and_a_rerun_writes_only_what_changed(
    shop: tuple[SyncClient, str],
) -> None:
    client, origin = shop
    SHOP["kettles"] = [("k1", "Steel kettle", "€ 24,50"), ("k2", "Glass kettle", "€ 31,00")]
    SHOP["mugs"] = [("m1", "Mug", "€ 4,00")]
    project_id = _saved(client, "kettles and mugs", origin)
    first = _call(
        client,
        "run_project",
        {"project_id": project_id, "variables": {"category": ["kettles", "mugs"]}},
    )
    assert first["ok"] is True, first["payload"]
    assert first["payload"]["pages_read"] == 2 and first["payload"]["datasets"]["products"] == {
        "new": 3, "updated": 0, "unchanged": 0,
    }  # fmt: skip
    assert first["payload"]["datasets"]["tags"]["new"] == 3
    rows = _call(
        client,
        "get_project_data",
        {"project_id": project_id, "dataset": "products", "filter": "price > 10", "sort": "-price"},
    )
    assert [row["data"]["title"] for row in rows["payload"]["rows"]] == [
        "Glass kettle",
        "Steel kettle",
    ]
    assert rows["payload"]["rows"][1]["data"] == {
        "sku": "k1",
        "title": "Steel kettle",
        "price": 24.5,
        "url": f"{origin}/p/k1",
    }
    SHOP["kettles"] = [
        ("k1", "Steel kettle", "€ 19,99"),
        ("k2", "Glass kettle", "€ 31,00"),
        ("k3", "Copper kettle", "€ 80,00"),
    ]
    # the project's own variables: kettles only
    again = _call(client, "run_project", {"project_id": project_id})
    assert again["payload"]["datasets"]["products"] == {"new": 1, "updated": 1, "unchanged": 1}
    page = _call(
        client,
        "get_project_data",
        {"project_id": project_id, "dataset": "products", "sort": "sku", "per_page": 2, "page": 2},
    )
    assert [row["key"] for row in page["payload"]["rows"]] == ["k3", "m1"] and page["payload"][
        "total"
    ] == 4
    datasets = _call(client, "list_datasets", {"project_id": project_id})["payload"]["datasets"]
    assert [(d["name"], d["rows"], d.get("parent")) for d in datasets] == [
        ("products", 4, None),
        ("tags", 4, "products"),
    ]


FILTERED = {
    "price = 12": ["q1"],
    "price != 12": ["q2", "q3"],
    "price > 12": ["q3"],
    "price >= 12": ["q1", "q3"],
    "price < 12.5": ["q1", "q2"],
    "price <= 8.5": ["q2"],
    'title = "The \\"best\\" kettle"': ["q1"],
    "title != 'O\\'Brien\\'s mug'": ["q1", "q3"],
    "title > 'O\\'Brien\\'s mug'": ["q1", "q3"],
    'title >= "Plain jug"': ["q1", "q3"],
    'title < "The \\"best\\" kettle"': ["q2", "q3"],
    "title <= 'O\\'Brien\\'s mug'": ["q2"],
    'title ~ "\\"BEST\\""': ["q1"],
    'title !~ "\'"': ["q1", "q3"],
}
"""Filters on numbers and on text with quotes, every operator, and the rows (by key) each
selects."""


def test_get_project_data_filters_numbers_and_quoted_text_with_every_operator(
    shop: tuple[SyncClient, str],
) -> None:
    client, origin = shop
    SHOP["quoted"] = [
        ("q1", 'The "best" kettle', "€ 12,00"),
        ("q2", "O'Brien's mug", "€ 8,50"),
        ("q3", "Plain jug", "€ 40"),
    ]
    project_id = _saved(client, "quoted products", origin)
    ran = _call(
        client, "run_project", {"project_id": project_id, "variables": {"category": ["quoted"]}}
    )
    assert ran["ok"] is True and ran["payload"]["datasets"]["products"]["new"] == 3, ran["payload"]
    for text, keys in FILTERED.items():
        arguments = {"project_id": project_id, "dataset": "products", "filter": text, "sort": "sku"}
        rows = _call(client, "get_project_data", arguments)["payload"]["rows"]
        assert [row["key"] for row in rows] == keys, text


def test_every_problem_of_a_definition_is_named_by_its_path(shop: tuple[SyncClient, str]) -> None:
    client, _ = shop
    broken = {
        "start_urls": ["https://shop.test/"],
        "datasets": [
            {"name": "products", "item_selector": "li[", "key": "sku",
             "properties": [{"key": "title"}, {"key": "title"}]},
            {"name": "tags", "parent": "nothing", "item_selector": "li", "properties": [
                {"key": "t",
                 "transformations": [{"name": "regex_replace", "pattern": "(unclosed"}]},
                {"key": "a", "type": "attribute"}]},
        ],
    }  # fmt: skip
    refused = _call(client, "save_project", {"name": "broken", "definition": broken})
    error = refused["payload"]["error"]
    assert refused["ok"] is False and error["code"] == "invalid_config"
    assert [problem["pointer"] for problem in error["detail"]["errors"]] == [
        "/definition/datasets/0/item_selector",
        "/definition/datasets/0/key",
        "/definition/datasets/0/properties/1/key",
        "/definition/datasets/1/parent",
        "/definition/datasets/1/properties/0/transformations/0/pattern",
        "/definition/datasets/1/properties/1/attribute",
    ]


def test_names_are_unique_and_projects_are_listed_found_and_deleted(
    shop: tuple[SyncClient, str],
) -> None:
    client, origin = shop
    project_id = _saved(client, "to list", origin)
    twice = _call(client, "save_project", {"name": "to list", "definition": DEFINITION})
    assert (
        twice["payload"]["error"]["code"] == "conflict"
        and "unique" in twice["payload"]["error"]["message"]
    )
    listed = _call(client, "list_projects", {"filter": 'name = "to list"'})["payload"]
    assert [p["project_id"] for p in listed["projects"]] == [project_id] and listed["total"] == 1
    renamed = _call(
        client,
        "save_project",
        {"project_id": project_id, "name": "listed", "definition": DEFINITION},
    )
    assert (
        renamed["payload"]["created"] is False and renamed["payload"]["project"]["name"] == "listed"
    )
    bad = _call(client, "list_projects", {"filter": "name ~"})["payload"]["error"]
    assert bad["code"] == "invalid_query" and bad["detail"] == {
        "argument": "filter",
        "position": 6,
        "expected": bad["detail"]["expected"],
    }
    assert _call(client, "delete_project", {"project_id": project_id})["payload"]["deleted"] is True
    assert (
        _call(client, "delete_project", {"project_id": project_id})["payload"]["deleted"] is False
    )
    gone = _call(client, "get_project", {"project_id": project_id})
    assert gone["payload"]["error"]["code"] == "not_found" and gone["next_step"] == "list_projects"


def test_a_missing_variable_and_an_unknown_dataset_are_named(shop: tuple[SyncClient, str]) -> None:
    client, origin = shop
    saved = _call(
        client,
        "save_project",
        {"name": "no vars", "definition": DEFINITION, "variables": {"origin": origin}},
    )
    project_id = saved["payload"]["project"]["project_id"]
    missing = _call(client, "run_project", {"project_id": project_id})
    assert (
        missing["payload"]["error"]["code"] == "invalid_config"
        and "'category'" in missing["payload"]["error"]["message"]
    )
    unknown = _call(client, "get_project_data", {"project_id": project_id, "dataset": "prices"})
    assert (
        unknown["payload"]["error"]["code"] == "not_found"
        and unknown["next_step"] == "list_datasets"
    )


def test_variables_whose_combinations_pass_the_cap_are_refused_before_any_url_is_built(
    shop: tuple[SyncClient, str],
) -> None:
    """Three placeholders of 400 lines each (a 6 KB argument) make 64,000,000 start URLs: counted,
    not built."""
    client, origin = shop
    definition = {**DEFINITION, "start_urls": ["{origin}/c/{a}{b}{c}"]}
    saved = _call(client, "save_project", {"name": "multiplied", "definition": definition})
    lines = "\n".join(f"x{n}" for n in range(400))
    variables = {"origin": origin, "a": lines, "b": lines, "c": lines}
    refused = _call(
        client,
        "run_project",
        {"project_id": saved["payload"]["project"]["project_id"], "variables": variables},
    )
    error = refused["payload"]["error"]
    assert error["code"] == "invalid_arguments" and error["detail"]["combinations"] == 400**3
    assert error["detail"]["values"] == {"a": 400, "b": 400, "c": 400}
    assert _call(client, "get_version", {})["ok"] is True


def test_a_filter_number_beyond_what_sqlite_holds_is_named(shop: tuple[SyncClient, str]) -> None:
    client, origin = shop
    project_id = _saved(client, "out of range", origin)
    rows = {"project_id": project_id, "dataset": "products"}
    for tool, arguments in (
        ("list_projects", {"filter": "created > 99999999999999999999"}),
        ("get_project_data", {**rows, "filter": "price < -1e400"}),
    ):
        error = _call(client, tool, arguments)["payload"]["error"]
        number = arguments["filter"].split()[-1]
        assert error["code"] == "invalid_query" and error["detail"]["argument"] == "filter", error
        assert repr(number) in error["message"], error


def test_a_schedule_that_would_never_run_is_named(shop: tuple[SyncClient, str]) -> None:
    client, _ = shop
    arguments = {"name": "feb 31", "definition": DEFINITION, "schedule": "0 0 31 2 *"}
    never = _call(client, "save_project", arguments)["payload"]["error"]
    assert never["code"] == "invalid_config" and never["detail"] == {"argument": "schedule"}
    assert never["message"].startswith("schedule: '0 0 31 2 *' would never run")


def test_a_hostile_page_and_a_deep_definition_stay_bounded(shop: tuple[SyncClient, str]) -> None:
    """A chain of 20 datasets, each inside the last, over a page of 3,000 items whose text makes a
    backtracking pattern work hard: the page gives MAX_ROWS rows (of the 60,000 its items hold), the
    pattern's values are dropped once the page's patterns have had their time, and the run ends with
    what it read."""
    from netglean.read.datasets import MAX_ROWS

    client, origin = shop
    datasets = [
        {
            "name": "d0",
            "item_selector": "section.i",
            "properties": [{"key": "n", "selector": ".d0"}],
        }
    ]
    datasets += [
        {
            "name": f"d{depth}",
            "parent": f"d{depth - 1}",
            "item_selector": f".d{depth}",
            "properties": [
                {
                    "key": "text",
                    "transformations": [
                        {"name": "regex_replace", "pattern": "/(a|aa)+b/", "replacement": "x"}
                    ],
                }
            ],
        }
        for depth in range(1, 20)
    ]
    saved = _call(
        client,
        "save_project",
        {
            "name": "deep and hostile",  # the quarantine test keeps "hostile" for its own
            "definition": {
                "start_urls": [f"{origin}/hostile"],
                "strategy": "http",
                "datasets": datasets,
            },
        },
    )
    assert saved["ok"] is True, saved["payload"]
    ran = _call(client, "run_project", {"project_id": saved["payload"]["project"]["project_id"]})
    assert ran["ok"] is True, ran["payload"]
    counts = ran["payload"]["datasets"]
    assert sum(c["new"] for c in counts.values()) == MAX_ROWS and counts["d0"]["new"] > 0, ran[
        "payload"
    ]["failures"]
    rows = _call(
        client,
        "get_project_data",
        {"project_id": saved["payload"]["project"]["project_id"], "dataset": "d1", "per_page": 200},
    )["payload"]["rows"]
    # Some values were worked out before the page's patterns ran out of time, none after: no value
    # is half done.
    texts = [row["data"].get("text") for row in rows]
    assert len(texts) == 200 and all(
        text is None or re.fullmatch(r"\d+ a{28}c", text) for text in texts
    )


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("kettles\x1b[2J", "U+001B (a control character)"),
        ("kettles\x07", "U+0007 (a control character)"),
        ("\u202eselttek", "U+202E (right-to-left override)"),
        ("ket\u200btles", "U+200B (zero width space)"),
        ("kettles\U000e0041", "U+E0041 (tag latin capital letter a)"),
        ("kettles\u00a0two", "U+00A0 (no-break space)"),
        ("kettles\ue000", "U+E000 (a private-use character)"),
    ],
)
def test_a_name_that_would_not_show_as_stored_is_refused_by_its_code_point(
    shop: tuple[SyncClient, str], name: str, refused: str
) -> None:
    client, _ = shop
    envelope = _call(
        client, "save_project", {"name": name, "definition": {"url": "http://127.0.0.1/"}}
    )
    error = envelope["payload"]["error"]
    assert (
        error["code"] == "invalid_arguments" and error["detail"]["errors"][0]["argument"] == "name"
    )
    assert f"argument 'name': {refused} is not among the characters it may hold" in error["message"]
    assert name not in json.dumps(envelope, ensure_ascii=False)


def test_a_name_may_hold_what_cleaning_keeps_and_a_terminal_shows(registry: Registry) -> None:
    """The name's pattern is the rule: a character is refused when cleaning third-party text would
    take it out, or when it is not printable (a control, format, private-use or separator character,
    a space but U+0020)."""
    allowed = re.compile(
        registry.tools["save_project"].input_schema["properties"]["name"]["pattern"][1:-1]
    )
    for point in [*range(0xD800), *range(0xE000, 0x110000)]:
        char = chr(point)
        # unassigned: shown as a box
        shown = char == " " or char.isprintable() or unicodedata.category(char) == "Cn"
        assert (allowed.fullmatch(char) is not None) == (shown and sanitize(char) == char), (
            f"U+{point:04X}"
        )


def test_names_in_any_script_are_kept(shop: tuple[SyncClient, str]) -> None:
    client, _ = shop
    for name in ("Café Zoë", "日本語のプロジェクト", "Ελληνικά — shop ☕"):
        envelope = _call(
            client, "save_project", {"name": name, "definition": {"url": "http://127.0.0.1/"}}
        )
        assert envelope["ok"] and envelope["payload"]["project"]["name"] == name


def test_a_servers_default_project_is_taken_when_a_call_names_none(
    shop: tuple[SyncClient, str], registry: Registry
) -> None:
    client, origin = shop
    SHOP["bowls"] = [("b1", "Bowl", "€ 3,00")]
    project_id = _saved(client, "bowls by default", origin)
    refused = _call(client, "run_project", {})
    assert (
        refused["payload"]["error"]["code"] == "not_found"
        and refused["next_step"] == "list_projects"
    )
    assert "--project-id" in refused["payload"]["error"]["message"]
    settings = dataclasses.replace(
        Settings.load(environ=dict(os.environ)),
        allow_private_hosts=True,
        host_interval=0.0,
        read_workers=0,
        project_id=project_id,
        session_id="shop-1",
    )
    runner = build_runner(registry, settings)
    with open_client(InMemoryTransport(build_server(runner)), runner) as defaulted:
        ran = _call(defaulted, "run_project", {"variables": {"category": "bowls"}})
        assert ran["ok"] and ran["payload"]["project_id"] == project_id, ran
        rows = _call(defaulted, "get_project_data", {"dataset": "products"})["payload"]
        assert rows["project_id"] == project_id and [row["key"] for row in rows["rows"]] == ["b1"]
        logs = _call(defaulted, "get_logs", {})["payload"]["lines"]
        # the default project's one run
        assert logs and len({line["run_id"] for line in logs}) == 1, logs
        run_id = logs[0]["run_id"]
        both = _call(defaulted, "get_logs", {"run_id": run_id, "project_id": project_id})["payload"]
        assert {line["run_id"] for line in both["lines"]} == {run_id}
        other = _call(defaulted, "get_logs", {"run_id": run_id, "project_id": "0" * 32})
        assert other["payload"]["lines"] == []  # not a run of that project
        info = _call(defaulted, "engine_info", {})["payload"]
        assert (info["default_project_id"], info["default_session_id"], info["active_runs"]) == (
            project_id,
            "shop-1",
            0,
        )


def test_datasets_are_listed_with_their_selectors_and_rtilas_collection_names_find_them(
    shop: tuple[SyncClient, str],
) -> None:
    client, origin = shop
    SHOP["plates"] = [("p1", "Plate", "€ 5,00")]
    definition = {
        **DEFINITION,
        "datasets": [{**DEFINITION["datasets"][0], "name": "Auto_Intercepted_Data"}],
    }
    saved = _call(
        client,
        "save_project",
        {
            "name": "plates",
            "definition": definition,
            "variables": {"origin": origin, "category": "plates"},
        },
    )
    project_id = saved["payload"]["project"]["project_id"]
    [listed] = _call(client, "list_datasets", {"project_id": project_id})["payload"]["datasets"]
    assert listed["item_selector"] == "li.product"
    assert listed["property_details"][1] == {"key": "title", "type": "text", "selector": "h2"}
    assert _call(client, "run_project", {"project_id": project_id})["ok"]
    for spelt in ("Auto_Intercepted_Data", "Auto Intercepted-Data"):
        rows = _call(client, "get_project_data", {"project_id": project_id, "dataset": spelt})[
            "payload"
        ]
        assert rows["dataset"] == "Auto_Intercepted_Data" and [r["key"] for r in rows["rows"]] == [
            "p1"
        ], rows


def test_build_project_says_there_is_no_builder_and_what_to_do_instead(
    shop: tuple[SyncClient, str],
) -> None:
    client, _ = shop
    refused = _call(
        client, "build_project", {"active_project_id": "x", "extra_args": ["--headful"]}
    )
    assert (
        refused["payload"]["error"]["code"] == "not_available"
        and refused["next_step"] == "analyze_page"
    )
    assert "save_project" in refused["guidance"]
