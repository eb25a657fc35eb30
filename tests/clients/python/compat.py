"""Drives a running server with redis-py the way applications use it, and
checks every reply against what Redis 8 returns.

    python3 compat.py PORT [PASSWORD_PORT PASSWORD]

PASSWORD_PORT, when given, is a second server started with requirepass
PASSWORD. Prints one line per failed check and exits 1 if any failed.
"""
import sys
import threading
import time

import redis

failures = 0
checks = 0


def eq(actual, expected, what):
    global failures, checks
    checks += 1
    if actual != expected:
        failures += 1
        print(f"FAIL {what}: got {actual!r}, want {expected!r}")


def raises(fn, exc, text, what):
    """fn() must raise exc whose message starts with text."""
    global failures, checks
    checks += 1
    try:
        got = fn()
    except exc as e:
        if not str(e).startswith(text):
            failures += 1
            print(f"FAIL {what}: error {str(e)!r} does not start with {text!r}")
        return
    except Exception as e:  # noqa: BLE001 - any other error is a failure
        failures += 1
        print(f"FAIL {what}: raised {type(e).__name__}: {e}, want {exc.__name__}")
        return
    failures += 1
    print(f"FAIL {what}: got {got!r}, want {exc.__name__}")


def scenario(fn):
    global failures
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - report and go on
        failures += 1
        import traceback

        print(f"FAIL {fn.__name__}: raised {type(e).__name__}: {e}")
        traceback.print_exc(file=sys.stdout)
    return fn


port = int(sys.argv[1])
auth_port = int(sys.argv[2]) if len(sys.argv) > 3 else 0
password = sys.argv[3] if len(sys.argv) > 3 else None

r = redis.Redis(port=port, decode_responses=True)
rb = redis.Redis(port=port)  # bytes replies


@scenario
def strings():
    eq(r.ping(), True, "PING")
    eq(r.set("py:s", "v1", ex=100), True, "SET EX")
    eq(r.set("py:s", "v2", nx=True), None, "SET NX on existing")
    eq(r.set("py:s", "v2", get=True), "v1", "SET GET")
    eq(r.get("py:s"), "v2", "GET")
    eq(r.get("py:missing"), None, "GET missing")
    eq(r.mset({"py:a": 1, "py:b": "2"}), True, "MSET")
    eq(r.mget("py:a", "py:missing", "py:b"), ["1", None, "2"], "MGET")
    eq(r.incrby("py:a", 41), 42, "INCRBY")
    eq(r.incrbyfloat("py:a", 0.5), 42.5, "INCRBYFLOAT")
    eq(r.getex("py:a", px=100000), "42.5", "GETEX PX")
    eq(0 < r.pttl("py:a") <= 100000, True, "PTTL after GETEX")
    eq(r.setnx("py:a", "x"), False, "SETNX existing")
    eq(r.append("py:b", "xyz"), 4, "APPEND")
    eq(r.strlen("py:b"), 4, "STRLEN")
    eq(r.getrange("py:b", 1, -1), "xyz", "GETRANGE")
    eq(r.getdel("py:b"), "2xyz", "GETDEL")
    eq(r.exists("py:a", "py:b"), 1, "EXISTS")
    raises(lambda: r.incr("py:s"), redis.ResponseError, "value is not an integer or out of range", "INCR on a non-integer")
    blob = bytes(range(256))
    eq(rb.set("py:bin", blob), True, "SET binary")
    eq(rb.get("py:bin"), blob, "GET binary")


@scenario
def keys_and_expiry():
    r.set("py:e", "x")
    eq(r.expire("py:e", 100), True, "EXPIRE")
    eq(r.ttl("py:e"), 100, "TTL")
    eq(r.persist("py:e"), True, "PERSIST")
    eq(r.ttl("py:e"), -1, "TTL after PERSIST")
    eq(r.pexpire("py:e", 20), True, "PEXPIRE")
    time.sleep(0.06)
    eq(r.exists("py:e"), 0, "key gone after PEXPIRE")
    r.set("py:r1", "v")
    eq(r.rename("py:r1", "py:r2"), True, "RENAME")
    eq(r.renamenx("py:r2", "py:a"), False, "RENAMENX onto an existing key")
    eq(r.copy("py:r2", "py:r3"), True, "COPY")
    eq(r.type("py:r3"), "string", "TYPE")
    eq(r.object("encoding", "py:r3"), "embstr", "OBJECT ENCODING")
    eq(r.delete("py:r2", "py:r3", "py:nope"), 2, "DEL")
    eq(r.unlink("py:nope"), 0, "UNLINK missing")
    raises(lambda: r.rename("py:nope", "py:x"), redis.ResponseError, "no such key", "RENAME missing")


@scenario
def hashes():
    eq(r.hset("py:h", mapping={"f1": "a", "f2": 2}), 2, "HSET mapping")
    eq(r.hset("py:h", "f3", "c"), 1, "HSET field")
    eq(r.hgetall("py:h"), {"f1": "a", "f2": "2", "f3": "c"}, "HGETALL")
    eq(r.hgetall("py:missing"), {}, "HGETALL missing")
    eq(r.hincrby("py:h", "f2", 40), 42, "HINCRBY")
    eq(r.hincrbyfloat("py:h", "f2", 0.25), 42.25, "HINCRBYFLOAT")
    eq(r.hmget("py:h", ["f1", "nope"]), ["a", None], "HMGET")
    eq(r.hexists("py:h", "f1"), True, "HEXISTS")
    eq(r.hdel("py:h", "f1", "nope"), 1, "HDEL")
    eq(sorted(r.hkeys("py:h")), ["f2", "f3"], "HKEYS")
    eq(r.hlen("py:h"), 2, "HLEN")
    eq(r.hsetnx("py:h", "f3", "z"), False, "HSETNX existing")
    eq(r.hstrlen("py:h", "f2"), 5, "HSTRLEN")
    raises(lambda: r.lpush("py:h", "x"), redis.ResponseError,
           "WRONGTYPE Operation against a key holding the wrong kind of value", "LPUSH on a hash")


@scenario
def lists():
    eq(r.rpush("py:l", "a", "b", "c"), 3, "RPUSH")
    eq(r.lpush("py:l", "z"), 4, "LPUSH")
    eq(r.lrange("py:l", 0, -1), ["z", "a", "b", "c"], "LRANGE")
    eq(r.lpop("py:l", 2), ["z", "a"], "LPOP count")
    eq(r.linsert("py:l", "BEFORE", "c", "bb"), 3, "LINSERT")
    eq(r.lindex("py:l", 1), "bb", "LINDEX")
    eq(r.lset("py:l", 0, "B"), True, "LSET")
    eq(r.lpos("py:l", "c"), 2, "LPOS")
    eq(r.lrem("py:l", 0, "bb"), 1, "LREM")
    eq(r.ltrim("py:l", 0, 0), True, "LTRIM")
    eq(r.rpoplpush("py:l", "py:l2"), "B", "RPOPLPUSH")
    eq(r.blpop(["py:l2"], timeout=1), ("py:l2", "B"), "BLPOP ready")
    eq(r.brpop(["py:empty"], timeout=0.05), None, "BRPOP timeout")
    other = redis.Redis(port=port, decode_responses=True)
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("v", other.blpop(["py:q"], timeout=5)))
    t.start()
    time.sleep(0.05)
    r.rpush("py:q", "job1")
    t.join(5)
    eq(result.get("v"), ("py:q", "job1"), "BLPOP woken by another client's RPUSH")
    other.close()


@scenario
def sets():
    eq(r.sadd("py:s1", "a", "b", "c"), 3, "SADD")
    eq(r.sadd("py:s2", "b", "c", "d"), 3, "SADD second")
    eq(r.sismember("py:s1", "a"), True, "SISMEMBER")
    eq(r.smismember("py:s1", ["a", "x"]), [1, 0], "SMISMEMBER")
    eq(r.smembers("py:s1"), {"a", "b", "c"}, "SMEMBERS")
    eq(r.sinter("py:s1", "py:s2"), {"b", "c"}, "SINTER")
    eq(r.sunion("py:s1", "py:s2"), {"a", "b", "c", "d"}, "SUNION")
    eq(r.sdiff("py:s1", "py:s2"), {"a"}, "SDIFF")
    eq(r.sinterstore("py:s3", ["py:s1", "py:s2"]), 2, "SINTERSTORE")
    eq(r.smove("py:s1", "py:s3", "a"), True, "SMOVE")
    eq(r.scard("py:s3"), 3, "SCARD")
    eq(len(r.srandmember("py:s3", -5)), 5, "SRANDMEMBER negative count")


@scenario
def sorted_sets():
    eq(r.zadd("py:z", {"one": 1, "two": 2.5, "neg": -1}), 3, "ZADD mapping")
    eq(r.zadd("py:z", {"one": 0.5}, xx=True, ch=True), 1, "ZADD XX CH")
    eq(r.zscore("py:z", "two"), 2.5, "ZSCORE")
    eq(r.zscore("py:z", "nope"), None, "ZSCORE missing")
    eq(r.zincrby("py:z", 1, "one"), 1.5, "ZINCRBY")
    eq(r.zrange("py:z", 0, -1, withscores=True), [("neg", -1.0), ("one", 1.5), ("two", 2.5)], "ZRANGE WITHSCORES")
    eq(r.zrangebyscore("py:z", "(1", "+inf"), ["one", "two"], "ZRANGEBYSCORE exclusive")
    eq(r.zrevrange("py:z", 0, 0), ["two"], "ZREVRANGE")
    eq(r.zrank("py:z", "two"), 2, "ZRANK")
    eq(r.zcount("py:z", "-inf", 1.5), 2, "ZCOUNT")
    eq(r.zpopmin("py:z"), [("neg", -1.0)], "ZPOPMIN")
    eq(r.zmscore("py:z", ["one", "x"]), [1.5, None], "ZMSCORE")
    eq(r.zadd("py:z", {"top": float("inf")}), 1, "ZADD inf")
    eq(r.zscore("py:z", "top"), float("inf"), "ZSCORE inf")
    eq(r.zunionstore("py:zu", {"py:z": 2}), 3, "ZUNIONSTORE WEIGHTS")
    eq(r.zrange("py:zu", 0, -1, withscores=True), [("one", 3.0), ("two", 5.0), ("top", float("inf"))], "ZRANGE of union")
    eq(r.bzpopmax(["py:z"], timeout=1), ("py:z", "top", float("inf")), "BZPOPMAX")
    raises(lambda: r.zadd("py:z", {"bad": float("nan")}), Exception, "", "ZADD NaN refused")


@scenario
def bitmaps_and_hyperloglog():
    eq(r.setbit("py:bits", 7, 1), 0, "SETBIT")
    eq(r.getbit("py:bits", 7), 1, "GETBIT")
    eq(r.bitcount("py:bits"), 1, "BITCOUNT")
    eq(r.bitpos("py:bits", 1), 7, "BITPOS")
    eq(r.bitfield("py:bf").set("u8", 0, 250).incrby("u8", 0, 10).execute(), [0, 4], "BITFIELD wraps")
    eq(r.bitfield("py:bf", default_overflow="SAT").incrby("u8", 0, 300).execute(), [255], "BITFIELD OVERFLOW SAT")
    eq(r.pfadd("py:hll", "a", "b", "c", "a"), 1, "PFADD")
    eq(r.pfcount("py:hll"), 3, "PFCOUNT")


@scenario
def transactions():
    with r.pipeline() as p:
        eq(p.set("py:t", 1).incr("py:t").get("py:t").execute(), [True, 2, "2"], "MULTI/EXEC pipeline")
    with r.pipeline(transaction=False) as p:
        eq(p.incr("py:t").incr("py:nope:t").execute(), [3, 1], "plain pipeline")

    def aborted():
        with r.pipeline() as p:
            p.watch("py:t")
            r.set("py:t", "changed")  # another connection from the pool
            p.multi()
            p.set("py:t", "mine")
            return p.execute()

    raises(aborted, redis.WatchError, "", "EXEC after a watched key changed")
    eq(r.get("py:t"), "changed", "value after aborted EXEC")

    def incr_optimistic(pipe):
        v = int(pipe.get("py:counter") or 0)
        pipe.multi()
        pipe.set("py:counter", v + 1)

    eq(r.transaction(incr_optimistic, "py:counter"), [True], "transaction() helper")
    with r.pipeline() as p:
        p.set("py:m", "x").lpush("py:m", "y")
        raises(p.execute, redis.ResponseError, "Command # 2 (LPUSH py:m y) of pipeline caused error: WRONGTYPE",
               "run-time error inside EXEC")
    eq(r.get("py:m"), "x", "command before the failing one applied")


@scenario
def scripting():
    # register_script sends EVALSHA and falls back to EVAL on NOSCRIPT.
    r.script_flush()
    incr_by = r.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")
    eq(incr_by(keys=["py:sc"], args=[5]), 5, "Script object (EVAL after NOSCRIPT)")
    eq(incr_by(keys=["py:sc"], args=[2]), 7, "Script object (EVALSHA)")
    eq(r.script_exists(incr_by.sha), [True], "SCRIPT EXISTS")
    eq(r.eval("return {KEYS[1], ARGV[1], 3}", 1, "k", "a"), ["k", "a", 3], "EVAL table reply")
    raises(lambda: r.eval("return redis.call('lpush', KEYS[1], 'x')", 1, "py:sc"), redis.ResponseError,
           "WRONGTYPE", "error from redis.call")
    raises(lambda: r.evalsha("f" * 40, 0), redis.exceptions.NoScriptError, "No matching script", "EVALSHA unknown")
    eq(r.eval_ro("return redis.call('get', KEYS[1])", 1, "py:sc"), "7", "EVAL_RO")


@scenario
def pubsub():
    ps = r.pubsub()
    ps.subscribe("py:news")
    ps.psubscribe("py:ev:*")
    eq(ps.get_message(timeout=1)["type"], "subscribe", "subscribe confirmation")
    eq(ps.get_message(timeout=1)["type"], "psubscribe", "psubscribe confirmation")
    eq(r.pubsub_numsub("py:news"), [("py:news", 1)], "PUBSUB NUMSUB")
    eq(r.pubsub_numpat(), 1, "PUBSUB NUMPAT")
    eq("py:news" in r.pubsub_channels("py:*"), True, "PUBSUB CHANNELS")
    eq(r.publish("py:news", "hello"), 1, "PUBLISH")
    eq(r.publish("py:ev:1", "e1"), 1, "PUBLISH to a pattern")
    m = ps.get_message(timeout=1)
    eq((m["type"], m["channel"], m["data"]), ("message", "py:news", "hello"), "message")
    m = ps.get_message(timeout=1)
    eq((m["type"], m["pattern"], m["channel"], m["data"]), ("pmessage", "py:ev:*", "py:ev:1", "e1"), "pmessage")
    ps.unsubscribe()
    ps.punsubscribe()
    eq(ps.get_message(timeout=1)["type"], "unsubscribe", "unsubscribe confirmation")
    ps.close()
    eq(r.publish("py:news", "nobody"), 0, "PUBLISH after UNSUBSCRIBE")


@scenario
def scans():
    want = {f"py:scan:{i}" for i in range(250)}
    r.mset({k: "v" for k in want})
    eq(set(r.scan_iter(match="py:scan:*", count=20)), want, "scan_iter")
    eq(set(r.scan_iter(match="py:*", _type="ZSET")), {"py:z", "py:zu"}, "scan_iter _type")
    r.hset("py:bigh", mapping={f"f{i}": i for i in range(300)})
    eq(len(dict(r.hscan_iter("py:bigh", count=50))), 300, "hscan_iter")
    r.sadd("py:bigs", *range(300))
    eq(len(set(r.sscan_iter("py:bigs", count=50))), 300, "sscan_iter")
    r.zadd("py:bigz", {f"m{i}": i for i in range(300)})
    eq(len(dict(r.zscan_iter("py:bigz", count=50))), 300, "zscan_iter")
    eq(sorted(r.keys("py:scan:1?"))[:2], ["py:scan:10", "py:scan:11"], "KEYS pattern")


@scenario
def server_and_connection():
    info = r.info()
    eq(info["redis_version"], "8.0.2", "INFO redis_version parsed")
    eq(info["loading"], 0, "INFO loading parsed")
    eq(isinstance(info["used_memory"], int), True, "INFO used_memory is an integer")
    ks = r.info("keyspace")
    eq(set(ks["db0"]) >= {"keys", "expires", "avg_ttl"}, True, "INFO keyspace parsed into a dict")
    eq(r.info("commandstats")["cmdstat_set"]["calls"] > 0, True, "INFO commandstats parsed")
    eq(r.client_setname("compat-py"), True, "CLIENT SETNAME")
    eq(r.client_getname(), "compat-py", "CLIENT GETNAME")
    eq(isinstance(r.client_id(), int), True, "CLIENT ID")
    me = [c for c in r.client_list() if c["name"] == "compat-py"]
    eq(len(me), 1, "CLIENT LIST parsed, own connection found")
    eq(me and me[0]["db"], "0", "CLIENT LIST db field")
    eq(r.client_info()["name"], "compat-py", "CLIENT INFO parsed")
    eq(r.config_get("maxclients"), {"maxclients": "10000"}, "CONFIG GET")
    eq(len(r.config_get("*")) > 10, True, "CONFIG GET *")
    eq(r.dbsize() > 0, True, "DBSIZE")
    secs, micros = r.time()
    eq(abs(secs - time.time()) < 5 and 0 <= micros < 1_000_000, True, "TIME")
    cmds = r.command()
    eq(cmds["get"]["arity"], 2, "COMMAND parsed: get arity")
    eq("readonly" in cmds["get"]["flags"], True, "COMMAND parsed: get flags")
    eq(cmds["set"]["first_key_pos"], 1, "COMMAND parsed: set first key")
    eq(r.command_count() == len(cmds), True, "COMMAND COUNT matches COMMAND")
    eq(r.echo("hi"), "hi", "ECHO")
    raises(lambda: r.execute_command("NOSUCHCMD", "a"), redis.ResponseError,
           "unknown command 'NOSUCHCMD', with args beginning with: 'a' ", "unknown command")
    raises(lambda: r.execute_command("GET"), redis.ResponseError,
           "wrong number of arguments for 'get' command", "wrong arity")
    db2 = redis.Redis(port=port, db=2, decode_responses=True)
    db2.set("py:indb2", "x")
    eq(r.exists("py:indb2"), 0, "databases are separate")
    eq(db2.get("py:indb2"), "x", "GET in database 2")
    eq(db2.move("py:indb2", 0), True, "MOVE to database 0")
    eq(r.get("py:indb2"), "x", "moved key in database 0")
    db2.close()
    lastsave = r.lastsave()
    eq(lastsave.year >= 2020, True, "LASTSAVE parsed as a datetime")


@scenario
def connection_pool_under_threads():
    pool = redis.ConnectionPool(port=port, max_connections=8)
    c = redis.Redis(connection_pool=pool)
    errors = []

    def worker(n):
        try:
            for i in range(200):
                c.incr("py:threads")
                c.set(f"py:th:{n}:{i}", i)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    eq(errors, [], "no errors from 8 threads")
    eq(int(c.get("py:threads")), 1600, "1600 INCRs from 8 threads")
    pool.disconnect()


if auth_port:
    @scenario
    def auth():
        a = redis.Redis(port=auth_port, password=password)
        eq(a.ping(), True, "PING after password")
        a.close()
        bad = redis.Redis(port=auth_port, password="wrong")
        raises(bad.ping, redis.ResponseError, "WRONGPASS invalid username-password pair", "wrong password")
        none = redis.Redis(port=auth_port)
        raises(lambda: none.get("x"), redis.AuthenticationError, "Authentication required", "no password")


print(f"{checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
