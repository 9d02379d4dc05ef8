# netglean tasks. Every recipe runs inside the project's uv environment.

# validate catalog/ and regenerate netglean/generated/
gen:
    uv run netglean gen

# run the catalog's recorded examples on the docs' example site, keep their answers, regenerate (docs and all)
record:
    uv run python -m tests.support.recorded

# what CI checks besides the tests: netglean/generated/ current, lint, format, types
check:
    uv run netglean gen --check
    uv run ruff check .
    uv run ruff format --check .
    uv run mypy
    uv run lint-imports

# the whole test suite, in parallel, as CI runs it (the browser tests need Chromium)
test:
    uv run --frozen pytest -n auto

# the fast set: everything but the full-depth fuzzing (the slow set)
test-fast:
    uv run --frozen pytest -n auto -m "not slow"

# the slow set: the fuzzing at full depth
test-slow:
    uv run --frozen pytest -n auto -m slow

# benchmarks, side by side with minimal SDK servers; figures in bench/results/latest.json
bench:
    uv run python -m bench.run

# regenerate and serve the docs site on http://127.0.0.1:8000/
docs: gen
    uv run python -m http.server --bind 127.0.0.1 --directory netglean/generated/docs 8000

# MCP over streamable HTTP at /mcp and the REST API at /v1/tools/NAME on http://127.0.0.1:8080
serve:
    uv run netglean serve

# the main job: spawn the server, connect the official client, call tools
demo:
    uv run netglean demo
