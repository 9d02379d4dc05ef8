"""What a person at the terminal reaches for first: Ctrl-C on a long crawl, the URL as the first
argument, a JSON array for a list flag, ``@FILE`` for any flag, a value that begins with ``-``, a
project by its name, and a listing page to a feed in one command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

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
            [sys.executable, "-m", "netglean", "call", "resume_run", "--run-id", run_id, *data, *LOCAL],
            cwd=PROJECT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["payload"]["run"]["status"] in {"running", "succeeded"}
