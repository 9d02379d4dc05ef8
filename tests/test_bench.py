"""The benchmarks still run against the tree as it is: a layout change that breaks one fails here, not on the day
someone needs its figures. Nothing is timed (timings belong in bench/); only that each finishes with its figures."""

from __future__ import annotations

from bench import generator


def test_the_generator_benchmark_generates_the_real_and_a_synthetic_catalog() -> None:
    figures = generator.run(repeats=1, synthetic_tools=3)
    assert figures["synthetic_tools"] == 3 and figures["repeats"] == 1
    assert figures["real_catalog_s"] > 0 and figures["synthetic_catalog_s"] > 0
