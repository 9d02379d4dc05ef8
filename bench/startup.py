"""Start-up cost: CPU seconds of a whole process tree, netglean beside the MCP SDK's own floor.

Subjects, each run ``--runs`` times (7), taking turns within each round so that machine noise
hits them alike, after one untimed warm-up round:

- ``netglean mcp``: spawn to the answer of the first ``tools/list`` over stdio (initialize,
  initialized, tools/list, as a client starts), the server's tree read from /proc at that answer
  (its reader processes, if any have started, included);
- the SDK's minimal low-level server (``mcp.server.lowlevel.Server`` with one tool over stdio,
  bench/peers/lowlevel_server.py), measured the same way: the floor the target is set against
  (netglean at most the floor plus 0.5 s);
- ``netglean call get_version``: a one-shot call of a local tool, spawn to exit (the process and
  every descendant it waited for, from ``wait4``); the target is 0.6 s;
- ``python -c pass``: the interpreter alone.

Two regimes: ``cached``, Python's bytecode cache written by the warm-up round and read after (an
installed netglean after its first run; the figures the targets are judged by), and ``uncached``,
nothing cached and nothing written (``PYTHONDONTWRITEBYTECODE=1`` with an empty cache prefix):
every module, the standard library's too, compiled on import, as a tree run from a read-only or
freshly synced checkout pays. The caches live under a temporary ``PYTHONPYCACHEPREFIX``, never
in the checkout. Medians.

``uv run python -m bench.startup [--runs 7] [--regimes cached,uncached]``; results to
bench/results/startup.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.peers import tree_cpu
from bench.stdio import _INIT, _INITIALIZED, _answer, _send

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench/results/startup.json"
_NETGLEAN = [
    sys.executable,
    "-c",
    "import sys; from netglean.cli.main import main; sys.exit(main())",
]
"""``netglean`` as its console script runs it, with this interpreter (a checkout or an install)."""
SERVERS: dict[str, list[str]] = {
    "netglean mcp": [*_NETGLEAN, "mcp"],
    "sdk lowlevel": [sys.executable, str(ROOT / "bench/peers/lowlevel_server.py")],
}
ONE_SHOTS: dict[str, list[str]] = {
    "netglean call get_version": [*_NETGLEAN, "call", "get_version"],
    "python -c pass": [sys.executable, "-c", "pass"],
}
REGIMES = ("cached", "uncached")
SERVER_MARGIN = 0.5
"""CPU seconds netglean's server may spend to its first tools/list past the SDK's minimal server."""
CALL_TARGET = 0.6
"""CPU seconds a one-shot ``netglean call get_version`` may spend."""


def listed_cpu(command: list[str], env: Mapping[str, str]) -> float:
    """CPU seconds of the server's tree from spawn to its answer to the first tools/list."""
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        _send(process.stdin, _INIT)
        _answer(process.stdout, 0)
        _send(process.stdin, _INITIALIZED)
        _send(process.stdin, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        _answer(process.stdout, 1)
        return tree_cpu(process.pid)
    finally:
        process.stdin.close()
        process.wait(timeout=30)


def exit_cpu(command: list[str], env: Mapping[str, str]) -> float:
    """CPU seconds of a command from spawn to exit, with every descendant it waited for."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


@contextmanager
def _environment(regime: str) -> Iterator[Callable[[], dict[str, str]]]:
    """A fresh environment for each run of ``regime``: where its bytecode cache is, if any."""
    with tempfile.TemporaryDirectory(prefix="netglean-startup-") as folder:
        data = Path(folder, "data")
        base = os.environ | {"NETGLEAN_DATA_DIR": str(data)}
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        runs = iter(range(1_000_000))

        def cached() -> dict[str, str]:
            return base | {"PYTHONPYCACHEPREFIX": str(Path(folder, "pycache"))}

        def uncached() -> dict[str, str]:
            empty = Path(folder, f"empty-{next(runs)}")
            return base | {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(empty)}

        yield cached if regime == "cached" else uncached


def measure(regime: str, runs: int) -> dict[str, float]:
    """The median CPU seconds of each subject in ``regime``, subjects alternating run by run."""
    taken: dict[str, list[float]] = {name: [] for name in (*SERVERS, *ONE_SHOTS)}
    with _environment(regime) as environment:
        for round_ in range(runs + 1):  # round 0 warms the caches (and the disk), untimed
            for name, command in SERVERS.items():
                cpu = listed_cpu(command, environment())
                if round_:
                    taken[name].append(cpu)
            for name, command in ONE_SHOTS.items():
                cpu = exit_cpu(command, environment())
                if round_:
                    taken[name].append(cpu)
    return {name: statistics.median(values) for name, values in taken.items()}


def run(runs: int = 7, regimes: tuple[str, ...] = REGIMES) -> dict[str, Any]:
    figures: dict[str, Any] = {"runs": runs, "regimes": {}}
    for regime in regimes:
        cpu = measure(regime, runs)
        floor = cpu["sdk lowlevel"] + SERVER_MARGIN
        figures["regimes"][regime] = {
            "cpu_s": cpu,
            "server_target_s": floor,
            "server_within": cpu["netglean mcp"] <= floor,
            "call_target_s": CALL_TARGET,
            "call_within": cpu["netglean call get_version"] <= CALL_TARGET,
        }
    return figures


def show(figures: dict[str, Any]) -> None:
    print(
        f"\nstart-up, CPU seconds of the process tree (medians of {figures['runs']}, alternating)"
    )
    for regime, row in figures["regimes"].items():
        cpu = row["cpu_s"]
        print(f"  {regime} bytecode")
        for name, seconds in cpu.items():
            print(f"    {name:<28}{seconds:>6.2f} s")
        for what, within, target in (
            ("netglean mcp", row["server_within"], row["server_target_s"]),
            ("netglean call get_version", row["call_within"], row["call_target_s"]),
        ):
            verdict = "within" if within else "OVER"
            print(f"    target {what}: <= {target:.2f} s: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, default=7, help="timed runs of each subject (default 7)"
    )
    parser.add_argument("--regimes", default=",".join(REGIMES), help="cached, uncached or both")
    args = parser.parse_args()
    regimes = tuple(regime for regime in args.regimes.split(",") if regime)
    unknown = [regime for regime in regimes if regime not in REGIMES]
    if unknown:
        parser.error(f"no regime {', '.join(unknown)} (choose from {', '.join(REGIMES)})")
    figures = run(args.runs, regimes)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    show(figures)
    print(f"\nwritten to {RESULTS}")


if __name__ == "__main__":
    main()
