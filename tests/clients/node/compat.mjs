// Drives a running server with node-redis (RESP2 and RESP3) and ioredis the way
// applications use them, and checks every reply against what Redis 8 returns.
//
//   node compat.mjs PORT [PASSWORD_PORT PASSWORD]
//
// PASSWORD_PORT, when given, is a second server started with requirepass
// PASSWORD. Prints one line per failed check and exits 1 if any failed.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createClient, RESP_TYPES, WatchError } from 'redis';
import Redis from 'ioredis';

const port = Number(process.argv[2]);
const authPort = process.argv[3] ? Number(process.argv[3]) : 0;
const password = process.argv[4];
if (!port) {
  console.error('usage: node compat.mjs PORT [PASSWORD_PORT PASSWORD]');
  process.exit(2);
}

let failures = 0;
let checks = 0;
function eq(actual, expected, what) {
  checks++;
  try {
    assert.deepStrictEqual(actual, expected);
  } catch {
    failures++;
    console.log(`FAIL ${what}: got ${fmt(actual)}, want ${fmt(expected)}`);
  }
}
function fmt(v) {
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
}
async function rejects(promise, pattern, what) {
  checks++;
  try {
    const v = await promise;
    failures++;
    console.log(`FAIL ${what}: got ${fmt(v)}, want an error matching ${pattern}`);
  } catch (e) {
    if (!pattern.test(String(e?.message ?? e))) {
      failures++;
      console.log(`FAIL ${what}: error ${fmt(String(e?.message ?? e))} does not match ${pattern}`);
    }
  }
}
async function scenario(name, fn) {
  try {
    await fn();
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: threw ${e?.stack ?? e}`);
  }
}
const sorted = (a) => [...a].sort();
const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`${what}: no reply in ${ms} ms`)), ms))]);

async function nodeRedis(RESP) {
  const tag = `node-redis RESP${RESP}`;
  const c = createClient({ socket: { port }, RESP, name: `compat-${RESP}` });
  c.on('error', (e) => console.log(`${tag} error event: ${e}`));
  await c.connect();
  const k = (s) => `nr${RESP}:${s}`;

  await scenario(`${tag} strings`, async () => {
    eq(await c.ping(), 'PONG', `${tag} PING`);
    eq(await c.set(k('s'), 'v1', { expiration: { type: 'EX', value: 100 } }), 'OK', `${tag} SET EX`);
    eq(await c.set(k('s'), 'v2', { condition: 'NX' }), null, `${tag} SET NX on existing`);
    eq(await c.set(k('s'), 'v2', { GET: true }), 'v1', `${tag} SET GET`);
    eq(await c.get(k('s')), 'v2', `${tag} GET`);
    eq(await c.get(k('missing')), null, `${tag} GET missing`);
    eq(await c.ttl(k('s')), -1, `${tag} TTL after SET without KEEPTTL`);
    eq(await c.mSet({ [k('a')]: '1', [k('b')]: '2' }), 'OK', `${tag} MSET`);
    eq(await c.mGet([k('a'), k('missing'), k('b')]), ['1', null, '2'], `${tag} MGET`);
    eq(await c.incrBy(k('a'), 41), 42, `${tag} INCRBY`);
    eq(await c.incrByFloat(k('a'), 0.5), '42.5', `${tag} INCRBYFLOAT`);
    eq(await c.append(k('b'), 'xyz'), 4, `${tag} APPEND`);
    eq(await c.getRange(k('b'), 1, -1), 'xyz', `${tag} GETRANGE`);
    eq(await c.setRange(k('b'), 6, 'end'), 9, `${tag} SETRANGE past the end`);
    eq(await c.get(k('b')), '2xyz\0\0end', `${tag} GET after SETRANGE`);
    eq(await c.getDel(k('b')), '2xyz\0\0end', `${tag} GETDEL`);
    eq(await c.exists([k('a'), k('b')]), 1, `${tag} EXISTS`);
    await rejects(c.incr(k('s')), /^ERR value is not an integer or out of range$/, `${tag} INCR on a non-integer`);
    eq(await c.lcs(k('s'), k('a')), '2', `${tag} LCS`);
  });

  await scenario(`${tag} binary values`, async () => {
    const bin = Buffer.from([0, 255, 13, 10, 36, 42, 128]);
    eq(await c.set(k('bin'), bin), 'OK', `${tag} SET binary`);
    const b = c.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    eq(Buffer.compare(await b.get(k('bin')), bin), 0, `${tag} GET binary as Buffer`);
    eq(await c.strLen(k('bin')), 7, `${tag} STRLEN binary`);
  });

  await scenario(`${tag} expiry`, async () => {
    await c.set(k('e'), 'x');
    eq(await c.expire(k('e'), 100, 'NX'), 1, `${tag} EXPIRE NX`);
    eq(await c.expire(k('e'), 50, 'GT'), 0, `${tag} EXPIRE GT smaller`);
    const ttl = await c.pTTL(k('e'));
    eq(ttl > 99000 && ttl <= 100000, true, `${tag} PTTL in (99000, 100000]: ${ttl}`);
    const at = await c.expireTime(k('e'));
    const now = Math.floor(Date.now() / 1000);
    eq(at >= now + 98 && at <= now + 101, true, `${tag} EXPIRETIME near now+100: ${at - now}`);
    eq(await c.persist(k('e')), 1, `${tag} PERSIST`);
    eq(await c.ttl(k('e')), -1, `${tag} TTL after PERSIST`);
    eq(await c.ttl(k('missing')), -2, `${tag} TTL missing`);
    await c.set(k('gone'), 'x', { expiration: { type: 'PX', value: 20 } });
    await new Promise((r) => setTimeout(r, 60));
    eq(await c.get(k('gone')), null, `${tag} GET after PX expiry`);
  });

  await scenario(`${tag} hashes`, async () => {
    eq(await c.hSet(k('h'), { f1: 'a', f2: 2, f3: 'c' }), 3, `${tag} HSET object`);
    eq({ ...(await c.hGetAll(k('h'))) }, { f1: 'a', f2: '2', f3: 'c' }, `${tag} HGETALL`);
    eq({ ...(await c.hGetAll(k('missing'))) }, {}, `${tag} HGETALL missing`);
    eq(await c.hIncrBy(k('h'), 'f2', 40), 42, `${tag} HINCRBY`);
    eq(await c.hmGet(k('h'), ['f1', 'nope', 'f3']), ['a', null, 'c'], `${tag} HMGET`);
    eq(await c.hExists(k('h'), 'f1'), 1, `${tag} HEXISTS`);
    eq(await c.hDel(k('h'), ['f1', 'nope']), 1, `${tag} HDEL`);
    eq(sorted(await c.hKeys(k('h'))), ['f2', 'f3'], `${tag} HKEYS`);
    eq(await c.hLen(k('h')), 2, `${tag} HLEN`);
    eq(await c.hExpire(k('h'), ['f3', 'nope'], 100), [1, -2], `${tag} HEXPIRE`);
    eq(await c.hTTL(k('h'), ['f3', 'f2']), [100, -1], `${tag} HTTL`);
    await rejects(c.lPush(k('h'), 'x'), /^WRONGTYPE Operation against a key holding the wrong kind of value$/, `${tag} LPUSH on a hash`);
  });

  await scenario(`${tag} lists`, async () => {
    eq(await c.rPush(k('l'), ['a', 'b', 'c']), 3, `${tag} RPUSH`);
    eq(await c.lPush(k('l'), 'z'), 4, `${tag} LPUSH`);
    eq(await c.lRange(k('l'), 0, -1), ['z', 'a', 'b', 'c'], `${tag} LRANGE`);
    eq(await c.lPopCount(k('l'), 2), ['z', 'a'], `${tag} LPOP count`);
    eq(await c.lPos(k('l'), 'c'), 1, `${tag} LPOS`);
    eq(await c.lMove(k('l'), k('l2'), 'RIGHT', 'LEFT'), 'c', `${tag} LMOVE`);
    eq(await c.blPop(k('l'), 1), { key: k('l'), element: 'b' }, `${tag} BLPOP ready`);
    eq(await c.brPop(k('empty'), 0.05), null, `${tag} BRPOP timeout`);
    // A blocked pop served by another client's push.
    const other = c.duplicate();
    await other.connect();
    const waiting = other.blPop(k('q'), 5);
    await new Promise((r) => setTimeout(r, 50));
    await c.rPush(k('q'), 'job1');
    eq(await withTimeout(waiting, 3000, 'BLPOP'), { key: k('q'), element: 'job1' }, `${tag} BLPOP woken by RPUSH`);
    eq(await c.lmPop(k('l2'), 'LEFT', { COUNT: 5 }), [k('l2'), ['c']], `${tag} LMPOP`);
    await other.close();
  });

  await scenario(`${tag} sets`, async () => {
    eq(await c.sAdd(k('s1'), ['a', 'b', 'c']), 3, `${tag} SADD`);
    eq(await c.sAdd(k('s2'), ['b', 'c', 'd']), 3, `${tag} SADD second`);
    eq(await c.sIsMember(k('s1'), 'a'), 1, `${tag} SISMEMBER`);
    eq(await c.smIsMember(k('s1'), ['a', 'x']), [1, 0], `${tag} SMISMEMBER`);
    eq(sorted(await c.sMembers(k('s1'))), ['a', 'b', 'c'], `${tag} SMEMBERS`);
    eq(sorted(await c.sInter([k('s1'), k('s2')])), ['b', 'c'], `${tag} SINTER`);
    eq(await c.sInterCard([k('s1'), k('s2')]), 2, `${tag} SINTERCARD`);
    eq(sorted(await c.sUnion([k('s1'), k('s2')])), ['a', 'b', 'c', 'd'], `${tag} SUNION`);
    eq(await c.sCard(k('s1')), 3, `${tag} SCARD`);
  });

  await scenario(`${tag} sorted sets`, async () => {
    eq(await c.zAdd(k('z'), [{ score: 1, value: 'one' }, { score: 2.5, value: 'two' }, { score: -1, value: 'neg' }]), 3, `${tag} ZADD`);
    eq(await c.zScore(k('z'), 'two'), 2.5, `${tag} ZSCORE`);
    eq(await c.zScore(k('z'), 'nope'), null, `${tag} ZSCORE missing`);
    eq(await c.zIncrBy(k('z'), 0.5, 'one'), 1.5, `${tag} ZINCRBY`);
    eq(await c.zRangeWithScores(k('z'), 0, -1), [
      { value: 'neg', score: -1 },
      { value: 'one', score: 1.5 },
      { value: 'two', score: 2.5 },
    ], `${tag} ZRANGE WITHSCORES`);
    eq(await c.zRange(k('z'), '(1', '+inf', { BY: 'SCORE' }), ['one', 'two'], `${tag} ZRANGE BYSCORE exclusive`);
    eq(await c.zRange(k('z'), 0, 0, { REV: true }), ['two'], `${tag} ZRANGE REV`);
    eq(await c.zRank(k('z'), 'two'), 2, `${tag} ZRANK`);
    eq(await c.zCount(k('z'), '-inf', 1.5), 2, `${tag} ZCOUNT`);
    eq(await c.zPopMin(k('z')), { value: 'neg', score: -1 }, `${tag} ZPOPMIN`);
    eq(await c.zmScore(k('z'), ['one', 'x']), [1.5, null], `${tag} ZMSCORE`);
    eq(await c.zAdd(k('z'), { score: Infinity, value: 'top' }), 1, `${tag} ZADD +inf`);
    eq(await c.zScore(k('z'), 'top'), Infinity, `${tag} ZSCORE +inf`);
    eq(await c.bzPopMax(k('z'), 1), { key: k('z'), value: 'top', score: Infinity }, `${tag} BZPOPMAX`);
  });

  await scenario(`${tag} bitmaps and hyperloglog`, async () => {
    eq(await c.setBit(k('bits'), 7, 1), 0, `${tag} SETBIT`);
    eq(await c.getBit(k('bits'), 7), 1, `${tag} GETBIT`);
    eq(await c.bitCount(k('bits')), 1, `${tag} BITCOUNT`);
    eq(await c.bitField(k('bf'), [{ operation: 'SET', encoding: 'u8', offset: 0, value: 250 },
      { operation: 'INCRBY', encoding: 'u8', offset: 0, increment: 10 }]), [0, 4], `${tag} BITFIELD wraps`);
    eq(await c.pfAdd(k('hll'), ['a', 'b', 'c', 'a']), 1, `${tag} PFADD`);
    eq(await c.pfCount(k('hll')), 3, `${tag} PFCOUNT`);
  });

  await scenario(`${tag} transactions`, async () => {
    eq(await c.multi().set(k('t'), '1').incr(k('t')).get(k('t')).exec(), ['OK', 2, '2'], `${tag} MULTI/EXEC`);
    // WATCH on an isolated connection: a change by another client aborts EXEC.
    const watcher = c.duplicate();
    await watcher.connect();
    await watcher.watch(k('t'));
    await c.set(k('t'), 'changed');
    await rejects(watcher.multi().set(k('t'), 'mine').exec(), /watch/i, `${tag} EXEC after a watched key changed`);
    eq(await c.get(k('t')), 'changed', `${tag} value after aborted EXEC`);
    await watcher.watch(k('t'));
    eq(await watcher.multi().set(k('t'), 'mine').exec(), ['OK'], `${tag} EXEC with WATCH untouched`);
    await watcher.close();
    const errs = await c.multi().set(k('t2'), 'x').incr(k('t2')).exec().catch((e) => e);
    eq(errs?.constructor?.name, 'MultiErrorReply', `${tag} EXEC with a failing command rejects`);
    eq(errs?.replies?.[0], 'OK', `${tag} EXEC keeps the commands that ran`);
    eq(await c.get(k('t2')), 'x', `${tag} earlier command in failed EXEC applied`);
    eq(WatchError.name, 'WatchError', 'WatchError exported');
  });

  await scenario(`${tag} pub/sub`, async () => {
    const sub = c.duplicate();
    await sub.connect();
    const got = [];
    let done;
    const all = new Promise((r) => (done = r));
    await sub.subscribe(k('news'), (msg, ch) => { got.push(['message', ch, msg]); if (got.length === 3) done(); });
    await sub.pSubscribe(k('ev:*'), (msg, ch) => { got.push(['pmessage', ch, msg]); if (got.length === 3) done(); });
    eq(await c.pubSubNumSub(k('news')), { [k('news')]: 1 }, `${tag} PUBSUB NUMSUB`);
    eq(await c.publish(k('news'), 'hello'), 1, `${tag} PUBLISH`);
    eq(await c.publish(k('ev:1'), 'e1'), 1, `${tag} PUBLISH pattern`);
    eq(await c.publish(k('news'), 'bye'), 1, `${tag} PUBLISH again`);
    await withTimeout(all, 3000, 'pub/sub messages');
    eq(got, [['message', k('news'), 'hello'], ['pmessage', k('ev:1'), 'e1'], ['message', k('news'), 'bye']], `${tag} messages received in order`);
    await sub.unsubscribe();
    await sub.pUnsubscribe();
    eq(await c.publish(k('news'), 'nobody'), 0, `${tag} PUBLISH after UNSUBSCRIBE`);
    await sub.close();
  });

  await scenario(`${tag} scan`, async () => {
    const want = [];
    for (let i = 0; i < 250; i++) want.push(k(`scan:${i}`));
    await c.mSet(Object.fromEntries(want.map((x) => [x, 'v'])));
    const seen = new Set();
    for await (const keys of c.scanIterator({ MATCH: k('scan:*'), COUNT: 20 })) keys.forEach((x) => seen.add(x));
    eq(sorted(seen), sorted(want), `${tag} SCAN iterator`);
    const typed = new Set();
    for await (const keys of c.scanIterator({ TYPE: 'zset', MATCH: k('*') })) keys.forEach((x) => typed.add(x));
    eq(sorted(typed), [k('z')], `${tag} SCAN TYPE zset`);
    await c.hSet(k('bigh'), Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, `${i}`])));
    let n = 0;
    for await (const entries of c.hScanIterator(k('bigh'), { COUNT: 50 })) n += entries.length;
    eq(n, 300, `${tag} HSCAN iterator`);
  });

  await scenario(`${tag} server and connection`, async () => {
    eq(await c.clientGetName(), `compat-${RESP}`, `${tag} CLIENT GETNAME after name option`);
    eq(typeof (await c.clientId()), 'number', `${tag} CLIENT ID`);
    const info = await c.info('keyspace');
    eq(/^db0:keys=\d+,expires=\d+,avg_ttl=\d+/m.test(info), true, `${tag} INFO keyspace line`);
    eq(await c.dbSize() > 0, true, `${tag} DBSIZE`);
    eq(await c.type(k('z')), 'zset', `${tag} TYPE`);
    eq(await c.objectEncoding(k('a')), 'embstr', `${tag} OBJECT ENCODING`);
    eq(await c.configGet('maxclients'), { maxclients: '10000' }, `${tag} CONFIG GET`);
    const [secs, micros] = await c.time();
    eq(Math.abs(Number(secs) - Date.now() / 1000) < 5 && Number(micros) < 1e6, true, `${tag} TIME`);
    await rejects(c.sendCommand(['NOSUCHCMD', 'a']), /^ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' $/, `${tag} unknown command`);
    await rejects(c.sendCommand(['GET']), /^ERR wrong number of arguments for 'get' command$/, `${tag} wrong arity`);
    // node-redis pipelines concurrent commands on one connection.
    const many = await Promise.all(Array.from({ length: 500 }, (_, i) => c.incr(k('pipe'))));
    eq(many[499], 500, `${tag} 500 concurrent INCRs`);
    const db2 = c.duplicate({ database: 2 });
    await db2.connect();
    await db2.set(k('indb2'), 'x');
    eq(await c.exists(k('indb2')), 0, `${tag} SELECT isolates databases`);
    eq(await db2.get(k('indb2')), 'x', `${tag} GET in database 2`);
    await db2.flushDb();
    await db2.close();
  });

  await c.close();
}

async function nodeRedisAuth() {
  for (const RESP of [2, 3]) {
    const tag = `node-redis RESP${RESP} AUTH`;
    const c = createClient({ socket: { port: authPort, reconnectStrategy: false }, RESP, password });
    c.on('error', () => {});
    await scenario(tag, async () => {
      await c.connect();
      eq(await c.ping(), 'PONG', `${tag} PING after password`);
      await c.close();
    });
    const bad = createClient({ socket: { port: authPort, reconnectStrategy: false }, RESP, password: 'wrong' });
    bad.on('error', () => {});
    await rejects(bad.connect(), /WRONGPASS invalid username-password pair or user is disabled/, `${tag} wrong password`);
    await bad.destroy?.();
    const none = createClient({ socket: { port: authPort, reconnectStrategy: false }, RESP: 2 });
    none.on('error', () => {});
    await scenario(`${tag} none`, async () => {
      await none.connect();
      await rejects(none.get('x'), /^NOAUTH Authentication required\.$/, `${tag} GET without a password`);
      await none.close();
    });
  }
}

async function ioredis() {
  const tag = 'ioredis';
  const r = new Redis({ port, connectionName: 'compat-io', maxRetriesPerRequest: 1, lazyConnect: true });
  r.on('error', (e) => console.log(`${tag} error event: ${e}`));
  await r.connect(); // ioredis runs INFO first and waits for loading:0
  const k = (s) => `io:${s}`;

  await scenario(`${tag} basics`, async () => {
    eq(await r.set(k('a'), 'v', 'EX', 100, 'NX'), 'OK', `${tag} SET EX NX`);
    eq(await r.set(k('a'), 'w', 'NX'), null, `${tag} SET NX existing`);
    eq(await r.get(k('a')), 'v', `${tag} GET`);
    eq(await r.client('GETNAME'), 'compat-io', `${tag} connectionName`);
    eq(await r.hset(k('h'), { x: '1', y: '2' }), 2, `${tag} HSET object`);
    eq(await r.hgetall(k('h')), { x: '1', y: '2' }, `${tag} HGETALL`);
    eq(await r.zadd(k('z'), 1, 'a', 2, 'b'), 2, `${tag} ZADD`);
    eq(await r.zrange(k('z'), 0, -1, 'WITHSCORES'), ['a', '1', 'b', '2'], `${tag} ZRANGE WITHSCORES`);
    eq(Buffer.compare(await r.getBuffer(k('a')), Buffer.from('v')), 0, `${tag} getBuffer`);
    eq(await r.call('COMMAND', 'COUNT') > 200, true, `${tag} COMMAND COUNT`);
    await rejects(r.lpush(k('h'), 'x'), /^WRONGTYPE/, `${tag} WRONGTYPE`);
  });

  await scenario(`${tag} scripting`, async () => {
    await r.script('FLUSH');
    // defineCommand sends EVALSHA and falls back to EVAL on NOSCRIPT.
    r.defineCommand('incrTwice', { numberOfKeys: 1, lua: "redis.call('incrby', KEYS[1], ARGV[1]) return redis.call('incrby', KEYS[1], ARGV[1])" });
    eq(await r.incrTwice(k('sc'), 2), 4, `${tag} defineCommand (EVAL after NOSCRIPT)`);
    eq(await r.incrTwice(k('sc'), 3), 10, `${tag} defineCommand (EVALSHA)`);
    eq(await r.eval("return {KEYS[1], ARGV[1], 3, {ok='fine'}}", 1, 'key', 'arg'), ['key', 'arg', 3, 'fine'], `${tag} EVAL reply`);
    await rejects(r.eval("return redis.call('hget', KEYS[1], 'f')", 1, k('sc')), /^WRONGTYPE/, `${tag} error from redis.call`);
  });

  await scenario(`${tag} pipeline and multi`, async () => {
    eq(await r.pipeline().set(k('p'), 1).incr(k('p')).incr(k('nope:p')).get(k('p')).exec(),
      [[null, 'OK'], [null, 2], [null, 1], [null, '2']], `${tag} pipeline`);
    eq(await r.multi().incr(k('p')).get(k('p')).exec(), [[null, 3], [null, '3']], `${tag} multi`);
    const w = r.duplicate();
    await w.watch(k('p'));
    await r.set(k('p'), 'changed');
    eq(await w.multi().set(k('p'), 'mine').exec(), null, `${tag} exec after watched change`);
    w.disconnect();
    const res = await r.multi().set(k('m'), 'x').lpush(k('m'), 'y').exec();
    eq(res[0], [null, 'OK'], `${tag} multi run-time error keeps first`);
    eq(/^WRONGTYPE/.test(res[1][0]?.message), true, `${tag} multi run-time error reported`);
  });

  await scenario(`${tag} auto-pipelining`, async () => {
    const ap = new Redis({ port, enableAutoPipelining: true });
    const vals = await Promise.all(Array.from({ length: 1000 }, (_, i) => ap.set(k(`ap:${i}`), `${i}`).then(() => ap.get(k(`ap:${i}`)))));
    eq(vals.every((v, i) => v === `${i}`), true, `${tag} 1000 auto-pipelined SET+GET`);
    ap.disconnect();
  });

  await scenario(`${tag} pub/sub`, async () => {
    const sub = r.duplicate();
    const got = [];
    sub.on('message', (ch, msg) => got.push(['message', ch, msg]));
    sub.on('pmessage', (pat, ch, msg) => got.push(['pmessage', pat, ch, msg]));
    eq(await sub.subscribe(k('c1'), k('c2')), 2, `${tag} SUBSCRIBE count`);
    eq(await sub.psubscribe(k('p*')), 3, `${tag} PSUBSCRIBE count`);
    eq(await r.publish(k('c1'), 'm1'), 1, `${tag} PUBLISH`);
    eq(await r.publish(k('px'), 'm2'), 1, `${tag} PUBLISH pattern`);
    const end = Date.now() + 3000;
    while (got.length < 2 && Date.now() < end) await new Promise((res) => setTimeout(res, 10));
    eq(got, [['message', k('c1'), 'm1'], ['pmessage', k('p*'), k('px'), 'm2']], `${tag} messages`);
    sub.disconnect();
  });

  await scenario(`${tag} scanStream and blocking`, async () => {
    for (let i = 0; i < 120; i++) await r.set(k(`scan:${i}`), 'x');
    const stream = r.scanStream({ match: k('scan:*'), count: 25 });
    const seen = new Set();
    stream.on('data', (keys) => keys.forEach((x) => seen.add(x)));
    await once(stream, 'end');
    eq(seen.size, 120, `${tag} scanStream`);
    eq(await r.blpop(k('empty'), 0.05), null, `${tag} BLPOP timeout`);
    const b = r.duplicate();
    const waiting = b.brpop(k('q'), 5);
    await new Promise((res) => setTimeout(res, 50));
    await r.lpush(k('q'), 'job');
    eq(await withTimeout(waiting, 3000, 'BRPOP'), [k('q'), 'job'], `${tag} BRPOP woken`);
    b.disconnect();
  });

  await scenario(`${tag} keyPrefix and db`, async () => {
    const p = new Redis({ port, keyPrefix: 'pre:', db: 3 });
    await p.set('x', '1');
    eq(await p.get('x'), '1', `${tag} keyPrefix GET`);
    eq(await p.exists('x'), 1, `${tag} keyPrefix EXISTS`);
    const raw = new Redis({ port, db: 3 });
    eq(await raw.get('pre:x'), '1', `${tag} prefixed key stored in db 3`);
    await raw.flushdb();
    raw.disconnect();
    p.disconnect();
  });

  await scenario(`${tag} monitor`, async () => {
    const mon = await r.monitor();
    const seen = [];
    mon.on('monitor', (time, args) => seen.push(args));
    await new Promise((res) => setTimeout(res, 20));
    await r.set(k('watched'), 'v');
    const end = Date.now() + 3000;
    while (!seen.some((a) => a[0].toLowerCase() === 'set') && Date.now() < end) await new Promise((res) => setTimeout(res, 10));
    eq(seen.find((a) => a[0].toLowerCase() === 'set'), ['set', k('watched'), 'v'], `${tag} MONITOR sees SET`);
    mon.disconnect();
  });

  if (authPort) {
    await scenario(`${tag} AUTH`, async () => {
      const a = new Redis({ port: authPort, password, lazyConnect: true });
      await a.connect();
      eq(await a.ping(), 'PONG', `${tag} PING after password`);
      a.disconnect();
      const bad = new Redis({ port: authPort, password: 'wrong', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      const firstError = once(bad, 'error');
      bad.connect().catch(() => {});
      const [err] = await withTimeout(firstError, 3000, 'ioredis error event');
      eq(/^WRONGPASS invalid username-password pair/.test(err.message), true, `${tag} wrong password: ${err.message}`);
      bad.disconnect();
    });
  }
  r.disconnect();
}

// node-redis's client-side cache (RESP3, CLIENT TRACKING ON): a second read
// is served locally, and a write by another client invalidates it.
async function nodeRedisCache() {
  const tag = 'node-redis client-side cache';
  const c = createClient({ socket: { port }, RESP: 3, clientSideCache: { ttl: 0, maxEntries: 0 } });
  const w = createClient({ socket: { port } });
  c.on('error', (e) => console.log(`${tag} error event: ${e}`));
  await c.connect();
  await w.connect();
  await scenario(tag, async () => {
    await w.set('csc:k', 'v1');
    eq(await c.get('csc:k'), 'v1', `${tag} first GET`);
    eq(await c.get('csc:k'), 'v1', `${tag} second GET`);
    const stats = () => c.clientSideCache.stats();
    eq(stats().hitCount, 1, `${tag} second GET from the cache`);
    await w.set('csc:k', 'v2');
    const end = Date.now() + 3000;
    let v;
    while ((v = await c.get('csc:k')) !== 'v2' && Date.now() < end) await new Promise((res) => setTimeout(res, 10));
    eq(v, 'v2', `${tag} GET after another client's SET`);
    await w.del('csc:k');
    const end2 = Date.now() + 3000;
    while ((v = await c.get('csc:k')) !== null && Date.now() < end2) await new Promise((res) => setTimeout(res, 10));
    eq(v, null, `${tag} GET after DEL`);
  });
  await c.quit();
  await w.quit();
}

await nodeRedis(2);
await nodeRedis(3);
await nodeRedisCache();
if (authPort) await nodeRedisAuth();
await ioredis();
console.log(`${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
