"""Fetched bodies (netglean.read.document): their media type sniffed, their text decoded as a
browser decodes it — the BOM, the declared charset, <meta charset>, UTF-8, windows-1252 — with only
the Encoding Standard's labels."""

from __future__ import annotations

import pickle

import pytest

from netglean.read.document import Document, decode, sniff


@pytest.mark.parametrize(
    ("body", "declared", "text"),
    [
        # a BOM wins over the declared charset
        (b"\xef\xbb\xbfcaf\xc3\xa9", "windows-1252", "café"),
        (b"\xff\xfe" + "tide".encode("utf-16-le"), None, "tide"),
        (b"\xfe\xff" + "tide".encode("utf-16-be"), "utf-8", "tide"),
        ("café".encode("latin-1"), "ISO-8859-1", "café"),
        (b"\x93quoted\x94", "latin1", "\u201cquoted\u201d"),  # latin1 is windows-1252 on the web
        ("日本語".encode("shift_jis"), "Shift_JIS", "日本語"),
        ("日本語".encode(), "  UTF-8 ", "日本語"),
        ("Ελληνικά".encode("iso-8859-7"), "greek", "Ελληνικά"),
    ],
)
def test_the_bom_then_the_declared_charset(body: bytes, declared: str | None, text: str) -> None:
    assert decode(body, declared) == text


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("<meta charset='windows-1251'>\xef".encode("latin-1"), "<meta charset='windows-1251'>п"),
        (
            '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">\xc1'.encode(
                "latin-1"
            ),
            '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">а',
        ),
        # a page in UTF-16 has a BOM
        ("<META CHARSET=utf-16le>café".encode(), "<META CHARSET=utf-16le>café"),
        (
            "<meta charset=x-user-defined>\x93".encode("latin-1"),
            "<meta charset=x-user-defined>\u201c",
        ),
    ],
)
def test_then_the_pages_own_meta_charset(body: bytes, text: str) -> None:
    assert decode(body, None) == text


def test_a_meta_charset_past_the_first_4_kb_is_not_looked_for() -> None:
    body = b" " * 4096 + "<meta charset=koi8-r>\xc1".encode("latin-1")
    assert decode(body, None).endswith("\xc1")  # not UTF-8: windows-1252


@pytest.mark.parametrize(
    "label", ["rot13", "punycode", "idna", "base64", "zlib", "utf-7", "cp500", "undefined"]
)
def test_labels_that_are_no_web_encoding_are_ignored(label: str) -> None:
    """Python knows these labels; no browser does (punycode is quadratic, idna raises, utf-7 and
    EBCDIC turn markup into other markup). They are skipped, and sniffing goes on."""
    assert decode("café <b>".encode(), label) == "café <b>"
    assert decode(f'<meta charset="{label}">café'.encode(), None).endswith("café")


def test_without_any_charset_utf8_then_windows_1252() -> None:
    assert decode("naïve".encode(), None) == "naïve"
    assert decode("naïve “x”".encode("windows-1252"), None) == "naïve “x”"


def test_encodings_that_decode_to_the_replacement_character() -> None:
    """ISO-2022-KR, HZ and kin are the Encoding Standard's "replacement": one U+FFFD for the whole
    body."""
    assert decode(b"\x1b$)C any bytes", "iso-2022-kr") == "\ufffd"
    assert decode(b"", "hz-gb-2312") == ""


def test_broken_bytes_in_a_declared_charset_are_replaced_not_raised() -> None:
    assert decode(b"ok \xff\xfe\xfd", "utf-8") == "ok \ufffd\ufffd\ufffd"


@pytest.mark.parametrize(
    ("head", "media_type"),
    [
        (b"  \n<!DOCTYPE html><html>", "text/html"),
        (b"<HTML lang=en>", "text/html"),
        (b"<head><title>", "text/html"),
        (b"<body>", "text/html"),
        (b"%PDF-1.7\n", "application/pdf"),
        (b'<?xml version="1.0"?><urlset>', "application/xml"),
        (b"<rss version='2.0'>", "application/xml"),
        (b"<feed xmlns=", "application/xml"),
        (b' {"a": 1}', "application/json"),
        (b"[1, 2]", "application/json"),
        (b"plain words", None),
        (b"", None),
        (b" " * 600 + b"<html>", None),  # only the first 512 bytes are looked at
    ],
)
def test_sniffing_the_first_bytes(head: bytes, media_type: str | None) -> None:
    assert sniff(head) == media_type


def test_a_document_is_plain_data_that_crosses_to_a_reader_process() -> None:
    document = Document("https://a.test/", "café".encode("latin-1"), "iso-8859-1")
    again = pickle.loads(pickle.dumps(document))
    assert again == document and again.text() == "café" and again.media_type == "text/html"
