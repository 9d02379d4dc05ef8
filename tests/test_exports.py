"""The runtime's public surface is pinned: ``netglean.__all__`` is exactly what the package face
serves, and changing either is a deliberate act.

The face is read from the package itself, never from a list copied here: the names its lazy table
(``_HOMES``) serves through ``__getattr__``, and the names its own source binds at the top level —
definitions, and re-exports from netglean's modules — less what is private (``_name``), the module
protocol's own (``__all__``, ``__getattr__``, ``__dir__``) and the helpers it imports from elsewhere
(``importlib``, ``typing``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys

import netglean

MODULE_PROTOCOL = {"__all__", "__getattr__", "__dir__"}
"""What a module defines to be a module (PEP 562), not what it offers."""


def _bound_by_the_package() -> set[str]:
    """The names netglean/__init__.py binds at its top level, except imports from outside netglean
    (the names an ``if TYPE_CHECKING:`` block imports are for type checkers: the lazy table serves
    them)."""
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(netglean)).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "netglean":
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def _face() -> set[str]:
    lazy = set(netglean._HOMES)
    own = {
        name
        for name in _bound_by_the_package()
        if not (name.startswith("_") and not name.endswith("__"))
    }
    return lazy | (own - MODULE_PROTOCOL)


def test_all_is_sorted_and_is_the_packages_face() -> None:
    assert netglean.__all__ == sorted(netglean.__all__)
    assert set(netglean.__all__) == _face()
    assert len(netglean.__all__) == len(set(netglean.__all__))


def test_every_lazy_name_is_its_homes_own_object() -> None:
    for name, home in netglean._HOMES.items():
        assert getattr(netglean, name) is getattr(importlib.import_module(home), name), name
        assert home.startswith("netglean.") and not home.rpartition(".")[2].startswith("_"), home


def test_a_name_the_face_does_not_serve_is_an_attribute_error() -> None:
    try:
        netglean.not_exported  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "module 'netglean' has no attribute 'not_exported'" in str(error)
    else:
        raise AssertionError("netglean.not_exported resolved")


def test_a_star_import_brings_exactly_all_and_the_bare_import_nothing_heavy() -> None:
    """``from netglean import *`` resolves every lazy name; ``import netglean`` alone loads none of
    them (a reader process starts without pydantic and the rest of the runtime)."""
    script = (
        "import sys, netglean\nloaded = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'netglean', 'pydantic', 'mcp', 'selectolax'})\nnamespace = {}\nexec('from netglean "
        "import *', namespace)\nprint(loaded, sorted(set(namespace) - {'__builtins__'}) == "
        "sorted(netglean.__all__))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "['netglean', 'netglean._version'] True", done.stderr


def test_every_tool_error_maps_to_a_published_code() -> None:
    from netglean.core.envelope import ERROR_SCHEMA

    codes = set(ERROR_SCHEMA["properties"]["code"]["enum"])
    for name in netglean.__all__:
        value = getattr(netglean, name)
        if isinstance(value, type) and issubclass(value, netglean.ToolError):
            assert value.code in codes, name
            assert issubclass(value, netglean.NetgleanError)
