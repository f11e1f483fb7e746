/**
 * The ceiling: a minimal node:http + pg server doing the same database work as the product's
 * hot paths with nothing else (no framework, no auth, no validation, no Markdown, no events).
 * Started by the benchmark as its own process (env PORT, DATABASE_URL, POOL_SIZE).
 *
 *   GET  /hello                            a constant JSON body (ceiling of GET /server_settings)
 *   POST /send?channel=ID&sender=ID        form body topic, content: the product's send statement
 *                                          (message + UserMessage rows + first_message_id, one
 *                                          named prepared statement) for the channel's active
 *                                          subscribers (loaded once and cached)
 *   GET  /fetch?channel=ID&user=ID&num=N   the newest N messages of the channel with the user's
 *                                          flags, sender and reactions: one named prepared
 *                                          statement, serialised like the product's message dicts
 *   GET  /poll[?sender=1]                  a long-poll: parked until the next send with wake=1
 *   POST /send?…&wake=1                    the send above, then every parked poll answered with the
 *                                          message event (the dict serialised once, per-poll flags
 *                                          and event id), in 5 ms slices of the event loop as the
 *                                          product's PollWaker answers (its loop-delay target)
 *   GET  /metrics                          `zulip_event_long_polls_parked N`, as the product's gauge
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { installPgTypeParsers } from '../src/database/pg-types';

// The product's timestamp parser (src/data-source-options.ts), so that both read rows alike.
installPgTypeParsers();

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
  application_name: 'bench-ceiling',
});

/** The text of MessagesRepository.insertMessage for a channel message (msg_insert_channel). */
const INSERT_CHANNEL_MESSAGE = `
      WITH m AS (
        INSERT INTO message (realm_id, sender_id, recipient_id, subject, content, rendered_content,
                             rendered_content_version, date_sent, sending_client, has_attachment,
                             has_image, has_link, is_channel_message, type)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
        RETURNING id
      ), um AS (
        INSERT INTO user_message (user_profile_id, message_id, flags)
        SELECT r.user_id, m.id, r.flags FROM m, unnest($15::int[], $16::bigint[]) AS r(user_id, flags)
      ), first AS (
               UPDATE stream SET first_message_id = m.id FROM m
                WHERE stream.id = $17 AND stream.first_message_id IS NULL
             )
             SELECT id FROM m`;

const FETCH_NEWEST = `
  SELECT m.id, m.sender_id, m.recipient_id, m.subject, m.content, m.rendered_content,
         extract(epoch FROM m.date_sent)::bigint AS ts, m.sending_client,
         extract(epoch FROM m.last_edit_time)::bigint AS last_edit_ts,
         coalesce((SELECT um.flags FROM user_message um WHERE um.user_profile_id = $2 AND um.message_id = m.id),
                  2048)::int AS flags,
         u.full_name, u.delivery_email, u.avatar_source, u.avatar_version,
         (SELECT coalesce(json_agg(json_build_object('emoji_name', r.emoji_name, 'emoji_code', r.emoji_code,
                                                     'reaction_type', r.reaction_type, 'user_id', r.user_profile_id)
                                   ORDER BY r.id), '[]')
            FROM reaction r WHERE r.message_id = m.id) AS reactions
    FROM message m
    JOIN user_profile u ON u.id = m.sender_id
   WHERE m.realm_id = $1 AND m.recipient_id = $3
   ORDER BY m.id DESC LIMIT $4`;

interface Channel {
  id: number;
  realmId: number;
  name: string;
  recipientId: number;
  subscribers: number[];
}

const channels = new Map<number, Promise<Channel>>();

function channel(id: number): Promise<Channel> {
  let c = channels.get(id);
  if (!c) {
    c = (async () => {
      const { rows } = await pool.query<{ realm_id: number; name: string; recipient_id: number; subs: number[] }>(
        `SELECT s.realm_id, s.name, s.recipient_id,
                ARRAY(SELECT sub.user_profile_id FROM subscription sub JOIN user_profile u ON u.id = sub.user_profile_id
                       WHERE sub.recipient_id = s.recipient_id AND sub.active AND u.is_active ORDER BY 1) AS subs
           FROM stream s WHERE s.id = $1`,
        [id],
      );
      if (rows.length === 0) throw new Error(`no channel ${id}`);
      const r = rows[0];
      return { id, realmId: r.realm_id, name: r.name, recipientId: r.recipient_id, subscribers: r.subs };
    })();
    channels.set(id, c);
  }
  return c;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A parked GET /poll: its response, and whether it is the sender's (its flags say read). */
interface ParkedPoll {
  res: http.ServerResponse;
  sender: boolean;
}
let parked: ParkedPoll[] = [];
let eventId = 0;
/** As the product's PollWaker (src/events/poll-waker.ts): most time per turn answering polls. */
const WAKE_SLICE_MS = 5;

/**
 * Answers every parked poll with the message event of the send just made: the message dict as
 * the product's message event carries it, serialised once; each answer adds its flags and id.
 */
function wakePolls(c: Channel, id: number, senderId: number, topic: string, content: string): void {
  const polls = parked;
  parked = [];
  const message = JSON.stringify({
    id,
    sender_id: senderId,
    content: `<p>${escapeHtml(content)}</p>`,
    recipient_id: c.recipientId,
    timestamp: Math.floor(Date.now() / 1000),
    client: 'bench',
    subject: topic,
    topic_links: [],
    is_me_message: false,
    reactions: [],
    submessages: [],
    sender_full_name: 'King Hamlet',
    sender_email: 'hamlet@zulip.com',
    sender_realm_str: 'zulip',
    display_recipient: c.name,
    type: 'stream',
    stream_id: c.id,
    avatar_url: null,
    content_type: 'text/html',
  });
  const event = ++eventId;
  let next = 0;
  const run = () => {
    const end = performance.now() + WAKE_SLICE_MS;
    while (next < polls.length) {
      const p = polls[next++];
      const flags = p.sender ? '["read"]' : '[]';
      const text = `{"result":"success","msg":"","events":[{"type":"message","message":${message},"flags":${flags},"id":${event}}]}`;
      p.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      p.res.end(text);
      if (performance.now() >= end) break;
    }
    if (next < polls.length) setImmediate(run);
  };
  setImmediate(run);
}

async function send(url: URL, body: string, res: http.ServerResponse): Promise<void> {
  const form = new URLSearchParams(body);
  const c = await channel(Number(url.searchParams.get('channel')));
  const sender = Number(url.searchParams.get('sender'));
  const content = form.get('content') ?? '';
  const flags = c.subscribers.map((id) => (id === sender ? 1 : 0));
  const { rows } = await pool.query<{ id: number }>({
    name: 'ceiling_insert_channel',
    text: INSERT_CHANNEL_MESSAGE,
    values: [
      c.realmId,
      sender,
      c.recipientId,
      form.get('topic') ?? '',
      content,
      `<p>${escapeHtml(content)}</p>`,
      1,
      new Date(),
      'bench',
      false,
      false,
      false,
      true,
      1,
      c.subscribers,
      flags,
      c.id,
    ],
  });
  reply(res, 200, { result: 'success', msg: '', id: rows[0].id });
  if (url.searchParams.get('wake') === '1') wakePolls(c, rows[0].id, sender, form.get('topic') ?? '', content);
}

async function fetchNewest(url: URL, res: http.ServerResponse): Promise<void> {
  const c = await channel(Number(url.searchParams.get('channel')));
  const user = Number(url.searchParams.get('user'));
  const num = Number(url.searchParams.get('num') ?? 100);
  const { rows } = await pool.query<{
    id: number;
    sender_id: number;
    recipient_id: number;
    subject: string;
    content: string;
    rendered_content: string | null;
    ts: string;
    sending_client: string;
    last_edit_ts: string | null;
    flags: number;
    full_name: string;
    delivery_email: string;
    avatar_source: string;
    avatar_version: number;
    reactions: unknown[];
  }>({ name: 'ceiling_fetch_newest', text: FETCH_NEWEST, values: [c.realmId, user, c.recipientId, num] });
  const flagNames = (f: number) => {
    const out: string[] = [];
    if (f & 1) out.push('read');
    if (f & 2) out.push('starred');
    if (f & 2048) out.push('historical');
    return out;
  };
  const messages = rows.reverse().map((r) => ({
    id: r.id,
    sender_id: r.sender_id,
    content: r.rendered_content ?? r.content,
    recipient_id: r.recipient_id,
    timestamp: Number(r.ts),
    client: r.sending_client,
    subject: r.subject,
    topic_links: [],
    is_me_message: false,
    reactions: r.reactions,
    submessages: [],
    flags: flagNames(r.flags),
    sender_full_name: r.full_name,
    sender_email: r.delivery_email,
    sender_realm_str: 'zulip',
    display_recipient: c.name,
    type: 'stream',
    stream_id: c.id,
    avatar_url: null,
    content_type: 'text/html',
    ...(r.last_edit_ts ? { last_edit_timestamp: Number(r.last_edit_ts) } : {}),
  }));
  reply(res, 200, {
    result: 'success',
    msg: '',
    messages,
    anchor: 10_000_000_000_000_000,
    found_anchor: false,
    found_oldest: messages.length < num,
    found_newest: true,
    history_limited: false,
  });
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const fail = (err: unknown) => reply(res, 500, { result: 'error', msg: String(err) });
    if (req.method === 'GET' && url.pathname === '/hello') reply(res, 200, { result: 'success', msg: '' });
    else if (req.method === 'POST' && url.pathname === '/send')
      send(url, Buffer.concat(chunks).toString('utf8'), res).catch(fail);
    else if (req.method === 'GET' && url.pathname === '/fetch') fetchNewest(url, res).catch(fail);
    else if (req.method === 'GET' && url.pathname === '/poll') {
      const poll = { res, sender: url.searchParams.get('sender') === '1' };
      parked.push(poll);
      res.on('close', () => {
        if (!res.writableFinished) parked = parked.filter((p) => p !== poll);
      });
    } else if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`zulip_event_long_polls_parked ${parked.length}\n`);
    } else reply(res, 404, { result: 'error', msg: 'Not found' });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  console.log(`ceiling server listening on ${process.env.PORT}`);
});
const shutdown = () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
