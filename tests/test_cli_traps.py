"""What a person at the terminal reaches for first: Ctrl-C on a long crawl, the URL as the first
argument, a JSON array for a list flag, ``@FILE`` for any flag, a value that begins with ``-``, a
project by its name, and a listing page to a feed in one command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from netglean.cli.main import main
from tests.support.paths import PROJECT
from tests.support.polling import until
from tests.support.run_site import serve_run_site

LOCAL = ["--allow-private-hosts", "--host-interval", "0"]


def _cli(*argv: str) -> subprocess.Popen[str]:
    """The command in its own process group, as a terminal runs it: Ctrl-C reaches every process."""
    return subprocess.Popen(
        [sys.executable, "-m", "netglean", *argv],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def test_ctrl_c_stops_a_crawl_cleanly_names_its_run_and_the_run_resumes(tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    with serve_run_site() as (site, port):
        url = f"http://127.0.0.1:{port}/gated/40/0"
        crawl = _cli("call", "crawl", "--url", url, "--max-pages", "40", *data, *LOCAL)
        try:
            until(lambda: site.gate.waiting > 0, "the crawl reaching the gated pages", bound=120)
            os.killpg(crawl.pid, signal.SIGINT)
            out, err = crawl.communicate(timeout=120)
        finally:
            if crawl.poll() is None:
                crawl.kill()
        assert crawl.returncode == 130, err
        assert "Traceback" not in err and out == ""
        (line,) = [said for said in err.splitlines() if said.startswith("run ")]
        run_id = line.split()[1]
        assert line.endswith(f"continue it with: netglean call resume_run --run-id {run_id}")
        site.gate.open()
        resumed = subprocess.run(
            [
                sys.executable,
                "-m",
                "netglean",
                "call",
                "resume_run",
                "--run-id",
                run_id,
                *data,
                *LOCAL,
            ],
            cwd=PROJECT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["payload"]["run"]["status"] in {"running", "succeeded"}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The feed tools' listing pages and a plain article, on 127.0.0.1."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, PlainTextResponse
    from starlette.routing import Mount, Route

    from tests.support.feed_site import FEED_APP
    from tests.support.fixture_site import serve

    article = (
        "<html><head><title>Tides</title></head><body><article><h1>Tides</h1><p>{}</p></article>"
    )
    app = Starlette(
        routes=[
            Route("/robots.txt", lambda request: PlainTextResponse("", status_code=404)),
            Route(
                "/tides",
                lambda request: HTMLResponse(article.format("The sea comes in twice a day. " * 20)),
            ),
            Mount("/", app=FEED_APP),
        ]
    )
    with serve(app=app) as port:
        yield f"http://127.0.0.1:{port}"


def _definition(url: str) -> str:
    selectors = {"items": {"selector": "article"}, "title": {"selector": "h2"}}
    return json.dumps({"config": {"channel": {"url": url}, "selectors": selectors}})


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([*argv, *LOCAL])
    said = capsys.readouterr()
    return code, said.out, said.err


@pytest.mark.parametrize("argv", [("scrape",), ("call", "scrape")], ids=["shortcut", "call"])
def test_the_url_comes_first_as_every_peer_takes_it(
    site: str, argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, *argv, f"{site}/tides", "--format", "text")
    assert code == 0, err
    assert out.startswith("Tides\n") and "twice a day" in out


def test_a_list_flag_takes_a_json_array_or_repeats(
    site: str, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = [f"{site}/tides", f"{site}/feeds/news"]
    for spelled in (["--urls", json.dumps(urls)], ["--urls", urls[0], "--urls", urls[1]]):
        code, out, err = _run(capsys, "call", "batch_scrape", *spelled, "--envelope")
        assert code == 0, err
        assert [entry["url"] for entry in json.loads(out)["payload"]["results"]] == urls
    code, out, err = _run(
        capsys, "call", "batch_scrape", "--urls", json.dumps(urls[:1]), "--urls", urls[1]
    )
    assert code == 0, err


def test_at_file_reads_any_flag_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    definition = tmp_path / "definition.json"
    definition.write_text(_definition("https://harbour.test/news/"))
    markdown, number = tmp_path / "draft.md", tmp_path / "first.txt"
    markdown.write_text("[a](https://a.test)\n")
    number.write_text("7\n")
    code, out, err = _run(
        capsys,
        "call",
        "generate_citations",
        "--markdown",
        f"@{markdown}",
        "--first-number",
        f"@{number}",
    )
    assert code == 0 and out.startswith("a [7]"), err
    data = ["--data-dir", str(tmp_path / "data")]
    code, out, err = _run(
        capsys, "call", "save_project", "--name", "harbour", "--kind", "feed",
        "--definition", f"@{definition}", "--envelope", *data,
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["payload"]["project"]["definition"]["config"]["channel"]["url"].endswith(
        "/news/"
    )


def test_a_value_that_begins_with_a_dash_is_its_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    for name in ("alpha", "beta"):
        definition = _definition(f"https://{name}.test/")
        assert _run(capsys, "call", "save_project", "--name", name, "--kind", "feed",
                    "--definition", definition, *data)[0] == 0  # fmt: skip
    code, out, err = _run(capsys, "call", "list_projects", "--sort", "-name", "--envelope", *data)
    assert code == 0, err
    assert [project["name"] for project in json.loads(out)["payload"]["projects"]] == [
        "beta",
        "alpha",
    ]


def test_project_id_takes_the_projects_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    definition = _definition("https://harbour.test/")
    code, out, _ = _run(
        capsys, "call", "save_project", "--name", "harbour news", "--kind", "feed",
        "--definition", definition, "--envelope", *data,
    )  # fmt: skip
    project_id = json.loads(out)["payload"]["project"]["project_id"]
    code, out, err = _run(
        capsys, "call", "get_project", "--project-id", "harbour news", "--envelope", *data
    )
    assert code == 0, err
    assert json.loads(out)["payload"]["project"]["project_id"] == project_id
    code, out, err = _run(capsys, "call", "get_project", "--project-id", "harbor news", *data)
    assert code == 2 and out == ""
    assert err.startswith(
        "netglean call get_project: --project-id: no project has the id or name 'harbor news'"
    )
    assert "did you mean 'harbour news'?" in err


def test_feed_turns_a_listing_page_into_rss_in_one_command(
    site: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "news.yaml"
    code, out, err = _run(capsys, "feed", f"{site}/feeds/news", "--save-config", str(config))
    assert code == 0, err
    assert out.startswith("<?xml") and "<rss" in out and out.count("<item>") >= 3
    assert "selectors:" in config.read_text(encoding="utf-8")
    code, out, err = _run(capsys, "feed", f"{site}/feeds/news", "--format", "json_feed")
    assert code == 0, err
    assert json.loads(out)["version"].startswith("https://jsonfeed.org/version/1")
    code, out, err = _run(capsys, "feed", f"{site}/feeds/empty")
    assert code == 1 and out == "" and err.startswith("netglean feed: ")
