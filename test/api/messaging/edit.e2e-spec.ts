import { createHash } from 'node:crypto';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Clock } from '../../../src/messaging/clock';
import {
  call,
  channelId,
  CORDELIA,
  expectError,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  sendChannel,
  sendDirect,
  setRealm,
  SHIVA,
  subscribe,
  systemGroupId,
  takeEvents,
  umFlags,
  userId,
} from './helpers';

describe('PATCH /messages/{message_id}', () => {
  let t: TestApp;
  const patch = (email: string, id: number, params: Record<string, unknown>) =>
    call(t, 'patch', `/messages/${id}`, email, params);
  const row = async (id: number) =>
    (
      await t.dataSource.query<
        Array<{
          content: string;
          subject: string;
          recipient_id: number;
          edit_history: unknown;
          last_edit_time: Date | null;
        }>
      >(`SELECT content, subject, recipient_id, edit_history, last_edit_time FROM message WHERE id = $1`, [id])
    )[0];
  const topicMessages = async (channel: string, topic: string) =>
    t.dataSource.query<Array<{ id: number; content: string; sender_id: number; type: number }>>(
      `SELECT m.id, m.content, m.sender_id, m.type FROM message m JOIN stream s ON s.recipient_id = m.recipient_id
        WHERE s.name = $1 AND m.subject = $2 ORDER BY m.id`,
      [channel, topic],
    );

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.app.get(Clock).reset());
  afterAll(() => t.close());

  it('edits content: history, last_edit_time, event to recipients, detached_uploads empty', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'edit content', 'first version');
    const q = await openQueue(t, OTHELLO, ['update_message']);
    const res = await patch(HAMLET, id, { content: 'second version', message_id: id });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('patch', '/messages/{message_id}', 200, res.body);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      detached_uploads: [],
      ignored_parameters_unsupported: ['message_id'],
    });
    const r = await row(id);
    expect(r.content).toBe('second version');
    expect(r.last_edit_time).not.toBeNull();
    const history = r.edit_history as Array<Record<string, unknown>>;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ user_id: await userId(t, HAMLET), prev_content: 'first version' });
    const events = await takeEvents(t, q);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'update_message',
      message_id: id,
      message_ids: [id],
      user_id: await userId(t, HAMLET),
      orig_content: 'first version',
      content: 'second version',
      rendered_content: '<p>second version</p>',
      rendering_only: false,
      stream_id: await channelId(t, 'Verona'),
      stream_name: 'Verona',
    });
    expect(events[0].flags).toEqual([]);
    // The message as fetched shows the edit.
    const got = await call(t, 'get', `/messages/${id}`, HAMLET);
    expect((got.body as { message: { edit_history: unknown[] } }).message.edit_history).toHaveLength(1);
  });

  it('empty content becomes (deleted); mention flags are recomputed', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'mentions', 'hello');
    expect(await patch(HAMLET, id, { content: '@**Othello, the Moor of Venice** look' })).toMatchObject({
      status: 200,
    });
    expect((await umFlags(t, OTHELLO, id))! & 8).toBe(8);
    expect(await patch(HAMLET, id, { content: '   ' })).toMatchObject({ status: 200 });
    expect((await row(id)).content).toBe('(deleted)');
    expect((await umFlags(t, OTHELLO, id))! & 8).toBe(0);
  });

  it('refuses in Zulip order with Zulip texts', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'errors', 'text');
    const check = async (email: string, params: Record<string, unknown>, msg: string) => {
      const res = await patch(email, id, params);
      expectError(res, 400, msg);
      expectMatchesOpenApi('patch', '/messages/{message_id}', 400, res.body);
    };
    await check(HAMLET, {}, 'Nothing to change');
    await check(HAMLET, { topic: 'errors' }, 'Nothing to change');
    await check(OTHELLO, { content: 'x' }, "You don't have permission to edit this message");
    await check(IAGO, { content: 'x' }, "You don't have permission to edit this message");
    await check(HAMLET, { content: 'x', propagate_mode: 'change_all' }, 'Invalid propagate_mode without topic edit');
    await check(HAMLET, { content: 'x', propagate_mode: 'bogus' }, 'Invalid propagate_mode');
    await check(HAMLET, { topic: '✔' }, 'General chat cannot be marked as resolved');
    await check(HAMLET, { topic: '✔ general chat' }, 'General chat cannot be marked as resolved');
    await check(HAMLET, { topic: 'a\u0007b' }, 'Invalid character in topic, at position 2!');
    await check(
      HAMLET,
      { content: 'x', stream_id: await channelId(t, 'Denmark') },
      'Cannot change message content while changing channel',
    );
    await check(HAMLET, { stream_id: 999999 }, 'Invalid channel ID');
    const sha = await patch(HAMLET, id, { content: 'y', prev_content_sha256: 'abc' });
    expectError(sha, 400, "'prev_content_sha256' value does not match the expected value.", 'EXPECTATION_MISMATCH');
    expect(sha.body).toMatchObject({ field_name: 'prev_content_sha256' });
    const good = createHash('sha256').update('text').digest('hex');
    expect((await patch(HAMLET, id, { content: 'y', prev_content_sha256: good })).status).toBe(200);
    await setRealm(t, { allow_message_editing: false });
    await check(HAMLET, { content: 'z' }, 'Your organization has turned off message editing');
    await setRealm(t, { allow_message_editing: true });
  });

  it('direct messages: content only', async () => {
    const id = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'dm');
    expectError(await patch(HAMLET, id, { topic: 'x' }), 400, 'Direct messages cannot have topics.');
    expectError(
      await patch(HAMLET, id, { stream_id: await channelId(t, 'Verona') }),
      400,
      'Direct messages cannot be moved to channels.',
    );
    const q = await openQueue(t, OTHELLO, ['update_message']);
    expect((await patch(HAMLET, id, { content: 'dm edited' })).status).toBe(200);
    const events = await takeEvents(t, q);
    expect(events[0]).toMatchObject({ type: 'update_message', message_ids: [id], content: 'dm edited' });
    expect(events[0]).not.toHaveProperty('stream_id');
    // Not a participant: indistinguishable from a missing message.
    expectError(await patch(CORDELIA, id, { content: 'x' }), 400, 'Invalid message(s)');
    expectError(await patch(CORDELIA, 999999999, { content: 'x' }), 400, 'Invalid message(s)');
  });

  it('content time limit (+20 s grace), nobody exempt; topic edit still allowed', async () => {
    const id = await sendChannel(t, IAGO, 'Verona', 'limit', 'old');
    t.app.get(Clock).advance(615 * 1000);
    expect((await patch(IAGO, id, { content: 'within grace' })).status).toBe(200);
    t.app.get(Clock).advance(10 * 1000);
    expectError(await patch(IAGO, id, { content: 'late' }), 400, 'The time limit for editing this message has passed');
    expect((await patch(IAGO, id, { topic: 'limit renamed' })).status).toBe(200);
  });

  it('topic rename: change_all moves the topic, notifications, history, events', async () => {
    const a = await sendChannel(t, HAMLET, 'Denmark', 'rename me', 'one');
    const b = await sendChannel(t, OTHELLO, 'Denmark', 'rename me', 'two');
    const q = await openQueue(t, HAMLET, ['update_message']);
    const res = await patch(OTHELLO, a, {
      topic: 'renamed',
      propagate_mode: 'change_all',
      send_notification_to_old_thread: true,
    });
    expect(res.status).toBe(200);
    expect((await row(a)).subject).toBe('renamed');
    expect((await row(b)).subject).toBe('renamed');
    expect((await row(b)).edit_history).toEqual([
      { user_id: await userId(t, OTHELLO), timestamp: expect.any(Number), prev_topic: 'rename me', topic: 'renamed' },
    ]);
    const othelloId = await userId(t, OTHELLO);
    const inNew = await topicMessages('Denmark', 'renamed');
    expect(inNew.map((m) => m.content)).toEqual([
      'one',
      'two',
      `This topic was moved here from #**Denmark>rename me** by @_**Othello, the Moor of Venice|${othelloId}**.`,
    ]);
    const inOld = await topicMessages('Denmark', 'rename me');
    expect(inOld.map((m) => m.content)).toEqual([
      `This topic was moved to #**Denmark>renamed** by @_**Othello, the Moor of Venice|${othelloId}**.`,
    ]);
    const events = (await takeEvents(t, q)).filter((e) => e.type === 'update_message');
    expect(events[0]).toMatchObject({
      message_ids: [a, b],
      orig_subject: 'rename me',
      subject: 'renamed',
      propagate_mode: 'change_all',
      topic_links: [],
    });
  });

  it('change_one of a topic with several messages: "[A message]" notice', async () => {
    await sendChannel(t, HAMLET, 'Denmark', 'partial', 'one');
    const b = await sendChannel(t, HAMLET, 'Denmark', 'partial', 'two');
    expect((await patch(HAMLET, b, { topic: 'partial 2' })).status).toBe(200);
    const notice = (await topicMessages('Denmark', 'partial 2'))[1];
    expect(notice.content).toMatch(
      /^\[A message\]\(http.*\/near\/\d+\) was moved here from #\*\*Denmark>partial\*\* by @_\*\*King Hamlet\|\d+\*\*\.$/,
    );
  });

  it('resolve and unresolve: prefix, permission, notice, no move notice', async () => {
    const id = await sendChannel(t, HAMLET, 'Denmark', 'bug', 'broken');
    expect((await patch(HAMLET, id, { topic: '✔ bug', propagate_mode: 'change_all' })).status).toBe(200);
    const msgs = await topicMessages('Denmark', '✔ bug');
    const hamletId = await userId(t, HAMLET);
    expect(msgs.map((m) => [m.content, m.type])).toEqual([
      ['broken', 1],
      [`@_**King Hamlet|${hamletId}** has marked this topic as resolved.`, 2],
    ]);
    // Undo within the grace period deletes the notice instead of adding one.
    const undo = await patch(HAMLET, id, { topic: 'bug', propagate_mode: 'change_all' });
    expect(undo.body).toEqual({ result: 'success', msg: '', detached_uploads: [] });
    expect((await topicMessages('Denmark', 'bug')).map((m) => m.content)).toEqual(['broken']);
    t.app.get(Clock).advance(120 * 1000);
    await setRealm(t, { can_resolve_topics_group: await systemGroupId(t, 'role:administrators') });
    expectError(
      await patch(HAMLET, id, { topic: '✔ bug', propagate_mode: 'change_all' }),
      400,
      "You don't have permission to resolve topics in this channel.",
    );
    expect((await patch(IAGO, id, { topic: '✔ bug', propagate_mode: 'change_all' })).status).toBe(200);
    await setRealm(t, { can_resolve_topics_group: await systemGroupId(t, 'role:everyone') });
  });

  it('topic permission and topic time limit (moderators exempt)', async () => {
    const id = await sendChannel(t, HAMLET, 'Denmark', 'perm', 'x');
    await setRealm(t, { can_move_messages_between_topics_group: await systemGroupId(t, 'role:moderators') });
    expectError(await patch(OTHELLO, id, { topic: 'perm 2' }), 400, "You don't have permission to edit this message");
    expect((await patch(SHIVA, id, { topic: 'perm 2' })).status).toBe(200);
    await setRealm(t, { can_move_messages_between_topics_group: await systemGroupId(t, 'role:everyone') });
    t.app.get(Clock).advance((604800 + 21) * 1000);
    expectError(
      await patch(OTHELLO, id, { topic: 'perm 3' }),
      400,
      "The time limit for editing this message's topic has passed.",
    );
    expect((await patch(SHIVA, id, { topic: 'perm 3' })).status).toBe(200);
  });

  it('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED, then change_later from the first allowed id', async () => {
    const old = await sendChannel(t, HAMLET, 'Denmark', 'aging', 'old');
    await t.dataSource.query(`UPDATE message SET date_sent = now() - interval '2 hours' WHERE id = $1`, [old]);
    const recent = await sendChannel(t, HAMLET, 'Denmark', 'aging', 'recent');
    await setRealm(t, { move_messages_within_stream_limit_seconds: 3600 });
    const res = await patch(HAMLET, recent, { topic: 'aged', propagate_mode: 'change_all' });
    expectError(
      res,
      400,
      'You only have permission to move the 1/2 most recent messages in this topic.',
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    );
    expectMatchesOpenApi('patch', '/messages/{message_id}', 400, res.body);
    expect(res.body).toMatchObject({
      first_message_id_allowed_to_move: recent,
      total_messages_in_topic: 2,
      total_messages_allowed_to_move: 1,
    });
    // Moderators are exempt.
    expect((await patch(HAMLET, recent, { topic: 'aged', propagate_mode: 'change_later' })).status).toBe(200);
    expect((await row(old)).subject).toBe('aging');
    expect((await row(recent)).subject).toBe('aged');
    await setRealm(t, { move_messages_within_stream_limit_seconds: 604800 });
  });

  it('moves to another channel: permissions, UserMessage rows, first_message_id, events', async () => {
    // "core team" is private: only iago, desdemona... see seed; make it protected-history.
    const zoeChannel = 'move target';
    const create = await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: zoeChannel }],
      invite_only: true,
      history_public_to_subscribers: false,
    });
    expect(create.status).toBe(200);
    const targetId = await channelId(t, zoeChannel);
    const id = await sendChannel(t, HAMLET, 'Verona', 'to move', 'moving');
    // Members may not move out of channels by default? (realm default role:members) → hamlet can; but target is private.
    expectError(await patch(HAMLET, id, { stream_id: targetId }), 400, 'Invalid channel ID');
    const qOthello = await openQueue(t, OTHELLO, ['delete_message', 'update_message'], {
      client_capabilities: { bulk_message_deletion: true },
    });
    const qIago = await openQueue(t, IAGO, ['update_message', 'message']);
    const res = await patch(IAGO, id, { stream_id: targetId, propagate_mode: 'change_all' });
    expect(res.status).toBe(200);
    expect((await row(id)).recipient_id).not.toBeNull();
    // Othello lost access: no row, a delete event, and the message is no longer accessible.
    expect(await umFlags(t, OTHELLO, id)).toBeNull();
    const oe = await takeEvents(t, qOthello);
    expect(oe).toEqual([
      {
        type: 'delete_message',
        message_ids: [id],
        message_type: 'stream',
        stream_id: await channelId(t, 'Verona'),
        topic: 'to move',
      },
    ]);
    expectError(await patch(OTHELLO, id, { topic: 'x' }), 400, 'Invalid message(s)');
    // Iago (subscriber of the protected target) got a row and the update event.
    expect(await umFlags(t, IAGO, id)).not.toBeNull();
    const ie = (await takeEvents(t, qIago)).filter((e) => e.type === 'update_message');
    expect(ie[0]).toMatchObject({
      new_stream_id: targetId,
      stream_id: await channelId(t, 'Verona'),
      orig_subject: 'to move',
    });
    const first = await t.dataSource.query<Array<{ first_message_id: number }>>(
      `SELECT first_message_id FROM stream WHERE id = $1`,
      [targetId],
    );
    const min = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT min(m.id) AS id FROM message m JOIN stream s ON s.recipient_id = m.recipient_id WHERE s.id = $1`,
      [targetId],
    );
    expect(first[0].first_message_id).toBe(min[0].id);
    const moved = await topicMessages(zoeChannel, 'to move');
    expect(moved[moved.length - 1].content).toMatch(/^This topic was moved here from #\*\*Verona>to move\*\* by/);
  });

  it('channel move permission and limits', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'perm move', 'x');
    const denmark = await channelId(t, 'Denmark');
    // The guest is not subscribed to the target: it does not exist for them.
    expectError(await patch(POLONIUS, id, { stream_id: denmark }), 400, 'Invalid channel ID');
    await setRealm(t, { can_move_messages_between_channels_group: await systemGroupId(t, 'role:administrators') });
    expectError(await patch(HAMLET, id, { stream_id: denmark }), 400, "You don't have permission to move this message");
    await setRealm(t, { can_move_messages_between_channels_group: await systemGroupId(t, 'role:members') });
    t.app.get(Clock).advance((604800 + 21) * 1000);
    expectError(
      await patch(HAMLET, id, { stream_id: denmark }),
      400,
      "The time limit for editing this message's channel has passed",
    );
    expect((await patch(IAGO, id, { stream_id: denmark, send_notification_to_new_thread: false })).status).toBe(200);
    expect(await topicMessages('Denmark', 'perm move')).toHaveLength(1);
  });

  it('protected history: change_all moves only what the caller can access', async () => {
    const name = 'protected edit';
    await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name }],
      invite_only: true,
      history_public_to_subscribers: false,
    });
    const early = await sendChannel(t, IAGO, name, 'secret', 'before hamlet');
    await subscribe(t, IAGO, name, [HAMLET]);
    const later = await sendChannel(t, HAMLET, name, 'secret', 'after hamlet');
    expectError(await patch(HAMLET, early, { topic: 'x' }), 400, 'Invalid message(s)');
    expect((await patch(HAMLET, later, { topic: 'public now', propagate_mode: 'change_all' })).status).toBe(200);
    expect((await row(early)).subject).toBe('secret');
    expect((await row(later)).subject).toBe('public now');
  });

  it('wildcard mentions on edit need permission in big channels', async () => {
    // Verona has few subscribers in the demo realm: subscribe many to exceed 15? Use the realm threshold check via group setting.
    const id = await sendChannel(t, HAMLET, 'Verona', 'wild', 'x');
    const count = await t.dataSource.query<Array<{ n: string }>>(
      `SELECT count(*) AS n FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id WHERE s.name='Verona' AND sub.active`,
    );
    if (Number(count[0].n) > 15) {
      expectError(
        await patch(HAMLET, id, { content: '@**all**' }),
        400,
        'You do not have permission to use channel wildcard mentions in this channel.',
        'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      );
    } else {
      expect((await patch(HAMLET, id, { content: '@**all** hi' })).status).toBe(200);
      expect((await umFlags(t, OTHELLO, id))! & 16).toBe(16);
    }
  });
});
