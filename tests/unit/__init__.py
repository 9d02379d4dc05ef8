"""Unit tests: one module of netglean at a time, in process, no server, no socket.

The tree mirrors the package's (tests/unit/read/test_extract.py is netglean/read/extract.py's), so a
module's tests are found by its path and a module without any shows. Tests of what the modules make
together — a tool through MCP, stdio or HTTP, the fetch layer against a 127.0.0.1 site, the contract
fuzzer, the docs, the installed wheel — are the end-to-end ones in tests/, named for the promise
they check."""
