import { DEFAULT_BOT as BOT, DESDEMONA, HAMLET, IAGO, POLONIUS, SHIVA } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, openQueue, takeEvents } from './helpers';

describe('POST and DELETE /default_streams', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    for (const [name, inviteOnly] of [
      ['def public', false],
      ['def private', true],
    ] as const) {
      const res = await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name }],
        invite_only: inviteOnly,
      });
      expect(res.status).toBe(200);
    }
  });
  afterAll(() => t.close());

  const change = async (method: 'post' | 'delete', email: string, streamId: unknown) => {
    const res = await call(t, method, '/default_streams', email, { stream_id: streamId });
    if ((res.body as { code?: string }).code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi(method, '/default_streams', res.status, res.body);
    }
    return res;
  };
  const defaults = async (email: string) => {
    const res = await call(t, 'post', '/register', email, { fetch_event_types: ['default_streams'] });
    return (res.body as { realm_default_streams: number[] }).realm_default_streams;
  };

  it('an administrator adds and removes a default channel; members hear of each real change', async () => {
    const id = await channelId(t, 'def public');
    const queue = await openQueue(t, HAMLET, ['default_streams']);
    const guestQueue = await openQueue(t, POLONIUS, ['default_streams']);
    expect((await change('post', IAGO, id)).body).toEqual({ result: 'success', msg: '' });
    expect(await defaults(HAMLET)).toContain(id);
    const events = await takeEvents(t, queue);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('default_streams');
    expect(events[0].default_streams as number[]).toContain(id);
    // Again: nothing changes, nothing is sent.
    expect((await change('post', DESDEMONA, id)).status).toBe(200);
    expect(await takeEvents(t, queue)).toEqual([]);
    expect((await change('delete', IAGO, id)).status).toBe(200);
    expect(await defaults(HAMLET)).not.toContain(id);
    expect(await takeEvents(t, queue)).toHaveLength(1);
    expect((await change('delete', IAGO, id)).status).toBe(200);
    expect(await takeEvents(t, queue)).toEqual([]);
    // Guests are not told about default channels.
    expect(await takeEvents(t, guestQueue)).toEqual([]);
  });

  it('refusals: private channels, non-administrators, unknown ids, bad input', async () => {
    const priv = await channelId(t, 'def private');
    expectError(await change('post', IAGO, priv), 400, 'Private channels cannot be made default.');
    const pub = await channelId(t, 'def public');
    for (const email of [SHIVA, HAMLET, POLONIUS, BOT]) {
      expectError(
        await change('post', email, pub),
        400,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectError(
        await change('delete', email, pub),
        400,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
    expectError(await change('post', IAGO, 999_999), 400, 'Invalid channel ID');
    expectError(await change('delete', IAGO, 999_999), 400, 'Invalid channel ID');
    expectError(await change('post', IAGO, 'x'), 400, 'stream_id is not valid JSON');
    const missing = await call(t, 'post', '/default_streams', IAGO, {});
    expectError(missing, 400, "Missing 'stream_id' argument", 'REQUEST_VARIABLE_MISSING');
    expect(await defaults(HAMLET)).not.toContain(pub);
  });
});
