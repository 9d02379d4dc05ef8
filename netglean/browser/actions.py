"""What interact does to a page, one action at a time: navigate, click, type, press, select, hover,
scroll, wait_for, screenshot, scrape and (only where the operator allows it) evaluate.

Each action is bounded (its own timeout, at most ACTION_TIMEOUT; a wait at most WAIT_CAP; a
screenshot at most SHOT_HEIGHT pixels tall and SHOT_BYTES bytes) and reports how it went in
netglean's own words: a failure names the action and the selector the caller gave, never what the
page says (Playwright's messages quote the page's markup, which would carry a page's text outside
the untrusted frame). A failing action ends the list. Every request the actions cause goes through
the page's router and the policy proxy like any other (netglean.browser.pool), and a navigation the
policy refuses fails its action with the policy's own error.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio

from netglean.browser.pool import MAX_HTML, SETTLE, VIEWPORT, content, height, in_flight, quiet
from netglean.core.errors import ActionFailed, NotAvailable, ToolError
from netglean.core.validation import quote_value

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool

ACTION_TIMEOUT = 30.0
"""The most seconds one action may take (its own timeout_ms lowers it)."""
DEFAULT_TIMEOUT = 10.0
WAIT_CAP = 30.0
"""The most seconds a wait_for may wait."""
SHOT_HEIGHT = 4000
"""The most pixels of page height a full-page screenshot takes (a page can be endless)."""
SHOT_BYTES = 2 * 1024 * 1024
"""The largest screenshot returned: past it, the PNG is taken again as a JPEG, and past that too it
is refused."""
MAX_SHOTS = 5
SCROLL_REPEAT = 20
GRACE = 1.0
"""Seconds past an action's own timeout it may take to give up (a page that never yields is cut off
then)."""
EVALUATED_CHARS = 20_000
"""The most characters of an evaluate result (as JSON) kept."""


@dataclass(frozen=True, slots=True)
class Action:
    """One action as the caller gave it (the schema checked the fields; which ones an action needs
    is checked here, when it runs)."""

    action: str
    selector: str | None = None
    text: str | None = None
    url: str | None = None
    key: str | None = None
    values: tuple[str, ...] = ()
    to: str | None = None
    pixels: int | None = None
    repeat: int = 1
    network_idle: bool = False
    time_ms: int | None = None
    full_page: bool = False
    script: str | None = None
    timeout_ms: int | None = None

    @property
    def timeout(self) -> float:
        asked = self.timeout_ms / 1000 if self.timeout_ms is not None else DEFAULT_TIMEOUT
        return min(asked, ACTION_TIMEOUT)


@dataclass(frozen=True, slots=True)
class Shot:
    """A screenshot: its bytes, format and size."""

    action: int
    data: bytes
    mime_type: Literal["image/png", "image/jpeg"]
    width: int
    height: int


@dataclass(slots=True)
class Step:
    """How one action went."""

    index: int
    action: str
    ok: bool
    ms: int
    url: str = ""
    """The page's URL after the action."""
    error: ToolError | None = None
    html: str | None = None
    """The page's HTML at that point (scrape, cut at MAX_HTML), read into markdown by the caller."""
    value: Any = None
    """What evaluate returned (as JSON, bounded)."""
    truncated: bool = False


@dataclass(slots=True)
class Performed:
    steps: list[Step] = field(default_factory=list)
    shots: list[Shot] = field(default_factory=list)
    final_url: str = ""
    final_html: str = ""
    unresponsive: bool = False
    """The page stopped answering (a script that never yields): its final HTML is not asked for."""


async def perform(
    browser: BrowserPool,
    page: Any,
    url: str,
    actions: Sequence[Action],
    *,
    timeout: float,
    refused: list[ToolError],
    allow_evaluate: bool,
    cap: float = ACTION_TIMEOUT,
) -> Performed:
    """``page`` loaded at ``url``, then each action in turn until one fails, none waiting more than
    ``cap`` seconds (the operator's); the page's HTML at the end."""
    pending = in_flight(page)
    await browser.load(page, url, timeout=timeout, refused=refused)
    await quiet(pending, 3.0)
    done = Performed()
    for index, asked in enumerate(actions):
        most = round(min(asked.timeout, cap) * 1000)
        waits = None if asked.time_ms is None else min(asked.time_ms, most)
        action = dataclasses.replace(asked, timeout_ms=max(1, most), time_ms=waits)
        started = time.monotonic()
        step = Step(index, action.action, ok=True, ms=0)
        seen = len(refused)
        try:
            # nothing a page does holds an action past its time
            with anyio.fail_after(action.timeout + GRACE):
                await _act(
                    browser,
                    page,
                    action,
                    step,
                    done=done,
                    pending=pending,
                    refused=refused,
                    allowed=allow_evaluate,
                )
            if len(refused) > seen:  # a navigation the action caused was refused by the policy
                raise refused[-1]
        except ToolError as error:
            step.ok, step.error = False, error
        except Exception as exc:
            step.ok, step.error = False, _action_error(index, action, exc)
        step.ms = round((time.monotonic() - started) * 1000)
        step.url = page.url
        done.steps.append(step)
        if not step.ok:
            break
    done.final_url = page.url
    done.final_html = "" if done.unresponsive else ((await content(page)) or "")[:MAX_HTML]
    return done


async def _act(
    browser: BrowserPool,
    page: Any,
    action: Action,
    step: Step,
    *,
    done: Performed,
    pending: set[Any],
    refused: list[ToolError],
    allowed: bool,
) -> None:
    kind, ms = action.action, action.timeout * 1000
    deadline = anyio.current_time() + action.timeout

    async def settle() -> None:
        """Let the page's network go quiet (what a click or a key sets off), within the action's own
        time."""
        await quiet(pending, max(0.0, min(SETTLE, deadline - anyio.current_time())))

    if kind == "navigate":
        await browser.load(page, _needs(action, "url"), timeout=action.timeout, refused=refused)
        await settle()
    elif kind == "click":
        await page.locator(_needs(action, "selector")).first.click(timeout=ms)
        await settle()
    elif kind == "type":
        await page.locator(_needs(action, "selector")).first.fill(
            _needs(action, "text"), timeout=ms
        )
    elif kind == "press":
        key = _needs(action, "key")
        if action.selector:
            await page.locator(action.selector).first.press(key, timeout=ms)
        else:
            await page.keyboard.press(key)
        await settle()
    elif kind == "select":
        if not action.values:
            raise _missing(action, "values")
        await page.locator(_needs(action, "selector")).first.select_option(
            list(action.values), timeout=ms
        )
    elif kind == "hover":
        await page.locator(_needs(action, "selector")).first.hover(timeout=ms)
    elif kind == "scroll":
        await _scroll(page, action, settle)
    elif kind == "wait_for":
        await _wait(page, action, pending)
    elif kind == "screenshot":
        if len(done.shots) >= MAX_SHOTS:
            raise ActionFailed(
                f"action {step.index} (screenshot): at most {MAX_SHOTS} screenshots a call"
            )
        done.shots.append(await _screenshot(page, action, step.index))
    elif kind == "scrape":
        html = await content(page, within=max(0.0, deadline - anyio.current_time()))
        if html is None:
            done.unresponsive = True
            raise ActionFailed(
                f"action {step.index} (scrape): the page did not answer in {action.timeout:g} s "
                "(its scripts hold it)",
                detail={"action": step.index},
            )
        step.html = html[:MAX_HTML]
    elif kind == "evaluate":
        if not allowed:
            raise NotAvailable(
                f"action {step.index} (evaluate): running scripts is off on this server; only "
                "its operator can turn it on (--browser-evaluate)",
                detail={"action": step.index},
            )
        step.value, step.truncated = _truncate_result(
            await _evaluate(page, _needs(action, "script"))
        )


async def _scroll(page: Any, action: Action, settle: Callable[[], Awaitable[None]]) -> None:
    """Scroll the page (or the element ``selector`` finds into view): to the bottom or top, or by
    ``pixels``; ``repeat`` times, letting the page's network go quiet in between (what loads an
    infinite list's next items)."""
    if action.selector:
        await page.locator(action.selector).first.scroll_into_view_if_needed(
            timeout=action.timeout * 1000
        )
        return
    for _ in range(max(1, min(action.repeat, SCROLL_REPEAT))):
        if action.to == "top":
            await page.evaluate("window.scrollTo(0, 0)")
        elif action.pixels is not None:
            await page.mouse.wheel(0, action.pixels)
        else:
            await page.evaluate("window.scrollTo(0, 1e9)")
        await settle()


async def _wait(page: Any, action: Action, pending: set[Any]) -> None:
    cap = min(
        action.timeout_ms / 1000 if action.timeout_ms is not None else DEFAULT_TIMEOUT, WAIT_CAP
    )
    if action.selector:
        await page.locator(action.selector).first.wait_for(state="visible", timeout=cap * 1000)
    elif action.text:
        await page.get_by_text(action.text).first.wait_for(state="visible", timeout=cap * 1000)
    elif action.network_idle:
        await quiet(pending, cap)
    elif action.time_ms is not None:
        await page.wait_for_timeout(min(action.time_ms / 1000, WAIT_CAP) * 1000)
    else:
        raise ActionFailed(
            "action wait_for needs one of selector, text, network_idle or time_ms",
            detail={"argument": "wait_for"},
        )


async def _screenshot(page: Any, action: Action, index: int) -> Shot:
    """The viewport, or the page from its top down to SHOT_HEIGHT pixels (``full_page``), or one
    element (its first SHOT_HEIGHT pixels); a PNG, taken again as a JPEG of the same area past
    SHOT_BYTES."""
    clip: dict[str, float] | None = None
    whole = False
    if action.selector:
        element = page.locator(action.selector).first
        await element.scroll_into_view_if_needed(timeout=action.timeout * 1000)
        box = await element.bounding_box(timeout=action.timeout * 1000)
        if box is None or box["width"] < 1 or box["height"] < 1:
            raise ActionFailed(
                f"action {index} (screenshot): the element {quote_value(action.selector)} is not "
                "shown on the page",
                detail={"action": index},
            )
        offset = await page.evaluate("[window.scrollX, window.scrollY]")
        left, top = (float(offset[0]), float(offset[1])) if _numbers(offset) else (0.0, 0.0)
        clip = {
            "x": box["x"] + left,
            "y": box["y"] + top,
            "width": min(box["width"], VIEWPORT["width"] * 4),
        }
        clip["height"] = min(box["height"], SHOT_HEIGHT)
        whole = True  # the clip is in the page's coordinates
    elif action.full_page:
        tall = await height(page) or VIEWPORT["height"]
        clip = {
            "x": 0,
            "y": 0,
            "width": VIEWPORT["width"],
            "height": max(1, min(tall, SHOT_HEIGHT)),
        }
        whole = True
    data = await page.screenshot(type="png", full_page=whole, clip=clip)
    mime: Literal["image/png", "image/jpeg"] = "image/png"
    if len(data) > SHOT_BYTES:
        data, mime = (
            await page.screenshot(type="jpeg", quality=60, full_page=whole, clip=clip),
            "image/jpeg",
        )
    if len(data) > SHOT_BYTES:
        raise ActionFailed(
            f"action {index} (screenshot): the image is over {SHOT_BYTES} bytes even as a JPEG; "
            "take the viewport or one element instead",
            detail={"action": index},
        )
    width = int(clip["width"]) if clip is not None else VIEWPORT["width"]
    shown = int(clip["height"]) if clip is not None else VIEWPORT["height"]
    return Shot(index, data, mime, width, shown)


def _numbers(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(n, int | float) for n in value)
    )


async def _evaluate(page: Any, script: str) -> Any:
    """``script`` run in the page: an expression (a function is called), or a function body with
    ``return``."""
    try:
        return await page.evaluate(script)
    except Exception as exc:
        if "Illegal return statement" not in str(exc):
            raise
    return await page.evaluate(f"async () => {{\n{script}\n}}")


def _truncate_result(value: Any) -> tuple[Any, bool]:
    """An evaluate result as JSON can hold it, cut to EVALUATED_CHARS characters of JSON (then as a
    string)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= EVALUATED_CHARS:
        return json.loads(text), False
    return text[:EVALUATED_CHARS], True


def _needs(action: Action, name: str) -> str:
    value = getattr(action, name)
    if value is None:
        raise _missing(action, name)
    return str(value)


def _missing(action: Action, name: str) -> ActionFailed:
    return ActionFailed(f"action {action.action} needs {name}", detail={"argument": name})


def _action_error(index: int, action: Action, exc: Exception) -> ActionFailed:
    """A Playwright failure in netglean's words: which action, on which of the caller's selectors,
    and whether it timed out; Playwright's own message is never passed on (it quotes the page)."""
    what = f"action {index} ({action.action})"
    target = f" on selector {quote_value(action.selector)}" if action.selector else ""
    said = str(exc).splitlines()[0] if str(exc) else ""  # read for its kind, never passed on
    if "Timeout" in type(exc).__name__:
        message = (
            f"{what} timed out after {action.timeout:g} s{target}: no element was ready in time"
        )
    elif "Unknown key" in said:
        message = (
            f"{what}: {quote_value(action.key)} is not a key the browser knows (Enter, Tab, "
            "ArrowDown, Control+A …)"
        )
    elif re.search(r"is not an? <|Element is not an?\b|Not a checkbox|not a <select>", said):
        message = f"{what} cannot act{target}: the element found is not one that takes this action"
    elif re.search(
        r"pars(e|ing)|Unexpected token|not a valid selector|Unknown engine", said, re.IGNORECASE
    ):
        message = f"{what}: {quote_value(action.selector)} is not a selector the browser can read"
    elif action.action == "evaluate":
        message = f"{what}: the script threw an error or returned something that is not JSON"
    else:
        message = f"{what} failed{target}"
    return ActionFailed(message, detail={"action": index})
