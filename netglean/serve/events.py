"""Resumable /mcp streams: the SSE events a client may ask to have replayed after a reconnect.

Bounded in memory: the most recent ``capacity`` events across all streams are kept,
so a client that drops its connection can resume with Last-Event-ID, and a server
that runs for months does not grow. Priming events (no message) are kept too: they
anchor a resume point for a stream that has not produced a message yet.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage


class BoundedEventStore(EventStore):
    def __init__(self, capacity: int = 10_000) -> None:
        self._capacity = capacity
        self._counter = itertools.count(1)
        self._events: OrderedDict[int, tuple[StreamId, JSONRPCMessage | None]] = OrderedDict()

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event = next(self._counter)
        self._events[event] = (stream_id, message)
        while len(self._events) > self._capacity:
            self._events.popitem(last=False)
        return str(event)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """Send the events of ``last_event_id``'s stream that came after it; None if it is unknown
        or gone."""
        try:
            last = int(last_event_id)
        except ValueError:
            return None
        found = self._events.get(last)
        if found is None:
            return None
        stream = found[0]
        for event, (stream_id, message) in list(self._events.items()):
            if event > last and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, str(event)))
        return stream
