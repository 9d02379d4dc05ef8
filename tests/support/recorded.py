"""The catalog's recorded examples, run against the docs' example site
(tests/support/example_site.py).

``uv run python -m tests.support.recorded`` generates the runtime from the catalog as it stands
(recordings aside, so an example runs on the tools as they are now), runs every example marked
``recorded: true``, writes what each tool answered to ``catalog/recorded/TOOL.json`` and generates
again, docs pages and all. ``--check`` compares instead of writing, as
tests/test_recorded_examples.py does. Each example gets a fresh server with an empty store and the
default policy, on the tests' DNS and loopback dial, so the site is ``http://harbour.test`` with no
port. Only the values that differ from one run to the next are masked when comparing (``VOLATILE``):
run ids, times, durations.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.client._memory import InMemoryTransport

from codegen.catalog import load_catalog
from codegen.emit import Packages, render
from codegen.emit import write as write_generated
from codegen.main import main as generate
from codegen.recordings import FOLDER, RECORD_COMMAND, is_reference
from netglean.app import build_runner
from netglean.calls.registry import Registry, load_registry
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.testing import PUBLIC, FakeDNS, LoopbackBackend
from netglean.serve.mcp import build_server
from tests.support import example_site
from tests.support.clients import SyncClient, open_client
from tests.support.fixture_site import serve
from tests.support.paths import PROJECT

CATALOG = PROJECT / "catalog"
HANDLERS = PROJECT / "netglean" / "handlers"
GENERATED = PROJECT / "netglean" / "generated"
VOLATILE = frozenset(
    {
        "run_id",
        "scan_id",
        "at",
        "created",
        "created_at",
        "started_at",
        "updated",
        "updated_at",
        "finished_at",
        "scanned_at",
    }
    | {"data_dir", "catalog_hash"}
)
"""Keys whose text changes from one run to the next (an id the store drew, a time, the temporary
data directory) or with every catalog edit (its hash): masked when comparing. Only their text is: a
count or a flag under the same name (a dataset's updated rows, save_project's created) is compared.
Found by running every example twice and diffing the answers; ``ms`` (an action's duration) is the
one number masked."""
DURATIONS = frozenset({"ms"})


@dataclass(frozen=True)
class Example:
    tool: str
    title: str
    given: tuple[dict[str, Any], ...]
    arguments: dict[str, Any]
    expect: dict[str, Any]


def examples() -> list[Example]:
    """The recorded examples, as the catalog states them now (its recordings unread: they are what
    is made)."""
    catalog = load_catalog(CATALOG, HANDLERS, recorded=False)
    return [
        Example(
            tool.name,
            example["title"],
            tuple(example.get("given", ())),
            example["arguments"],
            example["expect"],
        )
        for tool in catalog.tools
        for example in tool.examples
        if example.get("recorded")
    ]


class Unfilled(Exception):
    """A reference that names nothing in the envelope it points into."""


def _filled(template: Any, envelopes: list[dict[str, Any]]) -> Any:
    if is_reference(template):
        envelope: Any = envelopes[template["given"]]
        value = envelope
        try:
            for part in template["pointer"].lstrip("/").split("/"):
                value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            answered = (
                envelope.get("payload", {}).get("error", {}).get("code")
                if not envelope.get("ok")
                else "ok"
            )
            raise Unfilled(
                f"given call {template['given']} answered {answered}, with nothing at "
                f"{template['pointer']}"
            ) from None
        return value
    if isinstance(template, dict):
        return {key: _filled(value, envelopes) for key, value in template.items()}
    if isinstance(template, list):
        return [_filled(value, envelopes) for value in template]
    return template


class Site:
    """The example site on 127.0.0.1, and a fresh server in front of it for each example."""

    def __init__(self, registry: Registry, port: int) -> None:
        self.registry, self.port = registry, port

    @contextmanager
    def server(self) -> Iterator[SyncClient]:
        with tempfile.TemporaryDirectory(prefix="netglean-recorded-") as data_dir:
            settings = Settings.load(
                {"data_dir": data_dir, "host_interval": 0.0, "read_workers": 0}, environ={}
            )
            fetcher = Fetcher(
                FetchPolicy.from_settings(settings),
                resolver=FakeDNS({example_site.HOST: [PUBLIC]}),
                dial=LoopbackBackend(self.port),
            )
            runner = build_runner(self.registry, settings, fetcher=fetcher)
            with open_client(InMemoryTransport(build_server(runner)), runner) as client:
                yield client

    def run(self, example: Example) -> dict[str, Any]:
        """The example's calls on a fresh server: what was sent, and the envelope of the last."""
        example_site.reset()
        envelopes: list[dict[str, Any]] = []
        given: list[dict[str, Any]] = []
        unfilled: Unfilled | None = None
        with self.server() as client:
            try:
                for call in example.given:
                    arguments = _filled(call["arguments"], envelopes)
                    envelopes.append(client.call(call["tool"], arguments).structured_content)
                    given.append({"tool": call["tool"], "arguments": arguments})
                    # its run waits on the live page from now on
                    if example_site.LIVE_PATH in json.dumps(arguments):
                        example_site.LIVE_ASKED.wait(10)
                arguments = _filled(example.arguments, envelopes)
                envelope = client.call(example.tool, arguments).structured_content
            # raised past the session, not wrapped in its task group's exception group
            except Unfilled as exc:
                unfilled = exc
        if unfilled is not None:
            raise unfilled
        as_written = {"given": list(example.given), "arguments": example.arguments}
        return {
            "title": example.title,
            "as_written": as_written,
            "given": given,
            "arguments": arguments,
            "envelope": envelope,
        }


@contextmanager
def site(registry: Registry | None = None) -> Iterator[Site]:
    with ExitStack() as stack:
        port = stack.enter_context(serve(app=example_site.APP))
        yield Site(registry or load_registry(), port)


def masked(value: Any, key: str = "") -> Any:
    """``value`` with what changes from run to run (by its key: ``VOLATILE``, ``DURATIONS``)
    replaced by its type's name."""
    if isinstance(value, dict):
        return {k: masked(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, key) for v in value]
    if (key in VOLATILE and isinstance(value, str)) or (key in DURATIONS and type(value) is int):
        return f"<{type(value).__name__}>"
    return value


def differences(kept: dict[str, Any] | None, fresh: dict[str, Any]) -> str:
    """A unified diff of the recording and a fresh run, volatile values masked; empty when they
    agree."""
    before, after = (
        json.dumps(masked(e), indent=1, ensure_ascii=False).splitlines() for e in (kept, fresh)
    )
    return "\n".join(difflib.unified_diff(before, after, "recorded", "now", n=1, lineterm=""))


def path_of(tool: str) -> Path:
    return CATALOG / FOLDER / f"{tool}.json"


def write(recordings: dict[str, list[dict[str, Any]]]) -> None:
    for stale in (CATALOG / FOLDER).glob("*.json"):
        if stale.stem not in recordings:
            stale.unlink()
    for tool, entries in sorted(recordings.items()):
        document = {"recorded_by": RECORD_COMMAND, "tool": tool, "examples": entries}
        path_of(tool).parent.mkdir(exist_ok=True)
        path_of(tool).write_text(
            json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )


def recorded(tool: str) -> dict[str, dict[str, Any]]:
    """What ``catalog/recorded/TOOL.json`` holds, by example title (empty when nothing is
    recorded)."""
    try:
        document = json.loads(path_of(tool).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {entry["title"]: entry for entry in document["examples"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.recorded", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with the recordings instead of writing them"
    )
    parser.add_argument(
        "tools", nargs="*", help="only these tools (default: every recorded example)"
    )
    args = parser.parse_args(argv)
    if not args.check:
        write_generated(
            render(load_catalog(CATALOG, HANDLERS, recorded=False), Packages()), GENERATED
        )
    chosen = [e for e in examples() if not args.tools or e.tool in args.tools]
    recordings: dict[str, list[dict[str, Any]]] = {}
    differing = 0
    with site() as example_site_server:
        for example in chosen:
            try:
                entry = example_site_server.run(example)
            except Unfilled as exc:
                print(
                    f"{example.tool}: '{example.title}': {exc}; nothing was written",
                    file=sys.stderr,
                )
                return 1
            envelope = entry["envelope"]
            seen = (envelope["ok"], envelope["next_step"])
            if seen != (example.expect["ok"], example.expect["next_step"]):
                print(
                    f"{example.tool}: '{example.title}' answered ok={seen[0]} next_step={seen[1]}",
                    file=sys.stderr,
                )
            kept = recorded(example.tool).get(example.title)
            difference = differences(kept, entry)  # ids and times aside
            if args.check and difference:
                differing += 1
                print(
                    f"{example.tool}: '{example.title}' differs from its recording:\n{difference}",
                    file=sys.stderr,
                )
            recordings.setdefault(example.tool, []).append(
                kept if kept is not None and not difference else entry
            )
    if args.tools:
        for tool in {path.stem for path in (CATALOG / FOLDER).glob("*.json")} - set(recordings):
            recordings[tool] = list(recorded(tool).values())
    if args.check:
        return 1 if differing else 0
    write(recordings)
    print(f"recorded {len(chosen)} examples in catalog/{FOLDER}/", file=sys.stderr)
    return generate([])


if __name__ == "__main__":
    sys.exit(main())
