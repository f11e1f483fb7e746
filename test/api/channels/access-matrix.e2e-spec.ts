import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectSuccess, userId } from './helpers';

/**
 * Role × channel kind: who can see a channel (GET /streams/{id}: metadata access), read it
 * (GET /get_stream_id, muting a topic: content access) and administer it (PATCH /streams/{id}).
 * The channels are created by the owner, who alone administers them; cordelia is subscribed.
 */
const OWNER = 'desdemona@zulip.com';
const USERS = {
  admin: 'iago@zulip.com',
  moderator: 'shiva@zulip.com',
  member: 'othello@zulip.com',
  guest: 'polonius@zulip.com',
  subscriber: 'cordelia@zulip.com',
} as const;
type Who = keyof typeof USERS;

const KINDS = {
  public: {},
  'web-public': { is_web_public: true },
  'private shared history': { invite_only: true, history_public_to_subscribers: true },
  'private protected history': { invite_only: true },
  archived: {},
} as const;
type Kind = keyof typeof KINDS;

type Outcome = 'ok' | 'invalid' | 'forbidden';

const ALL_OK = { admin: 'ok', moderator: 'ok', member: 'ok', guest: 'ok', subscriber: 'ok' } as const;

/** GET /streams/{id}: metadata access, active channels only. */
const SEE: Record<Kind, Record<Who, Outcome>> = {
  public: { ...ALL_OK, guest: 'invalid' },
  'web-public': ALL_OK,
  'private shared history': {
    admin: 'ok',
    moderator: 'invalid',
    member: 'invalid',
    guest: 'invalid',
    subscriber: 'ok',
  },
  'private protected history': {
    admin: 'ok',
    moderator: 'invalid',
    member: 'invalid',
    guest: 'invalid',
    subscriber: 'ok',
  },
  archived: { admin: 'invalid', moderator: 'invalid', member: 'invalid', guest: 'invalid', subscriber: 'invalid' },
};

/** GET /get_stream_id and muting a topic: content access, active channels only. */
const READ: Record<Kind, Record<Who, Outcome>> = {
  public: { ...ALL_OK, guest: 'invalid' },
  'web-public': ALL_OK,
  'private shared history': {
    admin: 'invalid',
    moderator: 'invalid',
    member: 'invalid',
    guest: 'invalid',
    subscriber: 'ok',
  },
  'private protected history': {
    admin: 'invalid',
    moderator: 'invalid',
    member: 'invalid',
    guest: 'invalid',
    subscriber: 'ok',
  },
  archived: SEE.archived,
};

/** PATCH /streams/{id}: administrators; others are refused, or told nothing when they cannot read it. */
const ADMINISTER: Record<Kind, Record<Who, Outcome>> = {
  public: { admin: 'ok', moderator: 'forbidden', member: 'forbidden', guest: 'invalid', subscriber: 'forbidden' },
  'web-public': {
    admin: 'ok',
    moderator: 'forbidden',
    member: 'forbidden',
    guest: 'forbidden',
    subscriber: 'forbidden',
  },
  'private shared history': {
    admin: 'ok',
    moderator: 'invalid',
    member: 'invalid',
    guest: 'invalid',
    subscriber: 'forbidden',
  },
  'private protected history': {
    admin: 'ok',
    moderator: 'invalid',
    member: 'invalid',
    guest: 'invalid',
    subscriber: 'forbidden',
  },
  archived: { admin: 'ok', moderator: 'forbidden', member: 'forbidden', guest: 'invalid', subscriber: 'forbidden' },
};

const CASES = (Object.keys(KINDS) as Kind[]).flatMap((kind) =>
  (Object.keys(USERS) as Who[]).map((who) => ({ kind, who })),
);

describe('role × channel kind', () => {
  let t: TestApp;
  const ids = new Map<Kind, number>();

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    const cordelia = await userId(t, USERS.subscriber);
    const owner = await userId(t, OWNER);
    for (const [kind, params] of Object.entries(KINDS) as Array<[Kind, Record<string, unknown>]>) {
      const name = `matrix ${kind}`;
      expectSuccess(
        await call(t, 'post', '/users/me/subscriptions', OWNER, {
          subscriptions: [{ name }],
          principals: [owner, cordelia],
          ...params,
        }),
      );
      ids.set(kind, await channelId(t, name));
    }
    expectSuccess(await call(t, 'delete', `/streams/${ids.get('archived')}`, OWNER));
  });
  afterAll(() => t.close());

  function outcome(res: { status: number; body: unknown }): Outcome {
    if (res.status === 200) return 'ok';
    const msg = (res.body as { msg: string }).msg;
    if (msg === 'You do not have permission to administer this channel.') return 'forbidden';
    if (/^Invalid channel (ID|name)/.test(msg)) return 'invalid';
    throw new Error(`unexpected ${res.status} ${JSON.stringify(res.body)}`);
  }

  it.each(CASES)('GET /streams/{id}: $who on $kind', async ({ kind, who }) => {
    const res = await call(t, 'get', `/streams/${ids.get(kind)}`, USERS[who]);
    expect(outcome(res)).toBe(SEE[kind][who]);
  });

  it.each(CASES)('GET /get_stream_id: $who on $kind', async ({ kind, who }) => {
    const res = await call(t, 'get', '/get_stream_id', USERS[who], { stream: `matrix ${kind}` });
    expect(outcome(res)).toBe(READ[kind][who]);
  });

  it.each(CASES)('muting a topic: $who on $kind', async ({ kind, who }) => {
    const res = await call(t, 'patch', '/users/me/subscriptions/muted_topics', USERS[who], {
      stream_id: ids.get(kind),
      topic: 'matrix',
      op: 'add',
    });
    expect(outcome(res)).toBe(READ[kind][who]);
  });

  it.each(CASES)('PATCH /streams/{id}: $who on $kind', async ({ kind, who }) => {
    const res = await call(t, 'patch', `/streams/${ids.get(kind)}`, USERS[who], { description: `edited by ${who}` });
    expect(outcome(res)).toBe(ADMINISTER[kind][who]);
  });

  it.each(CASES)('GET /streams with include_all: $who on $kind', async ({ kind, who }) => {
    const res = await call(t, 'get', '/streams', USERS[who], { include_all: true, exclude_archived: false });
    const listed = (res.body as { streams: Array<{ stream_id: number }> }).streams.some(
      (s) => s.stream_id === ids.get(kind),
    );
    const expected = kind === 'archived' ? SEE.public[who] === 'ok' || who === 'subscriber' : SEE[kind][who] === 'ok';
    expect(listed).toBe(expected);
  });
});
