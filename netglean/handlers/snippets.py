"""Installs that make a site readable to agents: rendered from templates, no network."""

from __future__ import annotations

from netglean.calls.context import Context
from netglean.core.envelope import Outcome, say
from netglean.generated.models import (
    InstallSnippetInput,
    InstallSnippetOutput,
    SnippetCheck,
    SnippetFile,
    SnippetTwin,
)
from netglean.snippets import options, render
from netglean.snippets.inputs import markdown_path


async def install_snippet(args: InstallSnippetInput, ctx: Context) -> Outcome:
    given = args.model_dump(exclude_none=True, exclude={"framework"})
    checked = options(args.framework, given)
    snippet = render(args.framework, checked)
    twins = [
        SnippetTwin(path=page.path, file=url.removeprefix("/"), markdown_url=url)
        for page in checked.pages
        for url in (markdown_path(page.path),)
    ]
    return Outcome(
        InstallSnippetOutput(
            framework=snippet.framework,
            files=[
                SnippetFile(path=f.path, language=f.language, content=f.content)
                for f in snippet.files
            ],
            steps=list(snippet.steps),
            verify=[SnippetCheck(command=c.command, expect=c.expect) for c in snippet.verify],
            markdown_dir=checked.markdown_dir,
            twins=twins,
            llms_txt=snippet.llms_txt,
        ),
        next_step="scan_url",
        guidance=say(
            "Add the {files} file(s) as the steps say, write a markdown twin for each page "
            "(payload.twins), then run the payload.verify commands against the deployed site; "
            "scan_url scores it again.",
            files=len(snippet.files),
        ),
    )
