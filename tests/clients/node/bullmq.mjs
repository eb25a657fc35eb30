// bullmq.mjs PORT [AUTH_PORT PASSWORD]: runs a BullMQ queue (Lua scripts
// using cmsgpack, streams for its events, blocking list moves, sorted sets
// for delays and priorities) against a server, as an application would:
// jobs added, processed by a worker with concurrency, retried with
// backoff, delayed and prioritised; then the queue's counts and the events
// stream. Prints "N checks, M failed" and exits 1 if any failed.
import { Queue, Worker, QueueEvents } from 'bullmq';

const port = Number(process.argv[2]);
const authPort = process.argv[3] ? Number(process.argv[3]) : 0;
const password = process.argv[4];
let checks = 0, failures = 0;
function eq(got, want, what) {
  checks++;
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    failures++;
    console.log(`FAIL ${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

async function run(connection, tag) {
  const name = `compat-${tag}`;
  const q = new Queue(name, { connection });
  await q.obliterate({ force: true });
  const events = new QueueEvents(name, { connection });
  await events.waitUntilReady();
  const completed = [];
  const failed = [];
  const w = new Worker(name, async job => {
    if (job.data.fail) throw new Error('boom');
    return job.data.n * 2;
  }, { connection, concurrency: 4 });
  w.on('completed', (job, r) => completed.push(r));
  w.on('failed', (job, e) => failed.push(`${job.name}:${e.message}:${job.attemptsMade}`));
  let eventsCompleted = 0;
  events.on('completed', () => eventsCompleted++);
  for (let i = 0; i < 50; i++) await q.add('j', { n: i }, { removeOnComplete: true });
  await q.addBulk([{ name: 'bulk', data: { n: 100 } }, { name: 'bulk', data: { n: 101 } }]);
  await q.add('bad', { fail: true }, { attempts: 2, backoff: { type: 'fixed', delay: 20 } });
  await q.add('delayed', { n: 1000 }, { delay: 300 });
  await q.add('prio', { n: 2000 }, { priority: 1 });
  const deadline = Date.now() + 15000;
  while ((completed.length < 54 || failed.length < 2 || eventsCompleted < 54) && Date.now() < deadline) {
    await new Promise(r => setTimeout(r, 50));
  }
  eq(completed.length, 54, `${tag} jobs completed`);
  eq(completed.reduce((a, b) => a + b, 0), 2 * (49 * 50 / 2 + 100 + 101 + 1000 + 2000), `${tag} results`);
  eq(failed.sort(), ['bad:boom:1', 'bad:boom:2'], `${tag} failures and retries`);
  eq(eventsCompleted, 54, `${tag} completed events through the events stream`);
  const counts = await q.getJobCounts('completed', 'failed', 'waiting', 'delayed', 'active');
  eq(counts, { completed: 4, failed: 1, waiting: 0, delayed: 0, active: 0, paused: 0 }, `${tag} job counts`);
  const [bad] = await q.getFailed();
  eq([bad.name, bad.failedReason, bad.attemptsMade], ['bad', 'boom', 2], `${tag} failed job`);
  await w.close();
  await events.close();
  await q.obliterate({ force: true });
  eq(await q.getJobCounts('completed', 'failed'), { completed: 0, failed: 0 }, `${tag} obliterated`);
  await q.close();
}

try {
  await run({ host: '127.0.0.1', port }, 'plain');
  if (authPort) await run({ host: '127.0.0.1', port: authPort, password }, 'auth');
} catch (e) {
  failures++;
  console.log(`FAIL exception: ${e.stack}`);
}
console.log(`${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
