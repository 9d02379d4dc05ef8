"""The installed wheel works without the checkout: built from the project, installed into a fresh
virtual environment outside it, and served as `netglean mcp` from a directory that is not the
checkout, with no PYTHONPATH.

Offline, as every test is: ``uv build --offline`` builds with the hatchling that ``uv sync`` left in
uv's cache when it installed the project, and the fresh environment sees, besides the wheel, only
the distributions the wheel declares it needs (its METADATA's Requires-Dist, and theirs, as
installed for the tests), linked into a folder of their own that a .pth file puts on its path: a
module the runtime imports but the wheel does not declare fails here, even though the tests' own
environment has it.
"""

from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import venv
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from netglean.calls.registry import load_registry
from tests.support.clients import open_client
from tests.support.fixture_site import serve
from tests.support.paths import PROJECT

OFFLINE = {
    "UV_OFFLINE": "1",
    "PIP_NO_INDEX": "1",
    # Anything that still tried the network would meet a closed port.
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "",
}


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        pytest.fail("uv builds the wheel (as CI installs it: `pip install uv`); it is not on PATH")
    return found


def _requires(wheel: Path) -> list[str]:
    """What the wheel itself declares it needs (its METADATA's Requires-Dist)."""
    with zipfile.ZipFile(wheel) as archive:
        [name] = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        return (
            email.parser.BytesParser().parsebytes(archive.read(name)).get_all("Requires-Dist") or []
        )


def _closure(requires: list[str]) -> list[metadata.Distribution]:
    """The installed distributions ``requires`` names, and those they need in turn (markers and
    extras honoured)."""
    found: dict[str, metadata.Distribution] = {}
    walked: set[tuple[str, str]] = set()
    pending = [(line, "") for line in requires]
    while pending:
        line, extra = pending.pop()
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(requirement.name)
        for wanted in ["", *sorted(requirement.extras)]:
            if (key, wanted) in walked:
                continue
            walked.add((key, wanted))
            dist = found.setdefault(key, metadata.distribution(requirement.name))
            pending.extend((needed, wanted) for needed in dist.requires or [])
    return list(found.values())


def _link_distributions(dists: list[metadata.Distribution], folder: Path) -> None:
    """Each distribution's top-level modules and metadata, linked into ``folder`` from where the
    tests have them."""
    folder.mkdir()
    for dist in dists:
        assert dist.files is not None, (
            f"{dist.metadata['Name']} has no RECORD: cannot tell its files"
        )
        for top in {file.parts[0] for file in dist.files if file.parts[0] != ".."}:
            source = Path(str(dist.locate_file(top)))
            target = folder / top
            if source.exists() and not target.exists():
                target.symlink_to(source, target_is_directory=source.is_dir())


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A fresh environment outside the checkout with the wheel installed, and a directory to run it
    from."""
    root = tmp_path_factory.mktemp("wheel")
    offline = {**os.environ, **OFFLINE}
    build = subprocess.run(
        [_uv(), "build", "--wheel", "--offline", "--out-dir", str(root / "dist"), str(PROJECT)],
        capture_output=True,
        text=True,
        timeout=300,
        env=offline,
        check=False,
    )
    assert build.returncode == 0, (
        "uv build --offline failed (it needs hatchling in uv's cache, which `uv sync` puts "
        "there):\n" + build.stderr
    )
    [wheel] = (root / "dist").glob("netglean-*.whl")
    environment = root / "env"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    _link_distributions(_closure(_requires(wheel)), root / "dependencies")
    (Path(purelib) / "netglean_test_dependencies.pth").write_text(f"{root / 'dependencies'}\n")
    install = subprocess.run(
        [_uv(), "pip", "install", "--offline", "--no-deps", "--python", str(python), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
        env=offline,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    yield environment, elsewhere


def _environment(home: Path) -> dict[str, str]:
    """What the installed server is started with: no PYTHONPATH, nothing of the tests' virtual
    environment (not even on PATH), and only 127.0.0.1 reachable, as everywhere in the tests."""
    path = os.pathsep.join(
        entry
        for entry in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
        if not entry.startswith(str(PROJECT))
    )
    return {"PATH": path, "HOME": str(home), "NETGLEAN_FETCH_ONLY_HOSTS": "127.0.0.1"}


def test_the_installed_package_is_imported_from_the_environment_not_the_checkout(
    installed: tuple[Path, Path],
) -> None:
    environment, elsewhere = installed
    script = (
        "import sys, netglean, netglean.generated.registry as r, netglean.handlers.pages\n"
        "print(netglean.__file__)\n"
        f"print(any(p.startswith({str(PROJECT)!r}) for p in sys.path if p))\n"
        "print(len(r.TOOLS))\n"
    )
    done = subprocess.run(
        [str(environment / "bin" / "python"), "-c", script],
        cwd=elsewhere,
        env=_environment(elsewhere),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    where, checkout_on_path, tools = done.stdout.split()
    assert Path(where).is_relative_to(environment) and checkout_on_path == "False"
    assert int(tools) == len(load_registry().tools)


def test_netglean_mcp_from_the_wheel_lists_every_tool_and_scrapes_a_page(
    installed: tuple[Path, Path],
) -> None:
    environment, elsewhere = installed
    params = StdioServerParameters(
        command=str(environment / "bin" / "netglean"),
        args=["mcp", "--allow-private-hosts"],
        cwd=str(elsewhere),
        env=_environment(elsewhere),
    )
    with serve() as port, open_client(params) as client:
        listed = client.run("list_tools")
        assert sorted(tool.name for tool in listed.tools) == sorted(load_registry().tools)
        result: Any = client.call("scrape", {"url": f"http://127.0.0.1:{port}/article"})
        envelope = result.structured_content
        assert envelope["ok"] is True and result.is_error is False, envelope
        assert envelope["payload"]["url"] == f"http://127.0.0.1:{port}/article"
        # read by the installed readers
        assert envelope["payload"]["content"].startswith("# How Tides Work")
        assert "BEGIN UNTRUSTED CONTENT" in result.content[0].text
        # read from the installed generated package
        graph = client.run("read_resource", "netglean://tool-graph")
        assert "scrape" in graph.contents[0].text
        # The install templates are package data: rendered from the installed wheel, and the scale
        # it scores by.
        snippet = client.call(
            "install_snippet",
            {"framework": "nginx", "site_name": "Docs", "site_url": "https://d.example"},
        )
        assert (
            snippet.structured_content["ok"] is True
            and snippet.structured_content["payload"]["files"]
        )
        explained = client.call("explain_check", {"check_id": "vary_accept"}).structured_content
        assert explained["ok"] is True and explained["payload"]["weight"] == 3


def test_the_wheel_is_netglean_alone_with_its_generated_files(installed: tuple[Path, Path]) -> None:
    environment, _ = installed
    wheels = list((environment.parent / "dist").glob("netglean-*.whl"))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert {name.split("/")[0] for name in names} == {
        "netglean",
        f"{wheels[0].name.split('-py')[0]}.dist-info",
    }
    assert (
        "netglean/generated/openapi.json" in names and "netglean/generated/docs/index.html" in names
    )
    assert "netglean/handlers/pages.py" in names and not [
        name for name in names if "__pycache__" in name
    ]
    assert (
        "netglean/snippets/templates/nginx.conf.j2" in names
        and "netglean/generated/readability.py" in names
    )
