"""The tool runner's own behaviour: building tools ahead of their first calls once the server is quiet."""

from __future__ import annotations

import anyio

from netglean.calls import ToolRunner
from netglean.context import Context
from netglean.registry import Registry
from netglean.settings import Settings


def test_tools_are_built_ahead_once_the_server_is_quiet(registry: Registry, settings: Settings) -> None:
    async def run() -> ToolRunner:
        runner = ToolRunner(registry, settings)
        async with anyio.create_task_group() as background:
            background.start_soon(runner.warm_up, 1.0)
            for _ in range(30):  # a call every 10 ms: never a quiet second, so nothing is built meanwhile
                assert (await runner.call("get_version", {}))[0].ok
                await anyio.sleep(0.01)
            assert set(runner._compiled) == {"get_version"}
            with anyio.fail_after(60):  # then quiet: every tool is built, and the fetcher's certificates loaded
                while len(runner._compiled) < len(registry.tools) or runner.context.fetcher._ssl is None:
                    await anyio.sleep(0.05)
        assert (await runner.call("get_version", {}))[0].ok  # built ahead, served as before
        await runner.context.aclose()
        return runner

    runner = anyio.run(run)
    assert set(runner._compiled) == set(registry.tools)


def test_a_warm_up_that_cannot_prepare_the_fetcher_ends_quietly(registry: Registry, settings: Settings) -> None:
    class Unprepared:
        def prepare(self) -> None:
            raise OSError("no certificates here")

        async def aclose(self) -> None:
            return None

    runner = ToolRunner(registry, settings, Context(settings, registry, fetcher=Unprepared()))  # type: ignore[arg-type]
    anyio.run(runner.warm_up, 0.0)  # returns: the first fetch will meet the problem and report it as its own
    assert set(runner._compiled) == set(registry.tools)
