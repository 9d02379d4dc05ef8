"""`netglean call`: options derived from each tool's schema, same validation path as the server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from netglean.cli.main import main
from tests.support.paths import PROJECT


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_call_with_flags_prints_the_envelope(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "call", "generate_citations", "--markdown", "[a](https://a.test)", "--first-number", "2")
    envelope = json.loads(out)
    assert code == 0 and envelope["ok"] is True
    assert envelope["payload"]["references"] == [{"number": 2, "url": "https://a.test", "text": "a"}]


def test_call_with_json_and_text_rendering(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "call", "get_version", "--json", "{}", "--text")
    assert code == 0 and json.loads(out)["payload"]["name"] == "netglean"


def test_invalid_arguments_exit_1_with_an_error_envelope(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "call", "generate_citations", "--json", '{"markdown": "x", "first_number": "50"}')
    error = json.loads(out)["payload"]["error"]
    assert (
        code == 1
        and error["code"] == "invalid_arguments"
        and error["detail"]["errors"][0]["argument"] == "first_number"
    )


def test_a_flag_of_objects_takes_them_one_a_flag_or_as_one_json_array(capsys: pytest.CaptureFixture[str]) -> None:
    """interact's actions: both spellings reach the tool as the same two actions (the policy then refuses the
    page before any browser starts)."""
    click, shot = '{"action": "click", "selector": "#b"}', '{"action": "screenshot"}'
    for flags in (["--actions", f"[{click}, {shot}]"], ["--actions", click, "--actions", shot]):
        code, out = _run(capsys, "call", "interact", "--url", "http://10.0.0.1/", *flags)
        assert code == 1 and json.loads(out)["payload"]["error"]["code"] == "blocked_address"
    code, out = _run(capsys, "call", "interact", "--url", "http://10.0.0.1/", "--actions", "[[1]]")
    assert code == 1 and json.loads(out)["payload"]["error"]["code"] == "invalid_arguments"


def test_cli_type_errors_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["call", "generate_citations", "--markdown", "x", "--first-number", "many"])
    assert exit_info.value.code == 2
    assert "first-number" in capsys.readouterr().err


def test_unknown_tool_lists_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["call", "frobnicate"])
    assert "generate_citations" in capsys.readouterr().err


def test_bad_operator_setting_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "get_version", "--max-concurrent-calls", "0"]) == 2
    assert "below the minimum" in capsys.readouterr().err


def test_demo_runs_end_to_end() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "netglean", "demo"], cwd=PROJECT, capture_output=True, text=True, timeout=60, check=True
    )
    assert "tools/call generate_citations" in done.stdout and "isError=True" in done.stdout
    assert '"path": "/selectors/published_at/extractor"' in done.stdout and "isError=False" in done.stdout


def test_string_flags_read_a_file_with_an_at_sign(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "feed.yml"
    config.write_text(
        "channel: {url: 'https://example.com/'}\nselectors: {items: {selector: li}, title: {selector: a}}\n"
    )
    code, out = _run(capsys, "call", "validate_config", "--yaml", f"@{config}")
    envelope = json.loads(out)
    assert code == 0 and envelope["payload"]["valid"] is True and envelope["next_step"] == "apply_config"
    with pytest.raises(SystemExit):
        main(["call", "validate_config", "--yaml", f"@{tmp_path / 'missing.yml'}"])
    assert "cannot read" in capsys.readouterr().err


def test_an_unreadable_private_target_list_stops_the_command_at_start(capsys: pytest.CaptureFixture[str]) -> None:
    """It used to pass start-up and fail the first fetch as internal_error."""
    assert main(["call", "get_version", "--allow-private-targets", "10.0.0.0/33"]) == 2
    assert "allow_private_targets: '10.0.0.0/33' is not a network" in capsys.readouterr().err
