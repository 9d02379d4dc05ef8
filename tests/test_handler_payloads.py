"""Handlers build payloads one way, read off the source: the tool's generated output model, with
keyword arguments, from what an engine returns (dataclasses).

A payload validated out of a dict (``Model.model_validate(engine_dict)``) or handed over as a dict
turns a misspelt key into an internal_error at run time; with keyword arguments mypy names it. A
model is read out of JSON only where JSON is what there is: a stored project's definition, a
crawl's stored visits, a crawl project's arguments.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import PROJECT

HANDLERS = PROJECT / "netglean" / "handlers"
READS_JSON = {
    ("projects.py", "_definition"): "a project's definition, stored as JSON",
    ("projects.py", "_run"): "a crawl project's stored definition, read as crawl's arguments",
    ("sites.py", "_fit_visits"): "a crawl's visits, stored as JSON",
    ("_joins.py", "join_crawl"): "a crawl run's stored arguments, joined by one more worker",
}
"""Where a handler reads a model out of JSON (model_validate), and what JSON it reads."""
MAPPING_PAYLOADS = {
    ("readability.py", "scan_url"): "the score's required nulls: a model dumps without its Nones",
    ("runs.py", "*"): "the runs' payloads, typed by their own change (issue 33, branch workers)",
}
"""Where a handler hands over a dict as its payload, and why a model cannot say it."""


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _calls(call: ast.Call, name: str) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == name


def _is_dict(node: ast.expr, dicts: set[str]) -> bool:
    return isinstance(node, ast.Dict | ast.DictComp) or (
        isinstance(node, ast.Name) and node.id in dicts
    )


def payload_styles(handlers: Path) -> list[str]:
    """Each place a module of ``handlers`` builds a payload other than by keyword: path:line, the
    function, and how."""
    found = []
    for path in sorted(handlers.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in _functions(tree):
            where = f"{path.name}:{{line}} {function.name}"
            dicts = {
                target.id
                for node in ast.walk(function)
                if isinstance(node, ast.Assign | ast.AnnAssign)
                and node.value is not None
                and isinstance(node.value, ast.Dict | ast.DictComp)
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(target, ast.Name)
            }
            reads_json = (path.name, function.name) in READS_JSON
            exempt = {(path.name, function.name), (path.name, "*")} & MAPPING_PAYLOADS.keys()
            for node in ast.walk(function):
                if isinstance(node, ast.Attribute) and node.attr == "model_validate":
                    if not reads_json:
                        found.append(where.format(line=node.lineno) + ": model_validate")
                elif isinstance(node, ast.Call) and _calls(node, "Outcome") and not exempt:
                    payload = [
                        *node.args[:1],
                        *(k.value for k in node.keywords if k.arg == "payload"),
                    ]
                    if any(_is_dict(arg, dicts) for arg in payload):
                        found.append(where.format(line=node.lineno) + ": a dict as the payload")
    return found


def test_handlers_build_payloads_as_models_with_keyword_arguments() -> None:
    assert payload_styles(HANDLERS) == []


def test_each_other_way_of_building_a_payload_is_found(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(
        "async def a(args, ctx):\n"
        "    return Outcome(Out.model_validate(found), next_step=DONE)\n"
        "async def b(args, ctx):\n"
        "    return Outcome({'url': args.url})\n"
        "async def c(args, ctx):\n"
        "    payload = {'url': args.url}\n"
        "    return Outcome(payload, guidance='')\n"
        "async def d(args, ctx):\n"
        "    return Outcome(payload={k: v for k, v in found})\n"
        "async def e(args, ctx):\n"
        "    return Outcome(Out(url=args.url), next_step=DONE)\n"
    )
    assert payload_styles(tmp_path) == [
        "tools.py:2 a: model_validate",
        "tools.py:4 b: a dict as the payload",
        "tools.py:7 c: a dict as the payload",
        "tools.py:9 d: a dict as the payload",
    ]
