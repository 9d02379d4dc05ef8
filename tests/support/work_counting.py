"""Work counted, not timed: a lexbor tree whose nodes count what the code reading them touches.

A step from one node to another (``child``, ``next``, ``parent``, an item of ``iter()``) costs one;
a call that walks a subtree in C (``text``, ``css``, ``css_first``, ``traverse``) costs the number
of nodes in that subtree, which is what lexbor walks in the worst case. A reader that touches each
node a bounded number of times does work in proportion to the page; one that reads nested subtrees
again at every level does n² or n³.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from netglean.read.html_tree import parse_html


def _sizes(root: Any) -> dict[int, int]:
    """The number of nodes (text and comments included) in every subtree, found in one walk."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            total, child = 1, node.child
            while child is not None:
                total += sizes[child.mem_id]
                child = child.next
            sizes[node.mem_id] = total
            continue
        stack.append((node, True))
        child = node.child
        while child is not None:
            stack.append((child, False))
            child = child.next
    return sizes


class Counted:
    """A parsed page standing in for ``parse_html``'s tree, with ``work`` counting as above."""

    def __init__(self, markup: str) -> None:
        self._tree = parse_html(markup)
        self._sizes = _sizes(self._tree.root)
        self.nodes = self._sizes[self._tree.root.mem_id]
        self._work = [0]

    @property
    def work(self) -> int:
        return self._work[0]

    @work.setter
    def work(self, value: int) -> None:
        self._work[0] = value

    def clone(self) -> Counted:
        """A copy of the tree (one walk of it), counting into this tree's work."""
        self.work += self.nodes
        copy = Counted.__new__(Counted)
        copy._tree = self._tree.clone()
        copy._sizes = _sizes(copy._tree.root)
        copy.nodes, copy._work = self.nodes, self._work
        return copy

    def step(self, node: Any) -> Any:
        if node is None:
            return None
        self.work += 1
        return _Node(node, self)

    def scan(self, node: Any) -> None:
        # the document node, above the root: everything
        self.work += self._sizes.get(node.mem_id, self.nodes)

    def wrap(self, node: Any) -> Any:
        return None if node is None else _Node(node, self)

    def css(self, selector: str) -> list[Any]:
        self.work += self.nodes
        return [_Node(node, self) for node in self._tree.css(selector)]

    def css_first(self, selector: str) -> Any:
        self.work += self.nodes
        return self.wrap(self._tree.css_first(selector))

    @property
    def root(self) -> Any:
        return self.wrap(self._tree.root)

    @property
    def body(self) -> Any:
        return self.wrap(self._tree.body)

    @property
    def head(self) -> Any:
        return self.wrap(self._tree.head)


class _Node:
    __slots__ = ("_count", "_node")

    def __init__(self, node: Any, count: Counted) -> None:
        self._node, self._count = node, count

    # tag, mem_id, attributes, text_content, decompose…: no walk
    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)

    @property
    def child(self) -> Any:
        return self._count.step(self._node.child)

    @property
    def next(self) -> Any:
        return self._count.step(self._node.next)

    @property
    def prev(self) -> Any:
        return self._count.step(self._node.prev)

    @property
    def parent(self) -> Any:
        return self._count.step(self._node.parent)

    @property
    def last_child(self) -> Any:
        return self._count.step(self._node.last_child)

    def iter(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for node in self._node.iter(*args, **kwargs):
            yield self._count.step(node)

    def traverse(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        self._count.scan(self._node)
        for node in self._node.traverse(*args, **kwargs):
            yield self._count.wrap(node)

    def text(self, *args: Any, **kwargs: Any) -> str:
        self._count.scan(self._node)
        return str(self._node.text(*args, **kwargs))

    def css(self, selector: str) -> list[Any]:
        self._count.scan(self._node)
        return [_Node(node, self._count) for node in self._node.css(selector)]

    def css_first(self, selector: str, *args: Any, **kwargs: Any) -> Any:
        self._count.scan(self._node)
        return self._count.wrap(self._node.css_first(selector, *args, **kwargs))


def work(markup: str, read: Callable[[Any], object]) -> tuple[int, int]:
    """The work ``read`` does on ``markup``'s tree, and how many nodes the tree has."""
    tree = Counted(markup)
    read(tree)
    return tree.work, tree.nodes
