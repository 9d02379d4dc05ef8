"""The README as written: the "Add a tool" walkthrough executed, its CLI examples parsed, the paths
it names present."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from codegen.main import main as gen_main
from tests.support.paths import PROJECT

GUIDE = PROJECT / "catalog" / "guide"
WRITTEN = [PROJECT / "README.md", PROJECT / "CONTRIBUTING.md", *sorted(GUIDE.glob("*.md"))]
"""What people read: the README, the contributors' guide and the docs site's hand-written pages."""


def _blocks(language: str, section: str, document: Path = PROJECT / "CONTRIBUTING.md") -> list[str]:
    text = document.read_text()
    part = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0] if section else text
    return [
        textwrap.dedent(block) for block in re.findall(rf"```{language}\n(.*?)```", part, re.DOTALL)
    ]


def test_the_add_a_tool_walkthrough_works(tmp_path: Path) -> None:
    (yaml_text,) = _blocks("yaml", "Add a tool")
    (handler,) = _blocks("python", "Add a tool")
    # A copy of the project, as a tool author's checkout: catalog/ and the netglean package (its
    # handlers and its generated package inside), importable ahead of the installed one.
    shutil.copytree(PROJECT / "catalog", tmp_path / "catalog")
    shutil.copytree(
        PROJECT / "netglean", tmp_path / "netglean", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "catalog/tools/text/word_count.yaml").write_text(yaml_text)
    # the handler joins the module of its catalog family
    family = tmp_path / "netglean/handlers/text.py"
    family.write_text(family.read_text() + "\n\n" + handler)
    args = [
        "--catalog",
        str(tmp_path / "catalog"),
        "--handlers",
        str(tmp_path / "netglean/handlers"),
    ]
    assert gen_main([*args, "--out", str(tmp_path / "netglean/generated")]) == 0
    done = subprocess.run(
        [sys.executable, "-m", "netglean", "call", "word_count", "--arg-text", "three small words"],
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["payload"] == {"words": 3}


def test_the_cli_examples_parse() -> None:
    blocks = [block for document in WRITTEN for block in _blocks("sh", "", document)]
    lines = [line.split() for block in blocks for line in block.splitlines()]
    tools = {
        words[words.index("call") + 1] for words in lines if "netglean" in words and "call" in words
    }
    from netglean.calls.registry import load_registry

    assert tools <= set(load_registry().tools)


_PATH = re.compile(r"`((?:netglean|codegen|catalog|tests|bench)/[\w./-]+)`")


def test_every_path_the_readme_names_exists() -> None:
    """A move that leaves the README pointing at a file that is gone fails here (the fetcher's path
    went stale once)."""
    named = {path for document in WRITTEN for path in _PATH.findall(document.read_text())}
    assert named, "the README names no path: the pattern is wrong"
    gone = [path for path in named if "{" not in path and not (PROJECT / path.rstrip("/")).exists()]
    # what a command writes (bench/results/latest.json) is named before it exists: git ignores it
    checked = subprocess.run(
        ["git", "check-ignore", *gone], check=False, cwd=PROJECT, capture_output=True, text=True
    )
    ignored = checked.stdout  # exit status 1 when none is ignored
    assert sorted(set(gone) - set(ignored.split())) == []


def test_every_file_the_readme_links_exists() -> None:
    """The README and CONTRIBUTING.md link files of the checkout (the guide's pages): each is
    there."""
    for document in (PROJECT / "README.md", PROJECT / "CONTRIBUTING.md"):
        linked = re.findall(r"\]\(((?!https?:)[^)#\s]+)\)", document.read_text())
        assert linked or document.name == "CONTRIBUTING.md"
        assert [path for path in linked if not (PROJECT / path).exists()] == [], document.name
