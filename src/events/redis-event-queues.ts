import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import Redis, { type ChainableCommander } from 'ioredis';
import { MAX_QUEUE_EVENTS, MAX_QUEUES_PER_USER, PollAnswer, QueuedEvent, QueueOptions } from './event-queue';
import type { QueueCustomizer, EventQueueBackend, EventQueueStats, QueueInfo, ZulipEvent } from './event-queue-backend';
import { queueAcceptsEvent } from './event-filter';
import { eventJson, eventJsonKey, storedEvent } from './event-json';
import { EventQueueErrors } from './event.errors';
import { PollWaker, type Wakeable } from './poll-waker';
import { decodeQueueOptions, encodeQueueOptions, shareQueueOptions } from './queue-options';

/**
 * Event queues in Redis, shared by every instance:
 * - `<p>:q:<id>`   hash: user, realm, opts (compact JSON, see encodeQueueOptions; small enough for
 *                  Redis's compact hash encoding), next (next event id), pruned (newest pruned
 *                  id), created (ms)
 * - `<p>:e:<id>`   stream: one entry per event, entry id `<event id + 1>-0`, field `e` = JSON
 * - `<p>:u:<user>` set of the user's queue ids (the per-user index used by delivery)
 * - `<p>:idle`     sorted set queue id → last activity (ms): the last poll or its end; while a
 *                  poll is parked, the time its heartbeat is due (renewed by each GC pass of the
 *                  instance holding it), so the queues of an instance that died are collected
 *                  once that time is older than the idle timeout
 * - `<p>:wake`     pub/sub channel: the ids of queues events were added to, space-separated (one
 *                  message per push call: a delivery to 10,000 queues publishes 50, not 10,000)
 * - `<p>:gone`     pub/sub channel: a queue id, published when the queue is removed (every
 *                  instance drops its cached options and answers a poll parked on it)
 * Pushing and pruning are Lua scripts, so they are atomic whichever instance runs them.
 */

/** KEYS: queue hash, event stream. ARGV: event JSON (without id), max length, wake channel, queue id. */
const PUSH_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local id = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('XADD', KEYS[2], (id + 1) .. '-0', 'e', ARGV[1])
if redis.call('XLEN', KEYS[2]) > tonumber(ARGV[2]) then
  redis.call('XTRIM', KEYS[2], 'MAXLEN', ARGV[2])
  local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
  local fid = tonumber(string.match(first[1][1], '^(%d+)'))
  redis.call('HSET', KEYS[1], 'pruned', fid - 2)
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return id
`;

/**
 * PUSH_SCRIPT for many queues in one call (a delivery's pushes, in order). KEYS: queue hash and
 * event stream of each queue. ARGV: max length, wake channel, k, the k distinct event JSONs, then
 * for each queue the (1-based) index of its JSON among them and its id. Returns each queue's event
 * id (-1: the queue is gone). The JSONs go once per call: most queues of a delivery get the same.
 * The queues pushed to are published in one wake message (every instance parses every message).
 */
const PUSH_MANY_SCRIPT = `
local max = tonumber(ARGV[1])
local k = tonumber(ARGV[3])
local out = {}
local pushed = {}
for i = 1, #KEYS / 2 do
  local q = KEYS[2 * i - 1]
  local e = KEYS[2 * i]
  local at = 3 + k + 2 * (i - 1)
  if redis.call('EXISTS', q) == 0 then
    out[i] = -1
  else
    local id = redis.call('HINCRBY', q, 'next', 1) - 1
    redis.call('XADD', e, (id + 1) .. '-0', 'e', ARGV[3 + tonumber(ARGV[at + 1])])
    if redis.call('XLEN', e) > max then
      redis.call('XTRIM', e, 'MAXLEN', max)
      local first = redis.call('XRANGE', e, '-', '+', 'COUNT', 1)
      local fid = tonumber(string.match(first[1][1], '^(%d+)'))
      redis.call('HSET', q, 'pruned', fid - 2)
    end
    pushed[#pushed + 1] = ARGV[at + 2]
    out[i] = id
  end
end
if #pushed > 0 then redis.call('PUBLISH', ARGV[2], table.concat(pushed, ' ')) end
return out
`;

/** KEYS: sets. Returns the members of each (a delivery's users' queue ids, one command for many users). */
const MEMBERS_MANY_SCRIPT = `
local out = {}
for i = 1, #KEYS do out[i] = redis.call('SMEMBERS', KEYS[i]) end
return out
`;

/** Most queues pushed to by one PUSH_MANY_SCRIPT call (Redis runs a script without a break). */
const PUSH_MANY_QUEUES = 200;

/**
 * KEYS: queue hash, event stream. ARGV: last event id, user id.
 * Returns {status} or {'ok', entries} with the events after the acknowledged one.
 */
const ACK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'bad'} end
if redis.call('HGET', KEYS[1], 'user') ~= ARGV[2] then return {'forbidden'} end
local last = tonumber(ARGV[1])
local pruned = redis.call('HGET', KEYS[1], 'pruned')
if pruned and last < tonumber(pruned) then return {'too_old'} end
local old = redis.call('XRANGE', KEYS[2], '-', (last + 1) .. '-0')
if #old > 0 then
  local maxid = tonumber(string.match(old[#old][1], '^(%d+)')) - 1
  redis.call('XTRIM', KEYS[2], 'MINID', (last + 2) .. '-0')
  redis.call('HSET', KEYS[1], 'pruned', maxid)
  pruned = tostring(maxid)
end
if pruned and last ~= tonumber(pruned) then return {'not_in_queue'} end
return {'ok', redis.call('XRANGE', KEYS[2], '-', '+')}
`;

type StreamEntry = [string, string[]];

/** Most time spent building one pipeline of a delivery's pushes before the loop is let go. */
const PUSH_SLICE_MS = 4;

/** Most commands of one pipeline of a delivery's reads (queue lists, queue options). */
const READ_PIPELINE = 1000;

/** Most woken queues read back in one pipeline. */
const READ_BATCH = 500;

interface Waiter {
  userId: number;
  lastEventId: number;
  heartbeatMs: number;
  answer: PollAnswer;
  timer: NodeJS.Timeout;
}

/**
 * Sends a pipeline; its promise is awaited later (after other turns of the loop): marked handled
 * now, so that a failure waiting meanwhile is not an unhandled rejection.
 */
function execHandled(pipe: ReturnType<Redis['pipeline']>): Promise<Array<[Error | null, unknown]> | null> {
  const result = pipe.exec();
  result.catch(() => undefined);
  return result;
}

type ParsedCache = Map<string, { type: string; [key: string]: unknown }>;

function toEvents(entries: StreamEntry[], parsed?: ParsedCache): QueuedEvent[] {
  return entries.map(([streamId, fields]) => {
    const json = fields[fields.indexOf('e') + 1];
    return storedEvent(json, Number(streamId.split('-')[0]) - 1, parsed);
  });
}

/** The pushes of one pipeline of a delivery: queue ids and the JSON pushed to each. */
interface PushBatch {
  queueIds: string[];
  json: string[];
  /** How many queues each command of the pipeline (a PUSH_MANY_SCRIPT call) pushes to. */
  sizes: number[];
}

/** One PUSH_MANY_SCRIPT call being built. */
class PushCall {
  readonly keys: string[] = [];
  readonly tail: Array<string | number> = [];
  readonly jsons: string[] = [];
  private readonly index = new Map<string, number>();

  add(q: string, e: string, queueId: string, json: string): void {
    let at = this.index.get(json);
    if (at === undefined) {
      this.jsons.push(json);
      at = this.jsons.length;
      this.index.set(json, at);
    }
    this.keys.push(q, e);
    this.tail.push(at, queueId);
  }

  get size(): number {
    return this.keys.length / 2;
  }
}

export class RedisEventQueues implements EventQueueBackend {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly waiters = new Map<string, Waiter>();
  /** Queue options never change after registration, so they are cached per queue id. */
  private readonly infoCache = new Map<string, QueueInfo>();
  private readonly logger = new Logger('RedisEventQueues');
  private readonly wakeChannel: string;
  private readonly goneChannel: string;
  private readonly maxQueuesPerUser: number;
  private ready: Promise<void>;
  private delivered = 0;
  private readonly waker = new PollWaker();
  /** Queues woken in this tick, read together (see {@link wake}). */
  private toRead: string[] = [];
  /** Queues whose woken poll was answered in this turn, their time recorded together. */
  private toTouch: string[] = [];
  /**
   * Queues this instance is pushing to (pipelines sent, replies not read yet) → how many pushes.
   * Their wake-ups (PUBLISH) are left to the push's reply, which knows the event's id and JSON:
   * a poll parked here waiting for just that event is answered without reading the queue back
   * (see {@link answerPushed}).
   */
  private readonly pushing = new Map<string, number>();
  /**
   * Queues whose parked poll is to be answered by answerPushed (PollWaker) → that poll: wake-ups
   * for that poll meanwhile (the PUBLISH of the push itself) read nothing back.
   */
  private readonly answering = new Map<string, Waiter>();

  constructor(
    url: string,
    private readonly prefix = 'zulip',
    opts: { maxQueuesPerUser?: number } = {},
  ) {
    this.maxQueuesPerUser = opts.maxQueuesPerUser ?? MAX_QUEUES_PER_USER;
    this.redis = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
    this.subscriber = new Redis(url, { maxRetriesPerRequest: null });
    this.wakeChannel = `${prefix}:wake`;
    this.goneChannel = `${prefix}:gone`;
    this.redis.defineCommand('zqPush', { numberOfKeys: 2, lua: PUSH_SCRIPT });
    this.redis.defineCommand('zqPushMany', { lua: PUSH_MANY_SCRIPT });
    this.redis.defineCommand('zqMembersMany', { lua: MEMBERS_MANY_SCRIPT });
    this.redis.defineCommand('zqAck', { numberOfKeys: 2, lua: ACK_SCRIPT });
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.goneChannel) this.forget(message);
      else if (message.includes(' ')) for (const queueId of message.split(' ')) this.wake(queueId);
      else this.wake(message);
    });
    this.ready = this.subscriber.subscribe(this.wakeChannel, this.goneChannel).then(() => undefined);
    this.redis.on('error', (err) => this.logger.error(`redis: ${err.message}`));
    this.subscriber.on('error', (err) => this.logger.error(`redis subscriber: ${err.message}`));
  }

  private q = (id: string) => `${this.prefix}:q:${id}`;
  private e = (id: string) => `${this.prefix}:e:${id}`;
  private u = (userId: number) => `${this.prefix}:u:${userId}`;
  private idle = () => `${this.prefix}:idle`;

  private push(queueId: string, event: ZulipEvent): Promise<number> {
    const cmd = (this.redis as unknown as { zqPush: (...a: unknown[]) => Promise<number> }).zqPush;
    return cmd.call(this.redis, ...this.pushArgsOf(queueId, event));
  }

  /** Adds a call pushing to many queues to a pipeline (custom commands are defined on pipelines too). */
  private pushManyArgs(pipe: ReturnType<Redis['pipeline']>, call: PushCall, batch: PushBatch): void {
    const cmd = (pipe as unknown as { zqPushMany: (...a: unknown[]) => unknown }).zqPushMany;
    cmd.call(
      pipe,
      call.keys.length,
      ...call.keys,
      MAX_QUEUE_EVENTS,
      this.wakeChannel,
      call.jsons.length,
      ...call.jsons,
      ...call.tail,
    );
    batch.sizes.push(call.size);
  }

  /** Sends a delivery's pipeline of pushes; their replies answer the polls parked here. */
  private sendPushes(
    pipe: ReturnType<Redis['pipeline']>,
    batch: PushBatch,
    parsed: ParsedCache,
  ): Promise<Array<[Error | null, unknown]> | null> {
    for (const id of batch.queueIds) this.pushing.set(id, (this.pushing.get(id) ?? 0) + 1);
    const result = execHandled(pipe);
    const done = (replies: Array<[Error | null, unknown]> | null) => this.answerPushed(batch, replies, parsed);
    result.then(done, () => done(null));
    return result;
  }

  /**
   * The replies of a pipeline of pushes: a poll parked here whose queue had nothing after its
   * acknowledged event but the one pushed (its id is the next one) is answered with that event,
   * from the JSON pushed (no read back, no wake-up round trip). Any other poll parked on these
   * queues (an older event pending too, or a failed push) is woken as a PUBLISH would.
   */
  private answerPushed(batch: PushBatch, replies: Array<[Error | null, unknown]> | null, parsed: ParsedCache): void {
    const woken: Wakeable[] = [];
    const { queueIds, json, sizes } = batch;
    // Each queue's reply: its event id, or NaN (the call failed).
    const ids: number[] = [];
    sizes.forEach((size, c) => {
      const reply = replies?.[c];
      const got = reply && !reply[0] && Array.isArray(reply[1]) ? (reply[1] as unknown[]) : [];
      for (let j = 0; j < size; j++) ids.push(j < got.length ? Number(got[j]) : NaN);
    });
    for (let i = 0; i < queueIds.length; i++) {
      const queueId = queueIds[i];
      const left = (this.pushing.get(queueId) ?? 1) - 1;
      if (left > 0) this.pushing.set(queueId, left);
      else this.pushing.delete(queueId);
      const waiter = this.waiters.get(queueId);
      if (!waiter) continue;
      const id = ids[i];
      if (id === waiter.lastEventId + 1 && left === 0) {
        const stored = json[i];
        this.answering.set(queueId, waiter);
        woken.push({
          wake: () => {
            if (this.answering.get(queueId) === waiter) this.answering.delete(queueId);
            if (this.waiters.get(queueId) === waiter) this.finishWoken(queueId, [storedEvent(stored, id, parsed)]);
          },
        });
      } else if (left === 0) {
        this.wake(queueId);
      }
    }
    this.waker.wakeLater(woken);
  }

  private pushArgsOf(queueId: string, event: ZulipEvent, json = eventJson(event)): unknown[] {
    // eventJson: a message's dict, shared by the queues, is serialised once for all of them.
    return [this.q(queueId), this.e(queueId), json, MAX_QUEUE_EVENTS, this.wakeChannel, queueId];
  }

  async allocate(options: QueueOptions): Promise<{ id: string; lastEventId: number }> {
    await this.ready;
    // join() makes one flat string (a template literal makes a chain of concatenations).
    const id = [Math.floor(Date.now() / 1000), ':', randomBytes(8).toString('hex')].join('');
    const now = Date.now();
    const results = await this.redis
      .multi()
      .hset(this.q(id), {
        user: String(options.userId),
        realm: String(options.realmId),
        opts: encodeQueueOptions(options),
        next: '0',
        created: String(now),
      })
      .sadd(this.u(options.userId), id)
      .zadd(this.idle(), now, id)
      .scard(this.u(options.userId))
      .exec();
    this.infoCache.set(id, { id, options: shareQueueOptions(options) });
    const count = Number(results?.[3]?.[1] ?? 0);
    if (count > this.maxQueuesPerUser) await this.evictOldest(options.userId, id);
    return { id, lastEventId: -1 };
  }

  /** Removes the user's oldest queues (by creation) past the per-user cap, never `keep`. */
  private async evictOldest(userId: number, keep: string): Promise<void> {
    const ids = (await this.redis.smembers(this.u(userId))).filter((q) => q !== keep);
    const pipe = this.redis.pipeline();
    for (const q of ids) pipe.hget(this.q(q), 'created');
    const created = ((await pipe.exec()) ?? []).map((r) => Number((r?.[1] as string | null) ?? 0));
    const oldestFirst = ids.map((q, i) => ({ q, at: created[i] })).sort((a, b) => a.at - b.at || (a.q < b.q ? -1 : 1));
    const excess = oldestFirst.length + 1 - this.maxQueuesPerUser;
    for (const { q } of oldestFirst.slice(0, Math.max(0, excess))) await this.remove(q, userId);
  }

  /**
   * One read command per item, sent as pipelines of at most {@link READ_PIPELINE} commands with
   * the loop free between them (building, and later parsing the replies of, 10,000 commands in
   * one go held the loop for 20–30 ms); the replies in the items' order.
   */
  private async pipelinedReads<T>(
    items: readonly T[],
    add: (pipe: ChainableCommander, item: T) => void,
  ): Promise<Array<[Error | null, unknown]>> {
    const sent: Array<Promise<Array<[Error | null, unknown]> | null>> = [];
    for (let i = 0; i < items.length; i += READ_PIPELINE) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      const pipe = this.redis.pipeline();
      for (let j = i; j < Math.min(items.length, i + READ_PIPELINE); j++) add(pipe, items[j]);
      sent.push(pipe.exec());
    }
    const out: Array<[Error | null, unknown]> = [];
    for (const replies of await Promise.all(sent)) for (const r of replies ?? []) out.push(r);
    return out;
  }

  /**
   * The queue ids of each user, in the users' order: one script call per {@link READ_PIPELINE}
   * users, the calls in one pipeline (a command per user cost more than the reads themselves).
   */
  private async queueIdsOfUsers(users: readonly number[]): Promise<string[][]> {
    const pipe = this.redis.pipeline();
    const cmd = (pipe as unknown as { zqMembersMany: (...a: unknown[]) => unknown }).zqMembersMany;
    for (let i = 0; i < users.length; i += READ_PIPELINE) {
      const keys = users.slice(i, i + READ_PIPELINE).map((u) => this.u(u));
      cmd.call(pipe, keys.length, ...keys);
    }
    const replies = (await pipe.exec()) ?? [];
    const out: string[][] = [];
    for (let i = 0, c = 0; i < users.length; i += READ_PIPELINE, c++) {
      // A failed read leaves its users without queues here, as a failed SMEMBERS did.
      const sets = replies[c] && !replies[c][0] ? (replies[c][1] as string[][]) : [];
      for (let j = i; j < Math.min(users.length, i + READ_PIPELINE); j++) out.push(sets[j - i] ?? []);
    }
    return out;
  }

  private async infos(queueIds: string[]): Promise<QueueInfo[]> {
    const missing = queueIds.filter((id) => !this.infoCache.has(id));
    if (missing.length > 0) {
      const results = await this.pipelinedReads(missing, (pipe, id) => pipe.hmget(this.q(id), 'opts', 'user', 'realm'));
      missing.forEach((id, i) => {
        const [opts, user, realm] = (results[i]?.[1] as Array<string | null> | undefined) ?? [];
        if (opts) this.infoCache.set(id, { id, options: decodeQueueOptions(opts, Number(user), Number(realm)) });
      });
    }
    return queueIds.map((id) => this.infoCache.get(id)).filter((x): x is QueueInfo => x !== undefined);
  }

  async deliver(realmId: number, event: ZulipEvent, userIds: number[], customize?: QueueCustomizer): Promise<void> {
    const users = [...new Set(userIds)];
    if (users.length === 0) return;
    const queueIdsOf = await this.queueIdsOfUsers(users);
    const missing = new Set<string>();
    for (const ids of queueIdsOf) for (const id of ids) missing.add(id);
    await this.infos([...missing]);
    // Pipelines of the pushes, in order on the one connection (each push atomic on its own): a
    // pipeline per slice of PUSH_SLICE_MS, the loop free in between (building 10,000 commands at
    // once blocked it for tens of ms).
    const sent: Array<Promise<Array<[Error | null, unknown]> | null>> = [];
    const parsed: ParsedCache = new Map();
    const jsonByKey = new Map<string, string>();
    let pushes = this.redis.pipeline();
    let batch: PushBatch = { queueIds: [], json: [], sizes: [] };
    let call = new PushCall();
    let inPipe = 0;
    let count = 0;
    let end = performance.now() + PUSH_SLICE_MS;
    for (let i = 0; i < users.length; i++) {
      const queueIds = queueIdsOf[i];
      for (const queueId of queueIds) {
        const info = this.infoCache.get(queueId);
        if (!info) continue;
        const o = info.options;
        if (o.realmId !== realmId || (o.eventTypes !== null && !o.eventTypes.includes(event.type))) continue;
        const queued = customize ? customize(info, users[i]) : event;
        if (queueAcceptsEvent(o, queued)) {
          // The same JSON string for the same events: one copy, and found again by identity.
          const key = eventJsonKey(queued);
          let json = jsonByKey.get(key);
          if (json === undefined) {
            json = eventJson(queued);
            jsonByKey.set(key, json);
          }
          call.add(this.q(info.id), this.e(info.id), info.id, json);
          if (call.size >= PUSH_MANY_QUEUES) {
            this.pushManyArgs(pushes, call, batch);
            call = new PushCall();
          }
          batch.queueIds.push(info.id);
          batch.json.push(json);
          inPipe++;
          count++;
        }
      }
      if (inPipe > 0 && performance.now() >= end) {
        if (call.size > 0) this.pushManyArgs(pushes, call, batch);
        call = new PushCall();
        sent.push(this.sendPushes(pushes, batch, parsed));
        pushes = this.redis.pipeline();
        batch = { queueIds: [], json: [], sizes: [] };
        inPipe = 0;
        await new Promise((resolve) => setImmediate(resolve));
        end = performance.now() + PUSH_SLICE_MS;
      }
    }
    if (inPipe > 0) {
      if (call.size > 0) this.pushManyArgs(pushes, call, batch);
      sent.push(this.sendPushes(pushes, batch, parsed));
    }
    for (const replies of await Promise.all(sent)) for (const [err] of replies ?? []) if (err) throw err;
    this.delivered += count;
  }

  async getEvents(
    userId: number,
    queueId: string,
    lastEventId: number,
    dontBlock: boolean,
    heartbeatMs: number,
    onClose: (cb: () => void) => void,
    answer?: PollAnswer,
  ): Promise<QueuedEvent[] | null> {
    await this.ready;
    const ack = (this.redis as unknown as { zqAck: (...a: unknown[]) => Promise<[string, StreamEntry[]?]> }).zqAck;
    const [status, entries] = await ack.call(this.redis, this.q(queueId), this.e(queueId), lastEventId, String(userId));
    switch (status) {
      case 'bad':
        throw EventQueueErrors.badQueueId(queueId);
      case 'forbidden':
        throw EventQueueErrors.notYourQueue();
      case 'too_old':
        throw EventQueueErrors.alreadyPruned(lastEventId);
      case 'not_in_queue':
        throw EventQueueErrors.notInQueue(lastEventId);
    }
    const events = toEvents(entries ?? []);
    if (events.length > 0 || dontBlock) {
      await this.redis.zadd(this.idle(), 'XX', Date.now(), queueId);
      return events;
    }
    // Park the poll. A newer poll on this instance replaces an older one, as in Zulip. The idle
    // score is when the poll's heartbeat is due (a lease GC passes here renew while it is parked).
    this.finish(queueId, []);
    await this.redis.zadd(this.idle(), 'XX', Date.now() + heartbeatMs, queueId);
    if (answer) {
      this.park(userId, queueId, lastEventId, heartbeatMs, answer, onClose);
      return null;
    }
    return new Promise<QueuedEvent[]>((resolve) =>
      this.park(userId, queueId, lastEventId, heartbeatMs, resolve, onClose),
    );
  }

  private park(
    userId: number,
    queueId: string,
    lastEventId: number,
    heartbeatMs: number,
    answer: PollAnswer,
    onClose: (cb: () => void) => void,
  ): void {
    const timer = setTimeout(
      () =>
        void this.push(queueId, { type: 'heartbeat' })
          // -1: the queue is gone (removed elsewhere); the client's next poll says so.
          .then((id) => id < 0 && this.finish(queueId, [], false))
          .catch(() => undefined),
      heartbeatMs,
    );
    timer.unref?.();
    const waiter: Waiter = { userId, lastEventId, heartbeatMs, answer, timer };
    this.waiters.set(queueId, waiter);
    onClose(() => {
      if (this.waiters.get(queueId) === waiter) this.finish(queueId, []);
    });
    // An event may have arrived between the read above and parking.
    this.wake(queueId);
  }

  /**
   * Called for every published queue id: answers a poll parked here, if any. The ids published
   * by one delivery arrive together: their reads go to Redis as one pipeline (one write), the
   * answers are written in slices over turns of the loop (PollWaker).
   */
  private wake(queueId: string): void {
    // A push of this instance in flight, or its answer on the way: that answers the poll
    // (answerPushed); an event pushed meanwhile by another instance is for the next poll.
    const waiter = this.waiters.get(queueId);
    if (!waiter || this.pushing.has(queueId) || this.answering.get(queueId) === waiter) return;
    if (this.toRead.length === 0) process.nextTick(() => void this.readWoken());
    this.toRead.push(queueId);
  }

  private async readWoken(): Promise<void> {
    // At most READ_BATCH reads per pipeline (the rest in the next turn): building the commands
    // and then the answers' wake-ups for 10,000 queues at once blocked the loop.
    const ids = this.toRead.length <= READ_BATCH ? this.toRead : this.toRead.splice(0, READ_BATCH);
    if (ids === this.toRead) this.toRead = [];
    else setImmediate(() => void this.readWoken());
    const waiters: Array<Waiter | undefined> = [];
    const pipe = this.redis.pipeline();
    for (const queueId of ids) {
      const waiter = this.waiters.get(queueId);
      waiters.push(waiter);
      if (waiter) pipe.xrange(this.e(queueId), `(${waiter.lastEventId + 1}-0`, '+');
    }
    const results = pipe.length > 0 ? ((await pipe.exec().catch(() => null)) ?? []) : [];
    const woken: Wakeable[] = [];
    const parsed: ParsedCache = new Map();
    let r = 0;
    ids.forEach((queueId, i) => {
      const waiter = waiters[i];
      if (!waiter) return;
      const [err, entries] = results[r++] ?? [null, []];
      if (err || (entries as StreamEntry[]).length === 0) return;
      woken.push({
        wake: () => {
          if (this.waiters.get(queueId) === waiter)
            this.finishWoken(queueId, toEvents(entries as StreamEntry[], parsed));
        },
      });
    });
    this.waker.wakeLater(woken);
  }

  /** Answers the poll parked here on the queue, if any; `touch`: record the time (not when gone). */
  private finish(queueId: string, events: QueuedEvent[], touch = true): void {
    const waiter = this.waiters.get(queueId);
    if (!waiter) return;
    this.waiters.delete(queueId);
    if (this.answering.get(queueId) === waiter) this.answering.delete(queueId);
    clearTimeout(waiter.timer);
    waiter.answer(events);
    if (touch) void this.redis.zadd(this.idle(), 'XX', Date.now(), queueId).catch(() => undefined);
  }

  /**
   * {@link finish} for a woken poll: the times of the polls answered in one turn are recorded
   * together (one command, written before the loop reads anything else, so before a next poll).
   */
  private finishWoken(queueId: string, events: QueuedEvent[]): void {
    this.finish(queueId, events, false);
    if (this.toTouch.length === 0) {
      process.nextTick(() => {
        // One ZADD of every (time, queue) pair: one command and one reply, not one per queue.
        const now = Date.now();
        const args: Array<string | number> = [];
        for (const id of this.toTouch) args.push(now, id);
        this.toTouch = [];
        void this.redis.zadd(this.idle(), 'XX', ...args).catch(() => undefined);
      });
    }
    this.toTouch.push(queueId);
  }

  async deleteQueue(userId: number, queueId: string): Promise<void> {
    const owner = await this.redis.hget(this.q(queueId), 'user');
    if (owner === null) throw EventQueueErrors.badQueueId(queueId);
    if (owner !== String(userId)) throw EventQueueErrors.notYourQueue();
    await this.remove(queueId, userId);
  }

  private async remove(queueId: string, userId: number): Promise<void> {
    this.forget(queueId);
    await this.redis
      .multi()
      .del(this.q(queueId), this.e(queueId))
      .srem(this.u(userId), queueId)
      .zrem(this.idle(), queueId)
      .publish(this.goneChannel, queueId)
      .exec();
  }

  /** A queue was removed (here or by another instance): drop what this instance holds for it. */
  private forget(queueId: string): void {
    this.finish(queueId, [], false);
    this.infoCache.delete(queueId);
  }

  /**
   * Renews the lease of the polls parked here (this instance is alive), removes queues idle for
   * `idleMs` (a poll parked on an instance that died renews nothing), and drops cached options of
   * queues that are gone (a missed `gone` message).
   */
  async collectGarbage(idleMs: number): Promise<number> {
    const now = Date.now();
    if (this.waiters.size > 0) {
      const renew = this.redis.pipeline();
      for (const [queueId, w] of this.waiters) renew.zadd(this.idle(), 'XX', now + w.heartbeatMs, queueId);
      await renew.exec();
    }
    // Scores of +inf were written by earlier versions for parked polls: from now on they age.
    const parkedBefore = await this.redis.zrangebyscore(this.idle(), '+inf', '+inf', 'LIMIT', 0, 1000);
    if (parkedBefore.length > 0) {
      const fix = this.redis.pipeline();
      for (const queueId of parkedBefore) fix.zadd(this.idle(), 'XX', now, queueId);
      await fix.exec();
    }
    const stale = await this.redis.zrangebyscore(this.idle(), '-inf', now - idleMs, 'LIMIT', 0, 1000);
    for (const queueId of stale) {
      const owner = await this.redis.hget(this.q(queueId), 'user');
      await this.remove(queueId, Number(owner ?? -1));
    }
    await this.pruneInfoCache();
    return stale.length;
  }

  private async pruneInfoCache(): Promise<void> {
    const ids = [...this.infoCache.keys()];
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      const scores = await this.redis.zmscore(this.idle(), ...chunk);
      chunk.forEach((id, j) => {
        if (scores[j] === null) this.infoCache.delete(id);
      });
    }
  }

  /** For tests: how many queues' options this instance holds. */
  cachedQueueCount(): number {
    return this.infoCache.size;
  }

  async hasActiveClient(userId: number, withinMs: number): Promise<boolean> {
    const queueIds = await this.redis.smembers(this.u(userId));
    if (queueIds.length === 0) return false;
    const scores = await this.redis.zmscore(this.idle(), ...queueIds);
    const since = Date.now() - withinMs;
    return scores.some((s) => s !== null && (s === 'inf' || Number(s) >= since));
  }

  releasePolls(): void {
    for (const queueId of [...this.waiters.keys()]) this.finish(queueId, []);
  }

  async stats(): Promise<EventQueueStats> {
    return { queues: await this.redis.zcard(this.idle()), parkedPolls: this.waiters.size, delivered: this.delivered };
  }

  async close(): Promise<void> {
    // A subscription still being set up would fail once disconnected.
    await this.ready.catch(() => undefined);
    for (const queueId of [...this.waiters.keys()]) this.finish(queueId, []);
    this.subscriber.disconnect();
    await this.redis.quit().catch(() => undefined);
  }
}
