"""The evidence document: which headers are evidence, its one byte form and its hash."""

from __future__ import annotations

from netglean.read.readability.evidence import canonical, evidence_hash, evidence_headers


def test_headers_that_name_the_request_not_the_page_are_left_out() -> None:
    given = {
        "Date": "Tue, 01 Dec 2026 23:54:02 GMT",
        "Set-Cookie": "session=1",
        "X-Request-Id": "1",
        "X-Fastly-Request-Id": "2",
        "Fly-Request-Id": "3",
        "CF-Cache-Status": "HIT",
        "X-Vercel-Cache": "MISS",
        "X-Amz-Cf-Id": "4",
        "Via": "1.1 varnish",
        "Server-Timing": "edge;dur=3",
        "ETag": '"v1"',
        "Vary": "Accept",
        "Content-Type": "text/html",
        "Link": '</p.md>; rel="alternate"',
    }
    assert evidence_headers(given) == {
        "content-type": "text/html",
        "etag": '"v1"',
        "link": '</p.md>; rel="alternate"',
        "vary": "Accept",
    }


def test_the_hash_is_of_one_byte_form_whatever_the_key_order() -> None:
    one, other = {"b": [1, "é"], "a": {"y": 2, "x": 1}}, {"a": {"x": 1, "y": 2}, "b": [1, "é"]}
    assert canonical(one) == canonical(other) == '{"a":{"x":1,"y":2},"b":[1,"é"]}'.encode()
    assert evidence_hash(one) == evidence_hash(other) and evidence_hash(one).startswith("sha256:")
    assert evidence_hash({**one, "c": None}) != evidence_hash(one)
