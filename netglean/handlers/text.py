"""Citation tools: numbered references for markdown links."""

from __future__ import annotations

from functools import partial

import anyio

from netglean.calls.context import Context
from netglean.core.envelope import Outcome
from netglean.generated.models import GenerateCitationsInput, GenerateCitationsOutput, Reference
from netglean.text.citations import cite


async def generate_citations(args: GenerateCitationsInput, ctx: Context) -> Outcome:
    # Up to 2 MB of markdown is CPU work: a worker thread keeps the server answering, and the
    # call's deadline can end the wait (the scan is linear, so the abandoned thread finishes soon).
    work = partial(cite, args.markdown, heading=args.heading, first_number=args.first_number)
    result = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    guidance = (
        f"Cited {len(result.references)} source(s); the reference list is at the end of "
        "payload.markdown."
        if result.references
        else "The text has no links, so it came back unchanged."
    )
    return Outcome(
        GenerateCitationsOutput(
            markdown=result.markdown,
            references=[
                Reference(number=r.number, url=r.url, title=r.title, text=r.text)
                for r in result.references
            ],
            citation_count=result.citation_count,
        ),
        guidance=guidance,
    )
