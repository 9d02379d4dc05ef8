"""install_snippet's engine: checked options rendered through one framework's jinja2 templates (no
network).

See netglean.snippets.render for the markdown source model every template follows.
"""

from netglean.snippets.inputs import FRAMEWORKS, Options, Page, options
from netglean.snippets.render import Check, Snippet, SnippetFile, llms_txt, render

__all__ = [
    "FRAMEWORKS",
    "Check",
    "Options",
    "Page",
    "Snippet",
    "SnippetFile",
    "llms_txt",
    "options",
    "render",
]
