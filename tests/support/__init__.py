"""What the tests stand on, in one place: sites served on 127.0.0.1, server processes, the lab tool
pack, the contract fuzzer's checks and strategies, a throwaway TLS authority and work counting.
Nothing here is a test; tests/conftest.py turns what needs a lifetime into fixtures."""
