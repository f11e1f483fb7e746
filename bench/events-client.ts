/**
 * The long-poll side of the event benchmarks, in its own process (started by the benchmark with
 * an IPC channel) so that its work does not run on the benchmark's event loop:
 *
 *   {cmd: 'register', port, users, concurrency}  one event queue per user (POST /register for
 *                                                message events only, no initial state)
 *   {cmd: 'prime', port, users, concurrency}     one cheap authenticated request per user
 *   {cmd: 'park'}                                a GET /events long-poll on every queue
 *   {cmd: 'send', sender, channel}               posts one message, waits for every parked
 *                                                poll to answer; latencies from the send
 *   {cmd: 'ceiling', port, n}                    the same N polls against the ceiling server
 *   {cmd: 'park', target: 'ceiling'}             (GET /poll there; the first is the sender's)
 *   {cmd: 'send', target: 'ceiling', channelId,  and its send with wake=1, measured as above
 *    senderId}
 *
 * Latency of a delivery = time from just before the POST /messages request is written to the
 * arrival of the first bytes of the long-poll's response (CLOCK_MONOTONIC in this process). The
 * long-polls go over bare sockets (lib/raw-http.ts), one per queue and kept between polls, so
 * that reading 10,000 answers costs this process little of the CPU the server shares with it.
 */
import http from 'node:http';
import { basicAuth, forEachLimit, request } from './lib/http';
import { RawHttpConnection, RawHttpError } from './lib/raw-http';

interface User {
  email: string;
  key: string;
}

type Target = 'product' | 'ceiling';

type Command =
  | { cmd: 'register'; port: number; users: User[]; concurrency: number }
  | { cmd: 'prime'; port: number; users: User[]; concurrency: number }
  | { cmd: 'ceiling'; port: number; n: number }
  | { cmd: 'park'; target?: Target }
  | { cmd: 'send'; target?: 'product'; sender: User; channel: string; topic: string }
  | { cmd: 'send'; target: 'ceiling'; channelId: number; senderId: number; topic: string }
  | { cmd: 'exit' };

// Every queue's client keeps its connection after its answer, as a real client does between polls
// (Node's default of 256 idle sockets per host made this one process close all but 256 of them
// while the server was still writing the other answers).
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: Infinity });
let port = 0;
let ceilingPort = 0;
interface Queue {
  port: number;
  auth: string;
  queueId: string;
  lastEventId: number;
  /** The ceiling's polls: their fixed path (the product's are built from the queue). */
  path?: string;
  /** The queue's own long-poll connection (kept between polls, as a client keeps it). */
  connection?: RawHttpConnection;
}
let queues: Queue[] = [];
let ceilingQueues: Queue[] = [];
/** The polls of the current round (the product's queues or the ceiling's). */
let polled: Queue[] = [];
/** Resolvers of the parked polls of the current round: called with the response time. */
let arrivals: Array<bigint | null> = [];
let onArrival: (() => void) | null = null;
let pollErrors = 0;
/** Why polls failed: error codes (ECONNRESET, …) and HTTP statuses, for the report. */
let failureKinds: Record<string, number> = {};
const fail = (kind: string) => {
  pollErrors++;
  failureKinds[kind] = (failureKinds[kind] ?? 0) + 1;
};

/** Polls retried after their reused keep-alive connection was reset (see poll). */
let retries = 0;

/** Writes a long-poll on the queue's connection; its answer is recorded in `arrivals[i]`. */
function poll(q: Queue, i: number, retried = false): void {
  q.connection ??= new RawHttpConnection(q.port);
  const answered = q.connection.get(
    q.path ?? `/api/v1/events?queue_id=${encodeURIComponent(q.queueId)}&last_event_id=${q.lastEventId}`,
    q.path ? {} : { Authorization: q.auth },
  );
  answered.then(
    (res) => {
      arrivals[i] = res.arrivedAt;
      try {
        const body = JSON.parse(res.body.toString('utf8')) as { events?: Array<{ id: number }> };
        for (const e of body.events ?? []) q.lastEventId = Math.max(q.lastEventId, e.id);
        if (res.status !== 200) fail(`HTTP ${res.status}`);
      } catch {
        fail(`HTTP ${res.status} (not JSON)`);
      }
      onArrival?.();
    },
    (err: RawHttpError) => {
      // A kept-alive connection the server closed (idle) just as the poll went out on it: like a
      // browser, retry such an idempotent request once on a new connection.
      if (err.retryable && !retried) {
        retries++;
        poll(q, i, true);
        return;
      }
      // A poll that failed (connection refused or reset) still counts as answered.
      fail(err.code);
      arrivals[i] = process.hrtime.bigint();
      onArrival?.();
    },
  );
}

/**
 * Waits until the server's `zulip_event_long_polls_parked` gauge (GET /metrics, served in
 * development mode) reaches `n()` (the polls not answered yet) or the timeout passes; returns the
 * last value read (-1: no gauge).
 */
async function waitUntilParked(serverPort: number, n: () => number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let parked = -1;
  while (Date.now() < deadline) {
    const r = await request(agent, serverPort, 'GET', '/metrics', null);
    const m = /^zulip_event_long_polls_parked (\d+)/m.exec(typeof r.body.raw === 'string' ? r.body.raw : '');
    if (!m) return -1; // no metrics here: fall back to the caller's pause
    parked = Number(m[1]);
    if (parked >= n()) break;
    await new Promise((res) => setTimeout(res, 200));
  }
  return parked;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function handle(msg: Command): Promise<Record<string, unknown>> {
  switch (msg.cmd) {
    case 'register': {
      port = msg.port;
      const started = Date.now();
      const made: Queue[] = new Array<Queue>(msg.users.length);
      let failures = 0;
      await forEachLimit(msg.users, msg.concurrency, async (u, i) => {
        const auth = basicAuth(u.email, u.key);
        const r = await request(agent, port, 'POST', '/api/v1/register', auth, {
          event_types: '["message"]',
          fetch_event_types: '[]',
        });
        if (r.status !== 200) {
          failures++;
          if (failures === 1) console.error(`register failed: ${JSON.stringify(r.body)}`);
          return;
        }
        made[i] = { port, auth, queueId: r.body.queue_id as string, lastEventId: r.body.last_event_id as number };
      });
      queues = made.filter(Boolean);
      return { registered: queues.length, failures, seconds: (Date.now() - started) / 1000 };
    }
    case 'prime': {
      port = msg.port;
      let failures = 0;
      await forEachLimit(msg.users, msg.concurrency, async (u) => {
        const r = await request(agent, port, 'GET', '/api/v1/users/me', basicAuth(u.email, u.key));
        if (r.status !== 200) failures++;
      });
      return { failures };
    }
    case 'ceiling': {
      ceilingPort = msg.port;
      ceilingQueues = Array.from({ length: msg.n }, (_, i) => ({
        port: msg.port,
        auth: '',
        queueId: '',
        lastEventId: -1,
        path: i === 0 ? '/poll?sender=1' : '/poll',
      }));
      return {};
    }
    case 'park': {
      const ceiling = msg.target === 'ceiling';
      // The other server's connections are closed first: both sets open at once would need twice
      // the file descriptors (20,000 at N = 10,000). The next round on it connects again, before
      // the measured send.
      for (const q of ceiling ? queues : ceilingQueues) {
        q.connection?.close();
        q.connection = undefined;
      }
      polled = ceiling ? ceilingQueues : queues;
      arrivals = polled.map(() => null);
      pollErrors = 0;
      failureKinds = {};
      retries = 0;
      const started = Date.now();
      polled.forEach((q, i) => poll(q, i));
      // Written is not parked: the server may still be reading them. Wait for its gauge.
      const unanswered = () => arrivals.reduce((k, a) => (a === null ? k + 1 : k), 0);
      const serverParked = await waitUntilParked(ceiling ? ceilingPort : port, unanswered, 600_000);
      return { parked: polled.length, serverParked, parkedSeconds: (Date.now() - started) / 1000 };
    }
    case 'send': {
      const expected = polled.length;
      const done = new Promise<void>((resolve) => {
        let count = 0;
        onArrival = () => {
          if (++count >= expected) resolve();
        };
      });
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const content = 'An event benchmark message';
      const sent =
        msg.target === 'ceiling'
          ? await request(
              agent,
              ceilingPort,
              'POST',
              `/send?channel=${msg.channelId}&sender=${msg.senderId}&wake=1`,
              null,
              { topic: msg.topic, content },
            )
          : await request(agent, port, 'POST', '/api/v1/messages', basicAuth(msg.sender.email, msg.sender.key), {
              type: 'stream',
              to: msg.channel,
              topic: msg.topic,
              content,
            });
      const sendMs = Number(process.hrtime.bigint() - t0) / 1e6;
      if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`);
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000));
      const outcome = await Promise.race([done, timeout]);
      onArrival = null;
      const cpu = process.cpuUsage(cpu0);
      const latencies = arrivals
        .filter((a): a is bigint => a !== null)
        .map((a) => Number(a - t0) / 1e6)
        .sort((a, b) => a - b);
      return {
        sendMs,
        /** This process's CPU (µs) from the send to the last answer. */
        clientCpuUs: cpu.user + cpu.system,
        delivered: latencies.length,
        expected,
        timedOut: outcome === 'timeout',
        errors: pollErrors,
        failureKinds,
        retries,
        p50ms: percentile(latencies, 50),
        p99ms: percentile(latencies, 99),
        maxMs: latencies[latencies.length - 1] ?? 0,
        latencies,
      };
    }
    case 'exit':
      agent.destroy();
      for (const q of [...queues, ...ceilingQueues]) q.connection?.close();
      setImmediate(() => process.exit(0));
      return {};
  }
}

process.on('message', (msg: Command & { id: number }) => {
  handle(msg).then(
    (reply) => process.send!({ id: msg.id, ok: true, ...reply }),
    (err: unknown) => process.send!({ id: msg.id, ok: false, error: String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
