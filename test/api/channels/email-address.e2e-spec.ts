import { DEFAULT_BOT as BOT, DESDEMONA, HAMLET, IAGO, OTHELLO, POLONIUS } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, userId } from './helpers';

describe('GET /streams/{stream_id}/email_address', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
  });
  afterAll(() => t.close());

  const address = async (email: string, streamId: number, params: Record<string, unknown> = {}) => {
    const res = await call(t, 'get', `/streams/${streamId}/email_address`, email, params);
    expectMatchesOpenApi('get', '/streams/{stream_id}/email_address', res.status, res.body);
    return res;
  };
  const emailOf = (res: { body: unknown }) => (res.body as { email: string }).email;

  it("answers the channel's address, posting as Email Gateway; stable per user, distinct between users", async () => {
    const verona = await channelId(t, 'Verona');
    const res = await address(HAMLET, verona);
    expect(res.status).toBe(200);
    expect(emailOf(res)).toMatch(/^verona\.[0-9a-f]{32}\.show-sender@zulip\.testserver$/);
    expect(emailOf(await address(HAMLET, verona))).toBe(emailOf(res));
    expect(emailOf(await address(OTHELLO, verona))).not.toBe(emailOf(res));
    const rows = await t.dataSource.query<Array<{ sender: string; creator_id: number }>>(
      `SELECT u.delivery_email AS sender, a.creator_id FROM channel_email_address a
         JOIN user_profile u ON u.id = a.sender_id WHERE a.channel_id = $1 AND a.creator_id = $2`,
      [verona, await userId(t, HAMLET)],
    );
    expect(rows).toEqual([{ sender: 'emailgateway@zulip.com', creator_id: await userId(t, HAMLET) }]);
  });

  it('sender_id: oneself, or a bot one administers', async () => {
    const verona = await channelId(t, 'Verona');
    const gateway = emailOf(await address(DESDEMONA, verona));
    const asSelf = emailOf(await address(DESDEMONA, verona, { sender_id: await userId(t, DESDEMONA) }));
    const asBot = emailOf(await address(DESDEMONA, verona, { sender_id: await userId(t, BOT) }));
    expect(new Set([gateway, asSelf, asBot]).size).toBe(3);
    // Administrators may use any bot; the bot's owner is Desdemona, not Hamlet.
    expect((await address(IAGO, verona, { sender_id: await userId(t, BOT) })).status).toBe(200);
    expectError(await address(HAMLET, verona, { sender_id: await userId(t, BOT) }), 400, 'Insufficient permission');
    expectError(await address(HAMLET, verona, { sender_id: await userId(t, OTHELLO) }), 400, 'No such bot');
    expectError(await address(HAMLET, verona, { sender_id: 999_999 }), 400, 'No such bot');
    expectError(await address(HAMLET, verona, { sender_id: 'me' }), 400, 'sender_id is not valid JSON');
  });

  it('channels one cannot access are "Invalid channel ID"', async () => {
    const res = await call(t, 'post', '/users/me/subscriptions', OTHELLO, {
      subscriptions: [{ name: 'hidden mail' }],
      invite_only: true,
    });
    expect(res.status).toBe(200);
    expectError(await address(HAMLET, await channelId(t, 'hidden mail')), 400, 'Invalid channel ID');
    expectError(await address(HAMLET, 999_999), 400, 'Invalid channel ID');
    // A guest not subscribed to a public channel has no access to it either.
    await call(t, 'post', '/users/me/subscriptions', OTHELLO, { subscriptions: [{ name: 'public mail' }] });
    expectError(await address(POLONIUS, await channelId(t, 'public mail')), 400, 'Invalid channel ID');
    expect((await address(OTHELLO, await channelId(t, 'hidden mail'))).status).toBe(200);
  });
});
