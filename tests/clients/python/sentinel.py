"""redis-py's Sentinel support against a master and replica that three
Redis sentinels monitor as "mymaster": writes through master_for, the
master killed, and the same client object writing to the promoted replica.

    python3 sentinel.py MASTER_PID SENTINEL_PORT...

Prints one line per failed check and a summary; exits 1 if any failed.
"""
import os
import signal
import sys
import time

import redis
from redis.sentinel import Sentinel

failures = 0
checks = 0


def eq(actual, expected, what):
    global failures, checks
    checks += 1
    if actual != expected:
        failures += 1
        print(f"FAIL {what}: got {actual!r}, want {expected!r}")


def main():
    pid = int(sys.argv[1])
    sentinel = Sentinel([("127.0.0.1", int(p)) for p in sys.argv[2:]], socket_timeout=1)
    master = sentinel.master_for("mymaster", socket_timeout=1)
    replica = sentinel.slave_for("mymaster", socket_timeout=1)
    before = sentinel.discover_master("mymaster")
    eq(len(sentinel.discover_slaves("mymaster")), 1, "discover_slaves")
    eq(master.set("k", "v"), True, "SET through master_for")
    eq(master.execute_command("WAIT", 1, 5000), 1, "WAIT 1")
    eq(replica.get("k"), b"v", "GET through slave_for")

    os.kill(pid, signal.SIGKILL)
    deadline = time.time() + 60
    while True:
        try:
            master.set("after", "1")
            break
        except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError) as e:
            if time.time() > deadline:
                eq(str(e), "", "SET through master_for after the master was killed")
                break
            time.sleep(0.2)
    if failures == 0:
        after = sentinel.discover_master("mymaster")
        eq(after != before, True, f"a new master ({before} -> {after})")
        eq(master.get("k"), b"v", "GET of the acknowledged write on the new master")
        eq(master.get("after"), b"1", "GET on the new master")
    print(f"sentinel: {checks - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


main()
