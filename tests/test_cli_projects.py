"""`netglean project list|show|run|export|import` against a shop on 127.0.0.1, each test on a data
directory of its own: projects saved by import, listed, shown, run (and re-run after the shop
changed), exported and imported into an empty store as the same projects; and every error one line
on stderr, with nothing half-imported."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from netglean.cli.main import main
from netglean.store.base import Project
from netglean.store.open import open_store
from tests.support.fixture_site import serve

SHOP: dict[str, list[tuple[str, str]]] = {}
"""The shop's products by category: (sku, title) — a test changes them between runs."""
RUN_CALL_TIMEOUT = 5
"""The call deadline of the run that outlasts its call: time enough, on a loaded machine, to begin
the run."""


async def category(request: Request) -> HTMLResponse:
    # asked for after the run began, so the run outlasts its call
    if request.path_params["name"] == "slow":
        await anyio.sleep(RUN_CALL_TIMEOUT + 1)
    items = "".join(
        f'<li class="product" data-sku="{sku}"><h2>{title}</h2></li>'
        for sku, title in SHOP.get(request.path_params["name"], [])
    )
    return HTMLResponse(f"<html><body><ul>{items}</ul></body></html>")


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
            ],
        }
    ],
}
SETTINGS = ["--allow-private-hosts", "--host-interval", "0", "--read-workers", "0"]


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    with serve(app=Starlette(routes=[Route("/c/{name}", category)])) as port:
        yield f"http://127.0.0.1:{port}"


class Cli:
    """`netglean project …` on one data directory: exit status, stdout, stderr."""

    def __init__(self, data: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.data, self.capsys = data, capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        code = main(["project", *argv, "--data-dir", str(self.data), *SETTINGS])
        out, err = self.capsys.readouterr()
        assert "Traceback" not in err
        return code, out, err


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "data", capsys)


def _file(path: Path, document: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document))
    return path


def _imported(cli: Cli, *paths: Path) -> list[str]:
    """The ids ``paths`` were saved as."""
    code, out, err = cli("import", *map(str, paths))
    assert code == 0, err
    return [line.split()[1] for line in out.splitlines()]


def test_import_list_show_and_run_then_a_rerun_writes_only_what_changed(
    cli: Cli, origin: str, tmp_path: Path
) -> None:
    SHOP["kettles"] = [("k1", "Steel kettle"), ("k2", "Glass kettle")]
    SHOP["mugs"] = [("m1", "Mug")]
    project = {
        "name": "kettles",
        "variables": {"origin": origin, "category": "kettles"},
        "definition": DEFINITION,
    }
    (project_id,) = _imported(cli, _file(tmp_path / "kettles.yaml", project))

    code, out, _ = cli("list")
    header, row = out.splitlines()
    assert (
        code == 0
        and header.split()[:3] == ["ID", "NAME", "KIND"]
        and row.split()[:3] == [project_id, "kettles", "extract"]
    )

    code, out, _ = cli("show", "kettles")
    shown = yaml.safe_load(out)
    assert code == 0 and shown["project_id"] == project_id and shown["rows"] == {"products": 0}
    assert shown["variables"] == {"origin": origin, "category": "kettles"} and shown["definition"][
        "start_urls"
    ] == ["{origin}/c/{category}"]

    code, out, _ = cli("run", project_id, "--var", "category=kettles", "--var", "category=mugs")
    assert code == 0 and out.splitlines() == [
        "kettles: read 2 page(s), 0 failed",
        "  products: 3 new, 0 updated, 0 unchanged",
    ]
    SHOP["kettles"] = [
        ("k1", "Steel kettle, boxed"),
        ("k2", "Glass kettle"),
        ("k3", "Copper kettle"),
    ]
    code, out, _ = cli("run", "kettles")  # the project's own variables: kettles only
    assert code == 0 and "  products: 1 new, 1 updated, 1 unchanged" in out.splitlines()
    assert yaml.safe_load(cli("show", "kettles")[1])["rows"] == {"products": 4}


def test_list_takes_the_filter_and_sort_of_list_projects(
    cli: Cli, origin: str, tmp_path: Path
) -> None:
    for name in ("beta", "alpha", "gamma"):
        _imported(cli, _file(tmp_path / f"{name}.yaml", {"name": name, "definition": DEFINITION}))
    code, out, _ = cli("list", "--sort", "name", "--filter", 'name != "beta"')
    assert code == 0 and [line.split()[1] for line in out.splitlines()[1:]] == ["alpha", "gamma"]
    code, out, err = cli("list", "--filter", "name ~")
    assert (
        code == 1
        and out == ""
        and len(err.splitlines()) == 1
        and "position 6" in err
        and "invalid_query" in err
    )


def test_export_then_import_into_an_empty_store_gives_the_same_projects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], origin: str
) -> None:
    first, second = Cli(tmp_path / "first", capsys), Cli(tmp_path / "second", capsys)
    given_id = "0123456789abcdef0123456789abcdef"
    ids = _imported(
        first,
        _file(
            tmp_path / "in/a.yaml",
            {"project_id": given_id, "name": "kettles and mugs", "definition": DEFINITION},
        ),
        _file(
            tmp_path / "in/b.yaml",
            {"name": "Küche/2", "variables": {"since": "2024-01-01"}, "definition": DEFINITION},
        ),
    )
    assert ids[0] == given_id

    code, out, _ = first("export", "--all", "-o", str(tmp_path / "out"))
    files = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert (
        code == 0
        and files == ["Küche-2.yaml", "kettles-and-mugs.yaml"]
        and len(out.splitlines()) == 2
    )
    exported = (tmp_path / "out/kettles-and-mugs.yaml").read_text()
    assert list(yaml.safe_load(exported)) == [
        "project_id",
        "name",
        "kind",
        "variables",
        "definition",
    ]
    assert first("export", "kettles and mugs")[1] == exported  # stdout holds the same document
    assert first("export", given_id, "-o", str(tmp_path / "one.yaml"))[0] == 0
    assert (tmp_path / "one.yaml").read_text() == exported

    async def secrets() -> list[str]:
        store = open_store(str(tmp_path / "first"))
        try:
            return [
                project.secret
                for project in [await store.project(i) for i in ids]
                if project is not None
            ]
        finally:
            store.close()

    texts = [path.read_text() for path in (tmp_path / "out").iterdir()]
    assert all(secret not in text for secret in anyio.run(secrets) for text in texts)

    code, out, _ = second("import", str(tmp_path / "out"))
    assert code == 0 and sorted(line.split()[1] for line in out.splitlines()) == sorted(ids)
    assert second("export", "--all", "-o", str(tmp_path / "again"))[0] == 0
    for name in files:
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "out" / name).read_bytes()
    assert yaml.safe_load((tmp_path / "again/Küche-2.yaml").read_text())["variables"] == {
        "since": "2024-01-01"
    }

    code, out, _ = second("import", str(tmp_path / "out"))  # a second import updates them: same ids
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["updated", "updated"]


def test_a_bad_file_names_each_problem_and_nothing_is_imported(cli: Cli, tmp_path: Path) -> None:
    good = _file(tmp_path / "in/good.yaml", {"name": "good", "definition": DEFINITION})
    broken = {
        **DEFINITION,
        "datasets": [
            {
                "name": "products",
                "item_selector": "li[",
                "key": "sku",
                "properties": [{"key": "t"}, {"key": "t"}],
            }
        ],
    }
    _file(tmp_path / "in/invalid.yaml", {"name": "invalid", "definition": broken})
    (tmp_path / "in/not-yaml.yml").write_text("name: [unclosed\n")
    (tmp_path / "in/list.yaml").write_text("- name: a list\n")
    _file(
        tmp_path / "in/unknown.yaml", {"name": "unknown", "definition": DEFINITION, "colour": "red"}
    )
    code, out, err = cli("import", str(tmp_path / "in"), str(tmp_path / "missing.yaml"))
    lines = err.splitlines()
    assert code == 1 and out == ""
    assert [line for line in lines if "invalid.yaml" in line] == [
        f"netglean project import: {tmp_path / 'in/invalid.yaml'}: "
        "/definition/datasets/0/item_selector:"
        ' "li[" is not a CSS selector netglean can read',
        f"netglean project import: {tmp_path / 'in/invalid.yaml'}: /definition/datasets/0/key:"
        " no property of this dataset has key 'sku'",
        f"netglean project import: {tmp_path / 'in/invalid.yaml'}: "
        "/definition/datasets/0/properties/1/key: property key 't' is used twice",
    ]
    assert any("not-yaml.yml: not YAML at line 2" in line for line in lines)
    assert any("list.yaml: not a project" in line for line in lines)
    assert any("unknown.yaml" in line and "colour" in line for line in lines)
    assert any("missing.yaml: cannot read it" in line for line in lines)
    assert lines[-1] == "netglean project import: nothing imported: 7 problem(s)"
    assert str(good) not in err
    assert cli("list")[1].splitlines()[1:] == []  # the good file was not saved either


def test_an_import_never_stops_halfway_on_a_name_or_an_id(cli: Cli, tmp_path: Path) -> None:
    (held,) = _imported(
        cli, _file(tmp_path / "held.yaml", {"name": "held", "definition": DEFINITION})
    )
    other = "f" * 32
    first = _file(
        tmp_path / "in/1.yaml", {"project_id": other, "name": "new", "definition": DEFINITION}
    )
    taken = _file(tmp_path / "in/2.yaml", {"name": "held", "definition": DEFINITION})
    twice = _file(
        tmp_path / "in/3.yaml", {"project_id": other, "name": "newer", "definition": DEFINITION}
    )
    code, _, err = cli("import", str(first), str(taken), str(twice))
    assert code == 1 and err.splitlines() == [
        f"netglean project import: {taken}: /name: the store's project {held} is named 'held'"
        " (give the file that project_id to update it, or another name)",
        f"netglean project import: {twice}: /project_id: {first} holds the project of this id too",
        "netglean project import: nothing imported: 2 problem(s)",
    ]
    assert [line.split()[0] for line in cli("list")[1].splitlines()[1:]] == [held]
    renamed = _file(
        tmp_path / "renamed.yaml", {"project_id": held, "name": "renamed", "definition": DEFINITION}
    )
    code, out, _ = cli("import", str(renamed))
    assert code == 0 and out == f"updated {held} 'renamed' from {renamed}\n"


def test_a_name_or_id_resolves_and_an_unknown_or_ambiguous_one_lists_candidates(
    cli: Cli, tmp_path: Path
) -> None:
    assert (
        cli("show", "kettles")[2]
        == "netglean project show: no project 'kettles': the store holds none\n"
    )
    (kettles,) = _imported(
        cli, _file(tmp_path / "k.yaml", {"name": "kettles", "definition": DEFINITION})
    )
    assert yaml.safe_load(cli("show", kettles)[1])["name"] == "kettles"
    code, out, err = cli("show", "kettels")
    assert (code, out) == (1, "") and err == (
        "netglean project show: no project has the id or name 'kettels'; did you mean 'kettles'?\n"
    )
    code, _, err = cli("export", "nothing like it")
    assert code == 1 and err.endswith("netglean project list names them\n")
    (twin,) = _imported(
        cli, _file(tmp_path / "t.yaml", {"name": kettles, "definition": DEFINITION})
    )
    code, _, err = cli("run", kettles)
    assert (
        code == 1
        and len(err.splitlines()) == 1
        and err
        == (
            f"netglean project run: {kettles!r} is ambiguous: the id of 'kettles', and the name "
            f"of project {twin} (give {twin} for that one; rename it to reach the other)\n"
        )
    )


def test_run_exit_codes_and_usage_errors(cli: Cli, origin: str, tmp_path: Path) -> None:
    project = {"name": "no category", "variables": {"origin": origin}, "definition": DEFINITION}
    _imported(cli, _file(tmp_path / "p.yaml", project))
    code, out, err = cli("run", "no category")
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert "'category'" in err and "invalid_config" in err
    SHOP["cups"] = [("c1", "Cup")]
    assert cli("run", "no category", "--var", "category=cups")[0] == 0
    with pytest.raises(SystemExit) as usage:
        cli("run", "no category", "--var", "category")
    assert usage.value.code == 2
    assert cli("export")[0] == 2 and cli("export", "--all")[0] == 2
    code, _, err = cli("export", "no category", "--all", "-o", str(tmp_path / "out"))
    assert (
        code == 2
        and err == "netglean project export: name one PROJECT, or give --all with -o DIR\n"
    )
    code, _, err = cli("import", str(tmp_path / "empty"))
    assert code == 1 and "cannot read it" in err
    (tmp_path / "empty").mkdir()
    code, _, err = cli("import", str(tmp_path / "empty"))
    assert (
        code == 1
        and err
        == f"netglean project import: {tmp_path / 'empty'}: the folder holds no .yaml or .yml "
        "file\n"
    )


def test_a_run_that_outlasts_the_call_deadline_is_waited_for(
    cli: Cli, origin: str, tmp_path: Path
) -> None:
    """run_project answers with the run when the call's deadline comes first; the command waits for
    its end."""
    SHOP["slow"] = [("s1", "Slow kettle")]
    _imported(
        cli,
        _file(
            tmp_path / "p.yaml",
            {"name": "slow", "variables": {"origin": origin}, "definition": DEFINITION},
        ),
    )
    code, out, _ = cli(
        "run", "slow", "--var", "category=slow", "--call-timeout", str(RUN_CALL_TIMEOUT)
    )
    assert code == 0 and out.splitlines()[1] == "  products: 1 new, 0 updated, 0 unchanged"


def test_names_that_would_make_one_file_get_their_ids(cli: Cli, tmp_path: Path) -> None:
    """ "Shop" and "shop" are two projects, and one file on a filesystem blind to case."""
    ids = _imported(
        cli,
        _file(tmp_path / "1.yaml", {"name": "Shop", "definition": DEFINITION}),
        _file(tmp_path / "2.yaml", {"name": "shop", "definition": DEFINITION}),
        _file(tmp_path / "3.yaml", {"name": "../..", "definition": DEFINITION}),
    )
    assert cli("export", "--all", "-o", str(tmp_path / "out"))[0] == 0
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == sorted(
        [f"Shop-{ids[0]}.yaml", f"shop-{ids[1]}.yaml", f"{ids[2]}.yaml"]
    )


PLANTED = "kettles\x1b]0;owned\x07\x1b[2J\u202eslen\u200bket\U000e0041\rFAKE\nROW"
"""A name an older netglean saved as it was given: a title-setting and a screen-clearing escape, a
bell, a right-to-left override, a zero-width space, a tag character, a carriage return and a line
break."""
UNSEEN = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|" + "[\u202e\u200b\U000e0041]".encode()
)
"""What must not reach the terminal (a terminal's line discipline writes each line break as CR
LF)."""


def _planted(data: Path, origin: str) -> str:
    """An extract project of the shop under ``PLANTED``, put in the store as an older netglean kept
    it."""
    project = Project(
        id="0123456789abcdef0123456789abcdef",
        name=PLANTED,
        kind="extract",
        definition=DEFINITION,
        variables={"origin": origin, "category": "kettles"},
        schedule=None,
        secret="0" * 32,
        created_at=time.time(),
        updated_at=time.time(),
    )

    async def plant() -> None:
        store = open_store(str(data))
        try:
            await store.save_project(project)
        finally:
            store.close()

    anyio.run(plant)
    return project.id


def _on_a_terminal(*argv: str) -> bytes:
    """What `netglean ARGV` writes to a pseudo-terminal, stdout and stderr alike."""
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "netglean", *argv],
            stdin=subprocess.DEVNULL,
            stdout=terminal,
            stderr=terminal,
            timeout=120,
            check=False,
        )
    finally:
        os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal's other end is closed: all is read
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert done.returncode == 0, shown
    return shown


def test_list_show_and_run_print_an_old_stores_planted_name_cleaned_on_a_terminal(
    origin: str, tmp_path: Path
) -> None:
    SHOP["kettles"] = [("k1", "Steel kettle")]
    project_id = _planted(tmp_path / "data", origin)
    for command in (["list"], ["show", project_id], ["run", project_id]):
        shown = _on_a_terminal("project", *command, "--data-dir", str(tmp_path / "data"), *SETTINGS)
        # the escape sequences go whole
        assert b"kettlesslenket" in shown and b"ROW" in shown, shown
        assert UNSEEN.search(shown) is None, shown
    table = (
        _on_a_terminal("project", "list", "--data-dir", str(tmp_path / "data"))
        .decode()
        .splitlines()
    )
    # the name's line break does not fake a row
    assert len(table) == 2 and table[1].split()[0] == project_id


def test_import_prints_a_files_name_cleaned(cli: Cli, tmp_path: Path) -> None:
    path = _file(
        tmp_path / "k\x1b[2Jettles\u202e.yaml", {"name": "kettles", "definition": DEFINITION}
    )
    code, out, err = cli("import", str(path))
    assert code == 0 and out.endswith(f"'kettles' from {tmp_path}/kettles.yaml\n"), out
    assert "\x1b" not in out + err and "\u202e" not in out + err


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("kettles\x1b[2J", "U+001B"),
        ("kettles\x07", "U+0007"),
        ("\u202eselttek", "U+202E"),
        ("ket\u200btles", "U+200B"),
        ("kettles\U000e0041", "U+E0041"),
        ("kettles\nROW", "U+000A"),
    ],
)
def test_import_refuses_a_name_a_terminal_would_not_show_as_stored(
    cli: Cli, tmp_path: Path, name: str, named: str
) -> None:
    code, out, err = cli(
        "import", str(_file(tmp_path / "p.yaml", {"name": name, "definition": DEFINITION}))
    )
    assert code == 1 and out == "" and "/name:" in err and named in err, err
    assert name not in err and "\x1b" not in err
    assert cli("list")[1] == "ID  NAME  KIND  UPDATED (UTC)\n"


def test_show_gives_a_feed_projects_address(cli: Cli, tmp_path: Path) -> None:
    config = {
        "channel": {"url": "https://harbour.test/news/"},
        "selectors": {"items": {"selector": "li"}},
    }
    project = {"name": "harbour news", "kind": "feed", "definition": {"config": config}}
    _imported(cli, _file(tmp_path / "news.yaml", project))
    code, out, err = cli("show", "harbour news", "--public-url", "https://feeds.example.org")
    assert code == 0, err
    address = "https://feeds.example.org/feeds/harbour%20news"
    assert yaml.safe_load(out)["feed_urls"] == {"rss": f"{address}.xml", "json": f"{address}.json"}
