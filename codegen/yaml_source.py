"""YAML reading that remembers where every value came from.

PyYAML's safe loader forgets line numbers and silently keeps the last of two
duplicate keys; catalog errors must name a line, and a duplicate key is a typo
that must die early. So catalog files are composed into nodes and converted here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml


@dataclass
class SourceFile:
    """A parsed catalog file: its data and the line of every JSON pointer in it."""

    path: Path
    label: str
    data: Any
    lines: dict[str, int] = field(default_factory=dict)

    def line(self, pointer: str) -> int:
        """The line of ``pointer``, or of its nearest ancestor that has one."""
        while pointer not in self.lines and pointer:
            pointer = pointer.rsplit("/", 1)[0]
        return self.lines.get(pointer, 1)


class YamlProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def escape(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def load(path: Path, label: str) -> SourceFile:
    """Parse ``path``; raise ``YamlProblem`` with a line for syntax errors and duplicate keys."""
    try:
        node = _compose(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise YamlProblem(1, f"not UTF-8 text ({exc.reason})") from exc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlProblem(
            mark.line + 1 if mark else 1, f"invalid YAML: {exc.problem or exc.context}"
        ) from exc
    source = SourceFile(path, label, None)
    if node is None:
        raise YamlProblem(1, "the file is empty")
    source.data = _convert(node, "", source.lines)
    return source


@lru_cache(maxsize=1024)
def _compose(text: str) -> yaml.Node | None:
    """The text's YAML nodes, remembered by content (converting reads them and never changes them):
    parsing is a third of a catalog's load, and a catalog edited in one place holds the same files
    but one."""
    return yaml.compose(text, Loader=yaml.SafeLoader)


def _convert(node: yaml.Node, pointer: str, lines: dict[str, int]) -> Any:
    lines[pointer] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlProblem(
                    key_node.start_mark.line + 1, "mapping keys must be plain strings"
                )
            key = key_node.value
            if key in result:
                raise YamlProblem(key_node.start_mark.line + 1, f"duplicate key '{key}'")
            result[key] = _convert(value_node, f"{pointer}/{escape(key)}", lines)
            lines[f"{pointer}/{escape(key)}"] = key_node.start_mark.line + 1
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _convert(item, f"{pointer}/{index}", lines) for index, item in enumerate(node.value)
        ]
    return yaml.SafeLoader("").construct_object(node, deep=True)
