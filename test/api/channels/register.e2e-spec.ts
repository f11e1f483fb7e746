import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectRegisterMatchesOpenApi, expectSuccess, userId } from './helpers';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const IAGO = 'iago@zulip.com';
const POLONIUS = 'polonius@zulip.com';

type Channel = Record<string, unknown> & { name: string; stream_id: number };
interface State {
  subscriptions: Channel[];
  unsubscribed: Channel[];
  never_subscribed: Channel[];
  streams: Channel[];
  realm_default_streams: number[];
  user_topics: unknown[];
  channel_folders: unknown[];
}

const CHANNEL_TYPES = ['subscription', 'stream', 'default_streams', 'user_topic', 'channel_folders'];

describe('POST /register: channel state', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
  });
  afterAll(() => t.close());

  async function register(email: string, params: Record<string, unknown> = {}): Promise<State> {
    const res = await call(t, 'post', '/register', email, { fetch_event_types: CHANNEL_TYPES, ...params });
    expectSuccess(res);
    expectRegisterMatchesOpenApi(res.body);
    return res.body as State;
  }
  const names = (list: Channel[]) => list.map((c) => c.name);

  it('a member: subscriptions, channels never subscribed to, default channels', async () => {
    const state = await register(HAMLET);
    expect(names(state.subscriptions)).toEqual(['Denmark', 'Verona', 'Zulip', 'core team', 'sandbox']);
    expect(state.unsubscribed).toEqual([]);
    expect(names(state.never_subscribed)).toEqual(['Rome', 'Scotland', 'Venice']);
    expect(names(state.streams)).toEqual([
      'Denmark',
      'Rome',
      'Scotland',
      'Venice',
      'Verona',
      'Zulip',
      'core team',
      'sandbox',
    ]);
    const defaults = await Promise.all(['Verona', 'Zulip', 'sandbox'].map((n) => channelId(t, n)));
    expect(state.realm_default_streams).toEqual(defaults.sort((a, b) => a - b));
    expect(state.user_topics).toEqual([]);
    expect(state.channel_folders).toEqual([]);
    expect(state.subscriptions[0]).not.toHaveProperty('subscribers');
  });

  it('include_subscribers adds subscriber lists where the user may see them', async () => {
    const state = await register(OTHELLO, { include_subscribers: 'true' });
    const verona = state.subscriptions.find((c) => c.name === 'Verona')!;
    expect(verona.subscribers).toHaveLength(10);
    const rome = state.never_subscribed.find((c) => c.name === 'Rome')!;
    expect(rome.subscribers).toEqual([await userId(t, 'ZOE@zulip.com')]);
  });

  it('a guest sees web-public channels only, and no default channels', async () => {
    const state = await register(POLONIUS);
    expect(names(state.subscriptions)).toEqual(['Verona']);
    expect(names(state.never_subscribed)).toEqual(['Rome']);
    expect(state.realm_default_streams).toEqual([]);
    expect(names(state.streams)).toEqual(['Rome', 'Verona']);
  });

  it('administrators see private channels they are not in; members do not', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, {
        subscriptions: [{ name: 'hidden' }],
        invite_only: true,
      }),
    );
    expect(names((await register(IAGO)).never_subscribed)).toContain('hidden');
    expect(names((await register(OTHELLO)).never_subscribed)).not.toContain('hidden');
  });

  it('channels left appear under unsubscribed (private ones only with metadata access)', async () => {
    expectSuccess(await call(t, 'delete', '/users/me/subscriptions', OTHELLO, { subscriptions: ['Denmark'] }));
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, {
        subscriptions: [{ name: 'left private' }],
        invite_only: true,
        principals: [await userId(t, HAMLET), await userId(t, OTHELLO)],
      }),
    );
    expectSuccess(await call(t, 'delete', '/users/me/subscriptions', OTHELLO, { subscriptions: ['left private'] }));
    const state = await register(OTHELLO);
    expect(names(state.unsubscribed)).toEqual(['Denmark']);
    expect(state.unsubscribed[0]).toMatchObject({ in_home_view: true, is_muted: false });
  });

  it('archived channels only for clients with the archived_channels capability', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'archived one' }] }),
    );
    expectSuccess(await call(t, 'delete', `/streams/${await channelId(t, 'archived one')}`, HAMLET));
    const plain = await register(HAMLET);
    expect(names(plain.subscriptions)).not.toContain('archived one');
    expect(names(plain.streams)).not.toContain('archived one');
    const modern = await register(HAMLET, { client_capabilities: { archived_channels: true } });
    expect(modern.subscriptions.find((c) => c.name === 'archived one')).toMatchObject({ is_archived: true });
    expect(names(modern.streams)).toContain('archived one');
  });

  it('user topics and channel folders', async () => {
    const verona = await channelId(t, 'Verona');
    expectSuccess(
      await call(t, 'post', '/user_topics', HAMLET, { stream_id: verona, topic: 'bugs', visibility_policy: 3 }),
    );
    expectSuccess(await call(t, 'post', '/channel_folders/create', IAGO, { name: 'Ops', description: '' }));
    const state = await register(HAMLET);
    expect(state.user_topics).toEqual([
      { stream_id: verona, topic_name: 'bugs', last_updated: expect.any(Number) as unknown, visibility_policy: 3 },
    ]);
    expect(state.channel_folders).toEqual([expect.objectContaining({ name: 'Ops', is_archived: false })]);
  });
});
