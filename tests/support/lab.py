"""A tool pack with test tools, built the way a tool author would build one outside netglean: its
own catalog, handlers and generated package (`netglean gen --package generated --handlers-package
handlers`), served with ``NETGLEAN_REGISTRY=generated.registry``.

Tools: shout (local, integer argument, next step page_echo), page_echo (target origin:
returns third-party text; "plain guidance" makes it break the guidance rule), misbehave (breaks
the handler contract on request), and
broken_import (its handler module cannot be imported).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from codegen.main import main as gen_main
from tests.support.paths import PROJECT

SHOUT = """\
name: shout
title: Shout
description: Repeat a text in capitals a few times. A test tool added by the tool-author test.
origin: local
handler: lab.shout
entry_point: true
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
execution: sync
input:
  type: object
  properties:
    text: {type: string, description: What to shout.}
    times: {type: integer, minimum: 1, maximum: 5, default: 1}
  required: [text]
output:
  type: object
  properties:
    text: {type: string}
  required: [text]
  additionalProperties: false
next_step: [page_echo, done]
examples:
  - title: Twice
    arguments: {text: hi, times: 2}
    expect: {ok: true, next_step: page_echo, payload: {text: HI HI}}
"""

PAGE_ECHO = """\
name: page_echo
title: Page echo
description: Pretend to fetch a page and return its text, as a target-origin tool would.
origin: target
handler: lab.page_echo
annotations: {read_only: true, destructive: false, idempotent: true, open_world: true}
execution: sync
input:
  type: object
  properties:
    text: {type: string}
  required: [text]
output:
  type: object
  properties:
    content: {type: string, x-untrusted: true}
  required: [content]
  additionalProperties: false
next_step: [done]
examples:
  - title: Echo
    arguments: {text: hello}
    expect: {ok: true, next_step: done, payload: {content: hello}}
"""

MISBEHAVE = """\
name: misbehave
title: Misbehave
description: Break the handler contract in the way asked for.
origin: local
handler: lab.misbehave
entry_point: true
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
execution: sync
input:
  type: object
  properties:
    mode: {enum: [raise, bad_payload, bad_next_step, not_outcome, not_json, sleep, nap, fine]}
  required: [mode]
output:
  type: object
  properties:
    fine: {type: boolean}
  required: [fine]
  additionalProperties: false
next_step: [done]
examples:
  - title: Fine
    arguments: {mode: fine}
    expect: {ok: true, next_step: done, payload: {fine: true}}
"""

HANDLER = '''\
"""Test tools."""

import anyio

from generated.models import MisbehaveInput, PageEchoInput, ShoutInput
from netglean.calls.context import Context
from netglean.core.envelope import Outcome, say


async def shout(args: ShoutInput, ctx: Context) -> Outcome:
    text = " ".join([args.text.upper()] * (args.times or 1))
    return Outcome({"text": text}, next_step="page_echo")


async def page_echo(args: PageEchoInput, ctx: Context) -> Outcome:
    # what a target-origin tool may not do: guidance that say() did not build
    if args.text == "plain guidance":
        return Outcome({"content": args.text}, guidance=f"echoed {args.text}", source="https://pages.example/a")
    guidance = say("Echoed {count} characters.", count=len(args.text))
    return Outcome({"content": args.text}, guidance=guidance, source="https://pages.example/article")


async def misbehave(args: MisbehaveInput, ctx: Context) -> Outcome:
    if args.mode == "raise":
        raise RuntimeError("boom")
    if args.mode == "bad_payload":
        return Outcome({"fine": "yes"})
    if args.mode == "bad_next_step":
        return Outcome({"fine": True}, next_step="shout")
    if args.mode == "not_outcome":
        return {"fine": True}
    if args.mode == "not_json":
        return Outcome({"fine": True, "when": __import__("datetime").date(2026, 11, 29)})
    if args.mode == "sleep":
        await anyio.sleep(30)
    if args.mode == "nap":
        await anyio.sleep(1.5)
    return Outcome({"fine": True})
'''


def make_lab(root: Path) -> Path:
    shutil.copytree(PROJECT / "catalog", root / "catalog")
    handlers = PROJECT / "netglean" / "handlers"
    shutil.copytree(handlers, root / "handlers", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "catalog/tools/lab").mkdir()
    (root / "catalog/tools/lab/shout.yaml").write_text(SHOUT)
    (root / "catalog/tools/lab/page_echo.yaml").write_text(PAGE_ECHO)
    (root / "catalog/tools/lab/misbehave.yaml").write_text(MISBEHAVE)
    (root / "handlers/lab.py").write_text(HANDLER)
    # a family of its own: its handler module cannot be imported
    (root / "catalog/tools/broken").mkdir()
    (root / "catalog/tools/broken/broken_import.yaml").write_text(
        MISBEHAVE.replace("name: misbehave", "name: broken_import").replace(
            "lab.misbehave", "broken.broken_import"
        )
    )
    (root / "handlers/broken.py").write_text(
        "import no_such_module\n\n\nasync def broken_import(args, ctx):\n    pass\n"
    )
    args = [
        "--catalog",
        str(root / "catalog"),
        "--handlers",
        str(root / "handlers"),
        "--out",
        str(root / "generated"),
    ]
    assert gen_main([*args, "--package", "generated", "--handlers-package", "handlers"]) == 0
    return root


def lab_environment(root: Path) -> dict[str, str]:
    """What a server needs to serve the lab: its packages importable, and its registry the one
    served."""
    return {"PYTHONPATH": str(root), "NETGLEAN_REGISTRY": "generated.registry"}
