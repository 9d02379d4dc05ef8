"""`netglean call`: options derived from each tool's schema, same validation path as the server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from netglean.cli.main import main
from tests.support.paths import PROJECT


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_call_with_flags_prints_the_content_and_envelope_the_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = (
        "call",
        "generate_citations",
        "--markdown",
        "[a](https://a.test)",
        "--first-number",
        "2",
    )
    code, out = _run(capsys, *argv)
    assert code == 0 and out == "a [2]\n\n## References\n\n[2]: https://a.test\n\n"
    code, out = _run(capsys, *argv, "--envelope")
    envelope = json.loads(out)
    assert code == 0 and envelope["ok"] is True
    assert envelope["payload"]["references"] == [
        {"number": 2, "url": "https://a.test", "text": "a"}
    ]


def test_call_with_json_and_text_rendering(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "call", "get_version", "--json", "{}", "--text")
    assert code == 0 and json.loads(out)["payload"]["name"] == "netglean"


def test_the_answer_is_printed_before_the_services_close(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What closing waits for (a browser still launching when the call's deadline passed) comes
    after the answer: the answer is shown first."""
    from netglean.calls.context import Services

    shown_before_closing: list[str] = []
    close = Services.aclose

    async def closing(services: Services) -> None:
        shown_before_closing.append(capsys.readouterr().out)
        await close(services)

    monkeypatch.setattr(Services, "aclose", closing)
    assert main(["call", "get_version", "--envelope"]) == 0
    assert json.loads(shown_before_closing[0])["payload"]["name"] == "netglean"


def test_invalid_arguments_are_a_usage_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """Bad usage exits 2 (issue 19), as argparse's own errors do: a missing required flag, a value
    out of range."""
    assert main(["call", "explain_check"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "netglean call explain_check: invalid_arguments: invalid arguments for explain_check: "
        "missing required argument 'check_id'",
        "(netglean call explain_check --help lists its flags)",
    ]
    code, out = _run(
        capsys,
        "call",
        "generate_citations",
        "--json",
        '{"markdown": "x", "first_number": "50"}',
        "--envelope",
    )
    error = json.loads(out)["payload"]["error"]
    assert (
        code == 2  # the envelope printed, and still the usage error it is
        and error["code"] == "invalid_arguments"
        and error["detail"]["errors"][0]["argument"] == "first_number"
    )


def test_a_flag_of_objects_takes_them_one_a_flag_or_as_one_json_array(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """interact's actions: both spellings reach the tool as the same two actions (the policy then
    refuses the page before any browser starts)."""
    click, shot = '{"action": "click", "selector": "#b"}', '{"action": "screenshot"}'
    for flags in (["--actions", f"[{click}, {shot}]"], ["--actions", click, "--actions", shot]):
        code, out = _run(
            capsys, "call", "interact", "--url", "http://10.0.0.1/", *flags, "--envelope"
        )
        assert code == 1 and json.loads(out)["payload"]["error"]["code"] == "blocked_address"
    code, out = _run(
        capsys, "call", "interact", "--url", "http://10.0.0.1/", "--actions", "[[1]]", "--envelope"
    )
    assert code == 2 and json.loads(out)["payload"]["error"]["code"] == "invalid_arguments"


def test_cli_type_errors_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["call", "generate_citations", "--markdown", "x", "--first-number", "many"])
    assert exit_info.value.code == 2
    assert "first-number" in capsys.readouterr().err


def test_an_unknown_tool_or_command_names_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "scrap"]) == 2
    assert capsys.readouterr().err == (
        "netglean call: no tool scrap (did you mean scrape? netglean call --help lists the tools)\n"
    )
    assert main(["call", "frobnicate"]) == 2
    assert (
        capsys.readouterr().err
        == "netglean call: no tool frobnicate (netglean call --help lists the tools)\n"
    )
    assert main(["serv"]) == 2
    assert "no command serv (did you mean serve?" in capsys.readouterr().err
    assert main(["--uri"]) == 2
    assert (
        capsys.readouterr().err == "netglean: no flag --uri (netglean --help lists the commands)\n"
    )
    assert main(["call", "--envelope", "scrape"]) == 2
    assert capsys.readouterr().err.startswith(
        "netglean call: the tool comes first: netglean call TOOL --envelope"
    )


def test_bad_operator_setting_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "get_version", "--max-concurrent-calls", "0"]) == 2
    assert "below the minimum" in capsys.readouterr().err


def test_demo_runs_end_to_end() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "netglean", "demo"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "tools/call generate_citations" in done.stdout and "isError=True" in done.stdout
    assert (
        '"path": "/selectors/published_at/extractor"' in done.stdout
        and "isError=False" in done.stdout
    )


def test_string_flags_read_a_file_with_an_at_sign(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "feed.yml"
    config.write_text(
        "channel: {url: 'https://example.com/'}\nselectors: {items: {selector: li}, title: "
        "{selector: a}}\n"
    )
    code, out = _run(capsys, "call", "validate_config", "--yaml", f"@{config}", "--envelope")
    envelope = json.loads(out)
    assert (
        code == 0
        and envelope["payload"]["valid"] is True
        and envelope["next_step"] == "apply_config"
    )
    with pytest.raises(SystemExit):
        main(["call", "validate_config", "--yaml", f"@{tmp_path / 'missing.yml'}"])
    assert "cannot read" in capsys.readouterr().err


def test_an_unreadable_private_target_list_stops_the_command_at_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It used to pass start-up and fail the first fetch as internal_error."""
    assert main(["call", "get_version", "--allow-private-targets", "10.0.0.0/33"]) == 2
    assert "allow_private_targets: '10.0.0.0/33' is not a network" in capsys.readouterr().err


# For a person at the terminal (issue 19): one line for every operator mistake, never a traceback.


def _netglean(
    *argv: str, env: dict[str, str] | None = None, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netglean", *argv]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
        env=env,
        check=False,
        **kwargs,
    )  # type: ignore[call-overload]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("netglean ")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ("call", "scrape", "--uri", "https://example.org/"),
            "netglean call scrape: unknown flag --uri (did you mean --url?)",
        ),
        (("serve", "--prot", "1"), "netglean serve: unknown flag --prot (did you mean --port?)"),
        (
            ("call", "get_version", "--json", "{bad"),
            "netglean call get_version: --json is not valid JSON: Expecting",
        ),
        (("serve", "--port", "99999"), "netglean: --port: 99999 is no TCP port (at most 65535)"),
    ],
)
def test_a_mistyped_command_line_is_one_line_naming_the_fix(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], said: str
) -> None:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith(said) and "Traceback" not in err


def test_a_tool_argument_named_like_the_command_line_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """list_runs takes a tool argument, which used to overwrite the subcommand's (KeyError:
    None)."""
    code, out = _run(capsys, "call", "list_runs", "--tool", "crawl", "--per-page", "1")
    assert code == 0 and json.loads(out)["ok"] is True


def test_an_unusable_data_directory_is_one_line(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    environment = {"PATH": "/usr/bin:/bin", "NETGLEAN_DATA_DIR": str(blocked / "store")}
    done = _netglean("call", "list_runs", env=environment)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and str(blocked) in done.stderr, (
        done.stderr
    )


def test_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _netglean("serve", "--port", str(port))
    assert done.returncode == 2 and done.stderr.startswith(
        f"netglean: cannot listen on 127.0.0.1:{port}"
    )
    assert "Traceback" not in done.stderr


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    markdown = tmp_path / "long.md"
    markdown.write_text("[a](https://a.test) " * 20_000)
    reader = subprocess.Popen(
        ["head", "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    writer = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "netglean",
            "call",
            "generate_citations",
            "--markdown",
            f"@{markdown}",
        ],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        cwd=PROJECT,
    )
    assert reader.stdin is not None
    reader.stdin.close()
    _, err = writer.communicate(timeout=120)
    reader.wait(timeout=10)
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err[-500:]


def test_a_one_shot_call_imports_no_mcp_sdk_module_and_still_reports_its_versions() -> None:
    """`netglean call` speaks no MCP: it starts without the SDK's modules (importing them was half
    its start-up), yet get_version lists the protocol versions the installed SDK speaks."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    script = (
        "import json, sys\n"
        "from netglean.cli.main import main\n"
        "code = main(['call', 'get_version', '--envelope'])\n"
        "sdk = sorted(m for m in sys.modules if m.split('.')[0] in {'mcp', 'mcp_types'})\n"
        "print(json.dumps(sdk), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    command = [sys.executable, "-c", script]
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=PROJECT, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stderr.splitlines()[-1]) == []
    versions = json.loads(done.stdout)["payload"]["protocol_versions"]
    assert versions == [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]


def test_the_versions_are_the_sdks_whether_its_table_runs_alone_or_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An SDK whose version table cannot be found on its own is imported the usual way: slower,
    the same answer."""
    from mcp_types import version

    from netglean.serve import versions

    alone = versions._version_table()
    monkeypatch.setattr(versions.importlib.util, "find_spec", lambda name: None)
    assert versions._version_table() is version
    assert alone is not version and alone.KNOWN_PROTOCOL_VERSIONS == version.KNOWN_PROTOCOL_VERSIONS


def test_dev_warns_on_stderr() -> None:
    done = _netglean("call", "get_version", "--dev")
    assert (
        done.returncode == 0
        and done.stderr.startswith("netglean: --dev is on:")
        and "unsafe" in done.stderr
    )


# What a person sees: the content, a table, or one line of failure; the envelope with --envelope
# (issue 19).

PAGE = (
    b"<html><head><title>Tides</title></head><body><article><h1>Tides</h1><p>High water comes "
    b"twice a day here, about fifty minutes later each day than the day "
    b"before.</p></article></body></html>"
)


@pytest.fixture(scope="module")
def local_site() -> Iterator[str]:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    from tests.support.fixture_site import serve

    app = Starlette(
        routes=[
            Route("/robots.txt", lambda request: PlainTextResponse("", status_code=404)),
            Route("/tides", lambda request: Response(PAGE, media_type="text/html")),
            Route("/gone", lambda request: PlainTextResponse("gone", status_code=404)),
        ]
    )
    with serve(app=app) as port:
        yield f"http://127.0.0.1:{port}"


def test_scrape_prints_the_markdown_and_envelope_the_json(
    local_site: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(
        capsys, "call", "scrape", "--url", f"{local_site}/tides", "--allow-private-hosts"
    )
    assert (
        code == 0
        and out.startswith("# Tides\n")
        and "twice a day" in out
        and not out.startswith("{")
    )
    code, out = _run(
        capsys,
        "call",
        "scrape",
        "--url",
        f"{local_site}/tides",
        "--allow-private-hosts",
        "--envelope",
    )
    assert code == 0 and json.loads(out)["payload"]["content"].startswith("# Tides")


def test_a_batch_is_a_table_and_one_that_read_nothing_exits_1(
    local_site: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed row shows its status in the table and its message on stderr: a code alone says too
    little."""
    urls = ("--urls", f"{local_site}/tides", "--urls", f"{local_site}/gone")
    code = main(["call", "batch_scrape", *urls, "--allow-private-hosts"])
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert code == 0 and lines[0].split() == ["url", "ok", "status", "title", "code"]
    assert lines[1].split()[:3] == [f"{local_site}/tides", "True", "200"]
    assert lines[2].split() == [f"{local_site}/gone", "False", "404", "http_status"]
    assert captured.err == (
        f"netglean call batch_scrape: {local_site}/gone: http_status: {local_site}/gone answered "
        "HTTP 404\n"
    )
    code, out = _run(
        capsys, "call", "batch_scrape", "--urls", f"{local_site}/gone", "--allow-private-hosts"
    )
    assert code == 1 and "http_status" in out  # ok: true, but no page read: a failed result


def test_a_failure_is_one_line_on_stderr_and_exit_1(
    local_site: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", "scrape", "--url", f"{local_site}/gone", "--allow-private-hosts"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("netglean call scrape: http_status: ")
    # tools whose success is JSON fail as one line too
    for tool in ("inspect_url", "download", "compare_agent_view"):
        assert main(["call", tool, "--url", "http://10.0.0.1/"]) == 1
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith(
            f"netglean call {tool}: blocked_address: "
        ), tool
        assert captured.err.count("\n") == 1


def test_output_file_takes_what_would_be_printed(
    local_site: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "tides.md"
    code, out = _run(
        capsys,
        "call",
        "scrape",
        "--url",
        f"{local_site}/tides",
        "--allow-private-hosts",
        "-o",
        str(target),
    )
    assert code == 0 and out == "" and target.read_text().startswith("# Tides")
    unwritable = str(tmp_path / "no" / "x")
    code = main(
        [
            "call",
            "scrape",
            "--url",
            f"{local_site}/tides",
            "--allow-private-hosts",
            "-o",
            unwritable,
        ]
    )
    assert code == 2 and "cannot write" in capsys.readouterr().err


def test_an_invalid_feed_config_lists_its_problems_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            [
                "call",
                "validate_config",
                "--json",
                '{"config": {"channel": {"url": "https://e.com"}}}',
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert (
        err.startswith("netglean call validate_config: invalid_config: ")
        and "/: a config needs" in err
    )
    config = (
        "channel: {url: https://e.com}\nselectors:\n  items: {selector: li}\n  title: {selctor: "
        "a, extractor: txt}"
    )
    typo = json.dumps({"yaml": config})
    assert main(["call", "validate_config", "--json", typo]) == 1
    err = capsys.readouterr().err  # the warnings too, whole: the hint is at the end
    assert "\n  warning /selectors/title/selctor: " in err and err.rstrip().endswith(
        "did you mean 'selector'?"
    )


def test_a_tools_help_gives_its_flags_defaults_and_ranges_before_the_operator_settings() -> None:
    done = _netglean("call", "crawl", "--help")
    text = done.stdout
    assert done.returncode == 0 and text.startswith("usage: netglean call crawl [flags of crawl]")
    assert (
        "(default 2; 0-100)" in text
        and "(default true)" in text
        and "(required; 1-4096 characters)" in text
    )
    assert text.index("flags of crawl:") < text.index("operator settings (also NETGLEAN_")


# Shell completion, written from the same tables as the parser, run in each shell (issue 19).


def _completion(shell: str, tmp_path: Path) -> Path:
    done = _netglean("completion", shell)
    assert done.returncode == 0, done.stderr
    script = tmp_path / f"netglean.{shell}"
    script.write_text(done.stdout)
    return script


def test_bash_completes_commands_tools_flags_and_choices(tmp_path: Path) -> None:
    script = _completion("bash", tmp_path)
    asked = (
        f"source {script}; "
        'COMP_WORDS=(netglean se); COMP_CWORD=1; _netglean; echo "${COMPREPLY[*]}"; '
        'COMP_WORDS=(netglean call scr); COMP_CWORD=2; _netglean; echo "${COMPREPLY[*]}"; '
        'COMP_WORDS=(netglean call scrape --ur); COMP_CWORD=3; _netglean; echo "${COMPREPLY[*]}"; '
        "COMP_WORDS=(netglean call scrape --format ''); COMP_CWORD=4; _netglean; echo "
        '"${COMPREPLY[*]}"; '
        'COMP_WORDS=(netglean serve --po); COMP_CWORD=2; _netglean; echo "${COMPREPLY[*]}"; '
        'COMP_WORDS=(netglean project ""); COMP_CWORD=2; _netglean; echo "${COMPREPLY[*]}"; '
        f"cd {tmp_path}; "
        "COMP_WORDS=(netglean call apply_config --yaml @fe); COMP_CWORD=4; _netglean; echo "
        '"${COMPREPLY[*]}"; '
        "COMP_WORDS=(netglean call apply_config --yaml fe); COMP_CWORD=4; _netglean; echo "
        '"[${COMPREPLY[*]}]"; '
        "COMP_WORDS=(netglean call apply_config -o fe); COMP_CWORD=4; _netglean; echo "
        '"${COMPREPLY[*]}"'
    )
    (tmp_path / "feed.yml").write_text("channel: {}\n")
    done = subprocess.run(
        ["bash", "-c", asked], capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout.splitlines() == [
        "serve",
        "scrape scrape_url",
        "--url",
        "markdown text html json",
        "--port",
        "list show run export import",
        "@feed.yml",  # a string flag's value may be @FILE: after an @, file names are offered
        "[]",  # and text is text
        "feed.yml",  # -o names a file
    ]


def test_zsh_completes_tools_and_their_flags(tmp_path: Path) -> None:
    script = _completion("zsh", tmp_path)
    # what the completion offers, printed (zsh filters by prefix)
    stub = 'compadd() { shift; print -l -- "$@"; }'

    def offered(words: str, current: int) -> set[str]:
        asked = f"source {script}; {stub}; words=({words}); CURRENT={current}; _netglean"
        done = subprocess.run(
            ["zsh", "-c", asked], capture_output=True, text=True, timeout=30, check=True
        )
        return set(done.stdout.split())

    tools, flags = offered("netglean call scr", 3), offered("netglean call scrape --u", 4)
    assert {"scrape", "scrape_url", "crawl"} <= tools and {
        "--url",
        "--envelope",
        "--format",
    } <= flags
    assert offered("netglean call scrape --format ''", 5) == {"markdown", "text", "html", "json"}
    assert offered("netglean project ''", 3) == {"list", "show", "run", "export", "import"}


def test_fish_completes_tools_flags_and_choices(tmp_path: Path) -> None:
    script = _completion("fish", tmp_path)
    asked = (
        f'source {script}; complete -C "netglean call scr"; complete -C "netglean call scrape '
        '--format "'
    )
    done = subprocess.run(
        ["fish", "-c", asked], capture_output=True, text=True, timeout=30, check=True
    )
    offered = [line.split("\t")[0] for line in done.stdout.splitlines()]
    assert offered[:2] == ["scrape", "scrape_url"] and set(offered[2:]) == {
        "markdown",
        "text",
        "html",
        "json",
    }
    asked = f'source {script}; complete -C "netglean project "'
    done = subprocess.run(
        ["fish", "-c", asked], capture_output=True, text=True, timeout=30, check=True
    )
    assert {line.split("\t")[0] for line in done.stdout.splitlines()} == {
        "list",
        "show",
        "run",
        "export",
        "import",
    }


def test_long_work_shows_progress_on_a_terminal_and_nothing_when_piped(local_site: str) -> None:
    """The progress events MCP clients get, drawn on a pseudo-terminal's stderr; a pipe gets no
    bar."""
    import os
    import pty

    command = [sys.executable, "-m", "netglean", "call", "crawl", "--url", f"{local_site}/tides"]
    command += ["--allow-private-hosts", "--host-interval", "0"]
    leader, follower = pty.openpty()
    done = subprocess.run(
        command, stdout=subprocess.PIPE, stderr=follower, cwd=PROJECT, timeout=120, check=False
    )
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    assert done.returncode == 0 and b"\r" in drawn and b"visited" in drawn, drawn
    piped = _netglean(*command[3:])
    assert piped.returncode == 0 and "visited" not in piped.stderr and "\r" not in piped.stderr


def test_log_level_info_says_what_is_fetched(local_site: str) -> None:
    done = _netglean(
        "call",
        "scrape",
        "--url",
        f"{local_site}/tides?key=s3cret",
        "--allow-private-hosts",
        "--log-level",
        "info",
    )
    fetched = [line for line in done.stderr.splitlines() if "netglean.fetch: GET" in line]
    assert any(
        f"GET {local_site}/tides?*** -> 200, {len(PAGE)} bytes, " in line for line in fetched
    ), done.stderr
    assert "s3cret" not in done.stderr


def test_a_summary_line_heads_a_table_whose_rows_are_nested_and_whose_last_column_is_whole() -> (
    None
):
    """scan_url's shape: the grade in a line, then the fixes; a missing value is "-", a long fix is
    not cut."""
    from netglean.cli import output

    spec = {
        "summary": "{result.url}: grade {result.grade}, {result.score} of 100",
        "table": {"rows": "result.fixes", "columns": ["points", "check", "fix"]},
    }
    fix = (
        "Answer Accept: text/markdown with a markdown rendering of the page (Content-Type: "
        "text/markdown)."
    )
    payload = {
        "result": {
            "url": "https://e.test/",
            "score": 0,
            "fixes": [{"points": 9.0, "check": "neg", "fix": fix}],
        }
    }
    assert output.render_payload(payload, spec).splitlines() == [
        "https://e.test/: grade -, 0 of 100",
        "points  check  fix",
        f"9.0     neg    {fix}",
    ]


def test_text_and_envelope_are_one_choice_and_a_full_disk_is_one_line() -> None:
    both = _netglean("call", "get_version", "--text", "--envelope")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    with Path("/dev/full").open("w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "netglean", "call", "get_version"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
            # stdout buffered, as on a person's machine: the buffer the write left must not fail
            # again at exit
            env={name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"},
        )
    assert done.returncode == 2 and done.stderr.strip().endswith(
        "cannot write the output: No space left on device"
    )
    assert "Traceback" not in done.stderr
