#!/usr/bin/env python
"""The rate limiter's Lua script through redis-py's client against Inkwell's hot-path connection
(issue 20; docs/benchmarks.md, "Light authenticated endpoints", fourth pass).

    REDIS_URL=redis://127.0.0.1:6379/14 .venv/bin/python bench/redis_scripts.py [--calls 20000] [--rounds 5]

Every authenticated request runs ``COUNT_HIT_SCRIPT`` (``inkwell.api.cache``) once, and the
unread count one more script. Three ways of sending it alternate in each round, on the same Redis:

- ``client``: redis-py's ``Script`` object (``register_script``), as ``run_script`` sent it before;
- ``hot-path connection``: ``inkwell.api.cache.HotPathConnection``, as it sends it now;
- ``socket floor``: the same EVALSHA written on a plain socket and its reply read raw, which no
  client can beat: the round trip itself.

Prints the median microseconds a call of each over the rounds, and which Redis reply parser
redis-py uses (hiredis when installed).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import time
import uuid
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

import redis  # noqa: E402
from redis.utils import HIREDIS_AVAILABLE  # noqa: E402

from inkwell.api.cache import COUNT_HIT_SCRIPT, HotPathConnection  # noqa: E402  (imports no Django setting)


def per_call_microseconds(call, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20000, help="calls per way and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/14")
    args = parser.parse_args()

    client = redis.Redis.from_url(args.redis_url)
    keys = [f"bench-redis-scripts:{uuid.uuid4().hex}", f"bench-redis-scripts:{uuid.uuid4().hex}:absent"]
    script = client.register_script(COUNT_HIT_SCRIPT)
    sha = client.script_load(COUNT_HIT_SCRIPT)
    connection = HotPathConnection(client.connection_pool)

    pool_kwargs = client.connection_pool.connection_kwargs
    raw = socket.create_connection((pool_kwargs.get("host", "127.0.0.1"), pool_kwargs.get("port", 6379)))
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    raw.sendall(f"*2\r\n$6\r\nSELECT\r\n${len(str(pool_kwargs.get('db', 0)))}\r\n{pool_kwargs.get('db', 0)}\r\n".encode())
    raw.recv(64)
    parts = [b"EVALSHA", sha.encode(), b"2", *(key.encode() for key in keys), b"60"]
    packed = b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(part), part) for part in parts)

    def socket_floor():
        raw.sendall(packed)
        raw.recv(256)

    ways = {
        "client": lambda: script(keys=keys, args=[60]),
        "hot-path connection": lambda: connection.run_script(sha, COUNT_HIT_SCRIPT, keys, [60]),
        "socket floor": socket_floor,
    }
    for call in ways.values():  # warm-up
        per_call_microseconds(call, 500)
    samples: dict[str, list[float]] = {name: [] for name in ways}
    for round_number in range(1, args.rounds + 1):
        for name, call in ways.items():
            samples[name].append(per_call_microseconds(call, args.calls))
        print(f"round {round_number}: " + ", ".join(f"{name} {values[-1]:.1f} µs" for name, values in samples.items()), flush=True)
    client.delete(*keys)
    print(f"\nredis-py {redis.__version__}, reply parser: {'hiredis' if HIREDIS_AVAILABLE else 'pure Python'}")
    print("| way | µs a call (median of rounds) |\n|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {statistics.median(values):.1f} |")


if __name__ == "__main__":
    main()
