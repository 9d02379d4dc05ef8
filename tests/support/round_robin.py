"""nginx (Debian's, unprivileged) as the round-robin reverse proxy the scaling guide shows, in front
of several `netglean serve` processes: the guide's own configuration, with the test's addresses in
place of its example ones, so the configuration a reader copies is the one tested.

Each answer says which server gave it (``X-Upstream``, added for the tests only): a test can then
show that consecutive requests of one client were answered by different processes.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.support.paths import PROJECT

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
GUIDE = PROJECT / "catalog" / "guide" / "65-scaling.md"
SECTION = "## Several servers behind one address"
EXAMPLE_SERVERS = ("127.0.0.1:8081", "127.0.0.1:8082")
EXAMPLE_LISTEN = "listen 8080;"
UPSTREAM_HEADER = "x-upstream"

MAIN = """\
{user}worker_processes 1;
pid {root}/nginx.pid;
error_log stderr;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {root}/tmp;
    proxy_temp_path {root}/tmp;
    add_header X-Upstream $upstream_addr always;
{site}
}}
"""


def guide_configuration() -> str:
    """The nginx configuration in the guide's section on several servers."""
    section = GUIDE.read_text().split(SECTION, 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```nginx\n(.*?)```", section, re.DOTALL)
    return str(block)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def round_robin(servers: Sequence[str], root: Path) -> Iterator[str]:
    """nginx on a free loopback port, spreading requests over ``servers`` (``host:port`` each) in
    turn, until the block ends; yields its base URL."""
    site = guide_configuration()
    assert all(example in site for example in EXAMPLE_SERVERS) and EXAMPLE_LISTEN in site, site
    assert len(servers) == len(EXAMPLE_SERVERS)
    for example, server in zip(EXAMPLE_SERVERS, servers, strict=True):
        site = site.replace(f"server {example};", f"server {server};")
    port = _free_port()
    site = site.replace(EXAMPLE_LISTEN, f"listen 127.0.0.1:{port};")
    (root / "tmp").mkdir(parents=True, exist_ok=True)
    # As root, nginx's workers would drop to nobody, who cannot read pytest's temporary folders.
    user = "user root;\n" if os.geteuid() == 0 else ""
    configuration = root / "nginx.conf"
    configuration.write_text(MAIN.format(user=user, root=root, site=site))
    process = subprocess.Popen(
        [NGINX, "-p", str(root), "-e", "stderr", "-c", str(configuration), "-g", "daemon off;"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # generous: a busy machine starts slowly
        while True:
            if process.poll() is not None:
                raise AssertionError(f"nginx did not start: {process.communicate()[1]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "nginx did not listen within 120 s"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)
