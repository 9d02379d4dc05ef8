"""Citation tools: numbered references for markdown links."""

from __future__ import annotations

from generated.models import GenerateCitationsInput, GenerateCitationsOutput, Reference
from netglean.citations import cite
from netglean.context import Context
from netglean.envelope import Outcome


async def generate_citations(args: GenerateCitationsInput, ctx: Context) -> Outcome:
    result = cite(
        args.markdown,
        heading=args.heading if args.heading is not None else "References",
        first_number=args.first_number or 1,
    )
    guidance = (
        f"Cited {len(result.references)} source(s); the reference list is at the end of payload.markdown."
        if result.references
        else "The text has no links, so it came back unchanged."
    )
    return Outcome(
        GenerateCitationsOutput(
            markdown=result.markdown,
            references=[Reference(number=r.number, url=r.url, title=r.title, text=r.text) for r in result.references],
            citation_count=result.citation_count,
        ),
        guidance=guidance,
    )
