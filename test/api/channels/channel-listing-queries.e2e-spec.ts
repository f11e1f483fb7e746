/**
 * GET /streams and the channel sections of POST /register (`subscriptions`, `unsubscribed`,
 * `never_subscribed`, `streams` and their subscriber lists) send a fixed number of SQL statements:
 * adding channels, subscribers and users changes none of them (issue 15, item 7).
 */
import { ChannelQueriesService } from '../../../src/channels/channel-queries.service';
import { countQueriesDuring, MethodQueryCounter } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, expectSuccess, userId } from './helpers';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const IAGO = 'iago@zulip.com';
const POLONIUS = 'polonius@zulip.com';
const DESDEMONA = 'desdemona@zulip.com'; // an owner: may create web-public channels

const REGISTER = {
  fetch_event_types: ['subscription', 'stream'],
  include_subscribers: 'true',
  client_capabilities: { archived_channels: true },
};

describe('channel listings: statements independent of the number of channels and users', () => {
  let t: TestApp;
  let counters: Record<'getStreams' | 'subscriptionState' | 'registerStreams', MethodQueryCounter>;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    const queries = t.app.get(ChannelQueriesService);
    // Only the statements of the channel code (authentication and the realm cache come before it).
    counters = {
      getStreams: countQueriesDuring(queries, 'getStreams'),
      subscriptionState: countQueriesDuring(queries, 'subscriptionState'),
      registerStreams: countQueriesDuring(queries, 'registerStreams'),
    };
  });
  afterAll(async () => {
    for (const c of Object.values(counters)) c.restore();
    await t.close();
  });

  function reset(): void {
    for (const c of Object.values(counters)) c.reset();
  }

  /** Statements per listing, after a warm-up request (system groups, auth). */
  async function measure(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const streams: Array<[string, string, Record<string, unknown>]> = [
      ['streams member', OTHELLO, {}],
      ['streams admin all', IAGO, { include_all: true, include_default: true, exclude_archived: false }],
      ['streams guest', POLONIUS, { include_web_public: true }],
      ['streams content', HAMLET, { include_can_access_content: true }],
    ];
    for (const [label, email, params] of streams) {
      expectSuccess(await call(t, 'get', '/streams', email, params));
      reset();
      expectSuccess(await call(t, 'get', '/streams', email, params));
      out[label] = counters.getStreams.statements.length;
    }
    for (const email of [HAMLET, IAGO, POLONIUS]) {
      expectSuccess(await call(t, 'post', '/register', email, REGISTER));
      reset();
      expectSuccess(await call(t, 'post', '/register', email, REGISTER));
      out[`register subscriptions ${email}`] = counters.subscriptionState.statements.length;
      // `streams` reuses what `subscriptions` loaded in the same request.
      out[`register streams ${email}`] = counters.registerStreams.statements.length;
    }
    return out;
  }

  async function createUser(email: string): Promise<number> {
    const res = await call(t, 'post', '/users', IAGO, {
      email,
      password: 'a-long-password',
      full_name: email.split('@')[0],
    });
    expectSuccess(res);
    return (res.body as { user_id: number }).user_id;
  }

  it('is the same with 30 more channels, their subscribers, more users and a deactivated one', async () => {
    const before = await measure();
    const hamlet = await userId(t, HAMLET);
    const crowd: number[] = [];
    for (let i = 0; i < 8; i++) crowd.push(await createUser(`listing${i}@zulip.com`));
    const principals = [hamlet, await userId(t, OTHELLO), await userId(t, POLONIUS), ...crowd];
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: Array.from({ length: 10 }, (_, i) => ({ name: `listing public ${i}` })),
        principals,
      }),
    );
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: Array.from({ length: 10 }, (_, i) => ({ name: `listing private ${i}` })),
        invite_only: true,
        can_subscribe_group: { direct_members: [hamlet], direct_subgroups: [] },
        principals: principals.slice(0, 5),
      }),
    );
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', DESDEMONA, {
        subscriptions: Array.from({ length: 10 }, (_, i) => ({ name: `listing web ${i}` })),
        is_web_public: true,
        principals: crowd,
      }),
    );
    // An unsubscribed channel (the `unsubscribed` section), an archived one, a deactivated subscriber.
    expectSuccess(await call(t, 'delete', '/users/me/subscriptions', HAMLET, { subscriptions: ['listing public 0'] }));
    const archived = await call(t, 'get', '/get_stream_id', IAGO, { stream: 'listing public 1' });
    expectSuccess(await call(t, 'delete', `/streams/${(archived.body as { stream_id: number }).stream_id}`, IAGO));
    expectSuccess(await call(t, 'delete', `/users/${crowd[0]}`, IAGO));

    const after = await measure();
    expect(after).toEqual(before);
    // A fixed budget: the caller's principal, the listing (channels, the caller's subscriptions,
    // subscriber counts and ids: one statement) and the API values of the group settings (three);
    // include_default reads the default channels. The `streams` section of /register sends none.
    const budget = (label: string) =>
      label.startsWith('register streams') ? 0 : label === 'streams admin all' ? 6 : 5;
    for (const [label, n] of Object.entries(before))
      expect({ label, n: Math.min(n, budget(label)) }).toEqual({ label, n });
  });
});
