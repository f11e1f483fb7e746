/**
 * POST /messages/{message_id}/typing (Zulip's send_message_edit_notification_backend,
 * test_typing.py TestSendMessageEditTypingNotification): "someone is editing this message".
 */
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  BOT,
  call,
  channelId,
  expectError,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  sendChannel,
  sendDirect,
  takeEvents,
  userId,
} from './helpers';

describe('POST /messages/{message_id}/typing', () => {
  let t: TestApp;
  let hamlet: number;
  let othello: number;
  beforeAll(async () => {
    t = await startTestApp();
    hamlet = await userId(t, HAMLET);
    othello = await userId(t, OTHELLO);
  });
  afterAll(() => t.close());

  const editTyping = (email: string, messageId: number | string, params: Record<string, unknown>) =>
    call(t, 'post', `/messages/${messageId}/typing`, email, params);

  it('tells a channel’s subscribers, with the channel and topic', async () => {
    const id = await sendChannel(t, OTHELLO, 'Verona', 'plans', 'draft');
    const q = await openQueue(t, HAMLET, ['typing_edit_message']);
    const res = await editTyping(OTHELLO, id, { op: 'start' });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('post', '/messages/{message_id}/typing', 200, res.body);
    expect(await takeEvents(t, q)).toEqual([
      {
        type: 'typing_edit_message',
        op: 'start',
        sender_id: othello,
        message_id: id,
        recipient: { type: 'channel', channel_id: await channelId(t, 'Verona'), topic: 'plans' },
      },
    ]);
    await editTyping(OTHELLO, id, { op: 'stop' });
    expect((await takeEvents(t, q)).map((e) => e.op)).toEqual(['stop']);
  });

  it('tells a direct message’s participants, with their ids', async () => {
    const id = await sendDirect(t, OTHELLO, [hamlet], 'hi');
    const q = await openQueue(t, HAMLET, ['typing_edit_message']);
    const outsider = await openQueue(t, IAGO, ['typing_edit_message']);
    expect((await editTyping(OTHELLO, id, { op: 'start' })).status).toBe(200);
    expect(await takeEvents(t, q)).toEqual([
      {
        type: 'typing_edit_message',
        op: 'start',
        sender_id: othello,
        message_id: id,
        recipient: { type: 'direct', user_ids: [hamlet, othello].sort((a, b) => a - b) },
      },
    ]);
    expect(await takeEvents(t, outsider)).toEqual([]);
  });

  it('respects the sender’s own typing settings and the receivers’', async () => {
    const channelMessage = await sendChannel(t, OTHELLO, 'Verona', 'plans', 'x');
    const direct = await sendDirect(t, OTHELLO, [hamlet], 'y');
    await call(t, 'patch', '/settings', OTHELLO, { send_stream_typing_notifications: false });
    await call(t, 'patch', '/settings', OTHELLO, { send_private_typing_notifications: false });
    try {
      expectError(
        await editTyping(OTHELLO, channelMessage, { op: 'start' }),
        400,
        'User has disabled typing notifications for channel messages',
      );
      expectError(
        await editTyping(OTHELLO, direct, { op: 'start' }),
        400,
        'User has disabled typing notifications for direct messages',
      );
    } finally {
      await call(t, 'patch', '/settings', OTHELLO, {
        send_stream_typing_notifications: true,
        send_private_typing_notifications: true,
      });
    }
    await call(t, 'patch', '/settings', HAMLET, { receives_typing_notifications: false });
    try {
      const q = await openQueue(t, HAMLET, ['typing_edit_message']);
      await editTyping(OTHELLO, direct, { op: 'start' });
      expect(await takeEvents(t, q)).toEqual([]);
    } finally {
      await call(t, 'patch', '/settings', HAMLET, { receives_typing_notifications: true });
    }
  });

  it('refuses a message the caller cannot read, an unknown id and a bad op', async () => {
    const direct = await sendDirect(t, OTHELLO, [hamlet], 'private');
    expectError(await editTyping(IAGO, direct, { op: 'start' }), 400, 'Invalid message(s)');
    expectError(await editTyping(POLONIUS, direct, { op: 'start' }), 400, 'Invalid message(s)');
    expectError(await editTyping(OTHELLO, 999_999_999, { op: 'start' }), 400, 'Invalid message(s)');
    expectError(await editTyping(OTHELLO, direct, { op: 'typing' }), 400, 'Invalid op');
    expectError(await editTyping(OTHELLO, direct, {}), 400, "Missing 'op' argument", 'REQUEST_VARIABLE_MISSING');
    expect((await editTyping(OTHELLO, 'abc', { op: 'start' })).status).toBe(404);
  });

  it('works for bots that can read the message', async () => {
    const id = await sendChannel(t, BOT, 'Verona', 'bots', 'beep');
    expect((await editTyping(BOT, id, { op: 'start' })).status).toBe(200);
  });
});
