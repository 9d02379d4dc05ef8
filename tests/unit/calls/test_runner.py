"""The tool runner's own behaviour: building tools ahead of their first calls once the server is quiet."""

from __future__ import annotations

import json

import anyio

from netglean.app import build_runner
from netglean.calls.registry import Registry
from netglean.calls.runner import ToolRunner
from netglean.core.settings import Settings


def test_tools_are_built_ahead_once_the_server_is_quiet(registry: Registry, settings: Settings) -> None:
    async def run() -> ToolRunner:
        runner = build_runner(registry, settings)
        async with anyio.create_task_group() as background:
            background.start_soon(runner.warm_up, 1.0)
            for _ in range(30):  # a call every 10 ms: never a quiet second, so nothing is built meanwhile
                assert (await runner.call("get_version", {}))[0].ok
                await anyio.sleep(0.01)
            assert set(runner._compiled) == {"get_version"}
            with anyio.fail_after(60):  # then quiet: every tool is built, and the fetcher's certificates loaded
                fetcher = runner.services.fetcher
                while len(runner._compiled) < len(registry.tools) or fetcher._carrier._transport is None:
                    await anyio.sleep(0.05)
        assert (await runner.call("get_version", {}))[0].ok  # built ahead, served as before
        await runner.services.aclose()
        return runner

    runner = anyio.run(run)
    assert set(runner._compiled) == set(registry.tools)


def test_a_warm_up_that_cannot_prepare_the_fetcher_ends_quietly(registry: Registry, settings: Settings) -> None:
    class Unprepared:
        def prepare(self) -> None:
            raise OSError("no certificates here")

        async def aclose(self) -> None:
            return None

    runner = build_runner(registry, settings, fetcher=Unprepared())  # type: ignore[arg-type]
    anyio.run(runner.warm_up, 0.0)  # returns: the first fetch will meet the problem and report it as its own
    assert set(runner._compiled) == set(registry.tools)


def test_many_argument_problems_are_counted_not_all_spelt_out(registry: Registry, settings: Settings) -> None:
    """20,000 unknown keys (318 KB) used to take 27 s to describe (a list searched for each) and 2 MB to say."""
    arguments = {f"unknown_{n}": n for n in range(20_000)}
    arguments["markdown"] = 5  # and one wrong type: problems are sorted by pointer, not dropped by kind

    async def run() -> dict[str, object]:
        runner = build_runner(registry, settings)
        envelope, _ = await runner.call("generate_citations", arguments)
        return envelope.as_dict()

    envelope = anyio.run(run)
    error = envelope["payload"]["error"]  # type: ignore[index]
    assert error["code"] == "invalid_arguments"
    assert len(error["detail"]["errors"]) == 20 and error["detail"]["more_errors"] == 20_001 - 20
    assert "and 19981 more problem(s)" in error["message"]
    assert len(json.dumps(envelope)) < 10_000


def test_quoted_values_are_cut_short(registry: Registry, settings: Settings) -> None:
    async def run() -> dict[str, object]:
        runner = build_runner(registry, settings)
        urls = [f"https://example.org/{n}/{'x' * 100}" for n in range(101)]
        envelope, _ = await runner.call("batch_scrape", {"urls": urls})
        return envelope.as_dict()

    error = anyio.run(run)["payload"]["error"]  # type: ignore[index]
    assert error["code"] == "invalid_arguments" and "more than 100 items" in error["message"]
    assert len(error["message"]) < 500
