/**
 * Scheduled messages and reminders (zerver/tests/test_scheduled_messages.py, test_reminders.py):
 * GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{id}, GET/POST /reminders,
 * DELETE /reminders/{id}; their events; delivery on the injectable clock (a pass run by hand:
 * workers are off in this app), failures with the failed flag and Notification Bot's notice.
 */
import type { Response } from 'supertest';
import { Clock } from '../../../src/messaging/clock';
import { RealmService } from '../../../src/realm/realm.service';
import { ScheduledDeliveryService } from '../../../src/scheduled-messages/scheduled-delivery.service';
import { UsersService } from '../../../src/users/users.service';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  BOT,
  call,
  channelId,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  openQueue,
  POLONIUS,
  sendChannel,
  sendDirect,
  setRealm,
  setUser,
  systemGroupId,
  takeEvents,
  userId,
} from '../messaging/helpers';

const LEAR_HOST = 'lear.zulip.testserver';
const KING = 'king@lear.test';

describe('scheduled messages and reminders', () => {
  let t: TestApp;
  let verona: number;
  let hamlet: number;
  let othello: number;
  let notificationBot: number;

  beforeAll(async () => {
    t = await startTestApp();
    verona = await channelId(t, 'Verona');
    hamlet = await userId(t, HAMLET);
    othello = await userId(t, OTHELLO);
    notificationBot = await userId(t, 'notification-bot@zulip.com');
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: KING, fullName: 'King Lear', role: 100 });
  });
  afterAll(() => t.close());

  afterEach(() => t.app.get(Clock).reset());

  const now = () => Math.floor(Date.now() / 1000);
  const later = (seconds = 3600) => now() + seconds;

  const schedule = (as: string, params: Record<string, unknown>) => call(t, 'post', '/scheduled_messages', as, params);
  const channelParams = (extra: Record<string, unknown> = {}) => ({
    type: 'stream',
    to: String(verona),
    topic: 'plans',
    content: 'Meet at **noon**',
    scheduled_delivery_timestamp: later(),
    ...extra,
  });
  async function scheduleOk(as: string, params: Record<string, unknown>): Promise<number> {
    const res = await schedule(as, params);
    expect({ status: res.status, body: res.body as unknown }).toEqual({
      status: 200,
      body: { result: 'success', msg: '', scheduled_message_id: expect.any(Number) },
    });
    expectMatchesOpenApi('post', '/scheduled_messages', 200, res.body);
    return (res.body as { scheduled_message_id: number }).scheduled_message_id;
  }
  async function list(as: string): Promise<Array<Record<string, unknown>>> {
    const res = await call(t, 'get', '/scheduled_messages', as);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/scheduled_messages', 200, res.body);
    return (res.body as { scheduled_messages: Array<Record<string, unknown>> }).scheduled_messages;
  }
  async function reminders(as: string): Promise<Array<Record<string, unknown>>> {
    const res = await call(t, 'get', '/reminders', as);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/reminders', 200, res.body);
    return (res.body as { reminders: Array<Record<string, unknown>> }).reminders;
  }
  const rowCount = async () =>
    Number((await t.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM scheduled_message`))[0].n);
  const row = async (id: number) =>
    (
      await t.dataSource.query<
        Array<{ delivered: boolean; failed: boolean; failure_message: string | null; delivered_message_id: number }>
      >(`SELECT delivered, failed, failure_message, delivered_message_id FROM scheduled_message WHERE id = $1`, [id])
    )[0];
  /** Moves the server's clock `seconds` ahead and runs a delivery pass. */
  async function deliverAfter(seconds: number): Promise<number> {
    t.app.get(Clock).advance(seconds * 1000);
    return t.app.get(ScheduledDeliveryService).deliverDue();
  }
  const message = async (id: number) =>
    (
      await t.dataSource.query<
        Array<{ sender_id: number; content: string; subject: string; rendered_content: string; sending_client: string }>
      >(`SELECT sender_id, content, subject, rendered_content, sending_client FROM message WHERE id = $1`, [id])
    )[0];
  const lastNotice = async (userIdTo: number) =>
    (
      await t.dataSource.query<Array<{ id: number; content: string }>>(
        `SELECT m.id, m.content FROM message m JOIN user_message um ON um.message_id = m.id
          WHERE m.sender_id = $1 AND um.user_profile_id = $2 AND NOT m.is_channel_message ORDER BY m.id DESC LIMIT 1`,
        [notificationBot, userIdTo],
      )
    )[0];

  /** The same request to POST /messages gives the same error: scheduling runs the send path's checks. */
  async function expectSameRefusalAsSend(as: string, params: Record<string, unknown>): Promise<Response> {
    const before = await rowCount();
    const { scheduled_delivery_timestamp: _ts, ...sendParams } = params;
    const sent = await call(t, 'post', '/messages', as, sendParams);
    expect(sent.status).toBe(400);
    const res = await schedule(as, params);
    expect({ status: res.status, body: res.body as unknown }).toEqual({ status: sent.status, body: sent.body });
    expect(await rowCount()).toBe(before);
    return res;
  }

  describe('POST /scheduled_messages', () => {
    it('schedules a channel message: listed, announced to the sender only', async () => {
      const q = await openQueue(t, HAMLET, ['scheduled_messages']);
      const other = await openQueue(t, OTHELLO, ['scheduled_messages']);
      const at = later();
      const id = await scheduleOk(HAMLET, channelParams({ scheduled_delivery_timestamp: at }));
      const dict = {
        scheduled_message_id: id,
        type: 'stream',
        to: verona,
        topic: 'plans',
        content: 'Meet at **noon**',
        rendered_content: '<p>Meet at <strong>noon</strong></p>',
        scheduled_delivery_timestamp: at,
        failed: false,
      };
      expect(await list(HAMLET)).toEqual([dict]);
      expect(await list(OTHELLO)).toEqual([]);
      expect(await takeEvents(t, q)).toEqual([{ type: 'scheduled_messages', op: 'add', scheduled_messages: [dict] }]);
      expect(await takeEvents(t, other)).toEqual([]);
      await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
    });

    it('schedules direct messages (type direct or private), to others or to oneself', async () => {
      const at = later(7200);
      const toOthello = await scheduleOk(HAMLET, {
        type: 'direct',
        to: JSON.stringify([othello, othello]),
        content: 'Hi',
        scheduled_delivery_timestamp: at,
      });
      const toSelf = await scheduleOk(HAMLET, {
        type: 'private',
        to: `[${hamlet}]`,
        content: 'Note to self',
        scheduled_delivery_timestamp: at,
        topic: 'ignored',
      });
      const mine = await list(HAMLET);
      expect(mine).toEqual([
        {
          scheduled_message_id: toOthello,
          type: 'private',
          to: [othello],
          content: 'Hi',
          rendered_content: '<p>Hi</p>',
          scheduled_delivery_timestamp: at,
          failed: false,
        },
        expect.objectContaining({ scheduled_message_id: toSelf, type: 'private', to: [hamlet] }),
      ]);
      for (const id of [toOthello, toSelf]) await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
    });

    it('refuses times not in the future, and writes nothing', async () => {
      for (const ts of [now() - 60, now(), -5, -(10 ** 15)]) {
        const before = await rowCount();
        const res = await schedule(HAMLET, channelParams({ scheduled_delivery_timestamp: ts }));
        expectError(res, 400, 'Scheduled delivery time must be in the future.');
        expectMatchesOpenApi('post', '/scheduled_messages', 400, res.body);
        expect(await rowCount()).toBe(before);
      }
      // The past is checked before the addressee (Zulip's order).
      const res = await schedule(HAMLET, channelParams({ to: 'x', scheduled_delivery_timestamp: now() - 1 }));
      expectError(res, 400, 'Scheduled delivery time must be in the future.');
      // The injectable clock decides what the future is.
      t.app.get(Clock).advance(7200_000);
      expectError(
        await schedule(HAMLET, channelParams({ scheduled_delivery_timestamp: later(3600) })),
        400,
        'Scheduled delivery time must be in the future.',
      );
    });

    it('checks its parameters in Zulip’s words', async () => {
      const before = await rowCount();
      const { type: _type, ...noType } = channelParams();
      const missing = await schedule(HAMLET, noType);
      expectError(missing, 400, "Missing 'type' argument", 'REQUEST_VARIABLE_MISSING');
      expectError(await schedule(HAMLET, channelParams({ type: 'group' })), 400, 'Invalid type');
      const { scheduled_delivery_timestamp: _ts, ...noTime } = channelParams();
      expectError(
        await schedule(HAMLET, noTime),
        400,
        "Missing 'scheduled_delivery_timestamp' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expect((await schedule(HAMLET, channelParams({ scheduled_delivery_timestamp: 'soon' }))).status).toBe(400);
      expect((await schedule(HAMLET, channelParams({ scheduled_delivery_timestamp: 1.5 }))).status).toBe(400);
      expectError(
        await schedule(HAMLET, channelParams({ scheduled_delivery_timestamp: 10 ** 15 })),
        400,
        'Invalid scheduled_delivery_timestamp',
      );
      expectError(await schedule(HAMLET, channelParams({ to: 'Verona' })), 400, 'Invalid data type for channel ID');
      expectError(
        await schedule(HAMLET, channelParams({ type: 'direct', to: OTHELLO })),
        400,
        'Invalid data type for recipients',
      );
      expectError(
        await schedule(HAMLET, channelParams({ type: 'direct', to: JSON.stringify([OTHELLO]) })),
        400,
        'Recipient list may only contain user IDs',
      );
      expect(await rowCount()).toBe(before);
    });

    it('refuses what a send would refuse, with the send’s error', async () => {
      await expectSameRefusalAsSend(HAMLET, channelParams({ to: '999999' }));
      await expectSameRefusalAsSend(HAMLET, channelParams({ to: '99999999999999' }));
      await expectSameRefusalAsSend(HAMLET, channelParams({ topic: undefined }));
      await expectSameRefusalAsSend(HAMLET, channelParams({ content: '  ' }));
      await expectSameRefusalAsSend(HAMLET, channelParams({ type: 'direct', to: '[]' }));
      await expectSameRefusalAsSend(HAMLET, channelParams({ type: 'direct', to: '[999999]' }));
      // A private channel the sender is not in.
      const created = await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name: 'secret plans' }],
        invite_only: true,
      });
      expect(created.status).toBe(200);
      const secret = await channelId(t, 'secret plans');
      await expectSameRefusalAsSend(HAMLET, channelParams({ to: String(secret) }));
      // A channel where only administrators may post.
      await call(t, 'patch', `/streams/${secret}`, IAGO, {
        can_send_message_group: JSON.stringify({ new: await systemGroupId(t, 'role:administrators') }),
        is_private: false,
      });
      await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'secret plans' }] });
      await expectSameRefusalAsSend(HAMLET, channelParams({ to: String(secret) }));
    });

    it('guests: only where they may send', async () => {
      // A public channel the guest is not in.
      expect(
        (await call(t, 'post', '/users/me/subscriptions', IAGO, { subscriptions: [{ name: 'members only' }] })).status,
      ).toBe(200);
      await expectSameRefusalAsSend(POLONIUS, channelParams({ to: String(await channelId(t, 'members only')) }));
      const id = await scheduleOk(POLONIUS, {
        type: 'direct',
        to: JSON.stringify([hamlet]),
        content: 'From a guest',
        scheduled_delivery_timestamp: later(),
      });
      expect((await list(POLONIUS)).map((m) => m.scheduled_message_id)).toEqual([id]);
      await call(t, 'delete', `/scheduled_messages/${id}`, POLONIUS);
    });

    it('bots may schedule; another realm’s channel does not exist for its users', async () => {
      const id = await scheduleOk(BOT, channelParams());
      expect((await list(BOT)).map((m) => m.scheduled_message_id)).toEqual([id]);
      await call(t, 'delete', `/scheduled_messages/${id}`, BOT);

      const res = await t
        .http()
        .post('/api/v1/scheduled_messages')
        .set('Host', LEAR_HOST)
        .auth(...(await t.auth(KING, 'lear')))
        .type('form')
        .send({ type: 'stream', to: String(verona), topic: 'x', content: 'y', scheduled_delivery_timestamp: later() });
      expectError(res, 400, `Channel with ID '${verona}' does not exist`, 'STREAM_DOES_NOT_EXIST');
    });

    it('deactivated users are refused', async () => {
      await setUser(t, OTHELLO, { is_active: false });
      try {
        const res = await schedule(OTHELLO, channelParams());
        expect(res.status).toBe(401);
        expect((await call(t, 'get', '/scheduled_messages', OTHELLO)).status).toBe(401);
      } finally {
        await setUser(t, OTHELLO, { is_active: true });
      }
    });
  });

  describe('PATCH and DELETE /scheduled_messages/{id}', () => {
    it('edits content, topic, time and addressee, announcing each change', async () => {
      const id = await scheduleOk(HAMLET, channelParams());
      const q = await openQueue(t, HAMLET, ['scheduled_messages']);
      const patch = (params: Record<string, unknown>) => call(t, 'patch', `/scheduled_messages/${id}`, HAMLET, params);
      const res = await patch({ content: 'New *text*' });
      expect(res.body).toEqual({ result: 'success', msg: '' });
      expectMatchesOpenApi('patch', '/scheduled_messages/{scheduled_message_id}', 200, res.body);
      const at = later(5000);
      expect((await patch({ topic: 'new plans', scheduled_delivery_timestamp: at })).status).toBe(200);
      const channelDict = {
        scheduled_message_id: id,
        type: 'stream',
        to: verona,
        topic: 'new plans',
        content: 'New *text*',
        rendered_content: '<p>New <em>text</em></p>',
        scheduled_delivery_timestamp: at,
        failed: false,
      };
      expect(await list(HAMLET)).toEqual([channelDict]);
      expect((await patch({ type: 'direct', to: JSON.stringify([othello]) })).status).toBe(200);
      const directDict = {
        scheduled_message_id: id,
        type: 'private',
        to: [othello],
        content: 'New *text*',
        rendered_content: '<p>New <em>text</em></p>',
        scheduled_delivery_timestamp: at,
        failed: false,
      };
      expect(await list(HAMLET)).toEqual([directDict]);
      // A topic alone is ignored for a direct message.
      expect((await patch({ topic: 'ignored' })).status).toBe(200);
      const events = await takeEvents(t, q);
      expect(events.map((e) => e.op)).toEqual(['update', 'update', 'update', 'update']);
      expect(events[1]).toEqual({ type: 'scheduled_messages', op: 'update', scheduled_message: channelDict });
      expect(events[3]).toEqual({ type: 'scheduled_messages', op: 'update', scheduled_message: directDict });

      const del = await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
      expect(del.body).toEqual({ result: 'success', msg: '' });
      expectMatchesOpenApi('delete', '/scheduled_messages/{scheduled_message_id}', 200, del.body);
      expect(await takeEvents(t, q)).toEqual([{ type: 'scheduled_messages', op: 'remove', scheduled_message_id: id }]);
      expect(await list(HAMLET)).toEqual([]);
    });

    it('refuses bad edits in Zulip’s order and words, changing nothing', async () => {
      const id = await scheduleOk(HAMLET, channelParams());
      const patch = (params: Record<string, unknown>) => call(t, 'patch', `/scheduled_messages/${id}`, HAMLET, params);
      const before = await list(HAMLET);
      expectError(await patch({}), 400, 'Nothing to change');
      expectError(await patch({ type: 'direct' }), 400, 'Recipient required when updating type of scheduled message.');
      expectError(
        await patch({ type: 'channel', to: String(verona) }),
        400,
        'Topic required when updating scheduled message type to channel.',
      );
      expectError(
        await patch({ scheduled_delivery_timestamp: now() - 10 }),
        400,
        'Scheduled delivery time must be in the future.',
      );
      expectError(await patch({ content: '' }), 400, 'Message must not be empty');
      expectError(await patch({ to: 'abc' }), 400, 'Invalid data type for channel ID');
      const sent = await call(t, 'post', '/messages', HAMLET, {
        type: 'stream',
        to: '999999',
        topic: 'a',
        content: 'b',
      });
      const bad = await patch({ to: '999999' });
      expect(bad.body).toEqual(sent.body);
      expect(await list(HAMLET)).toEqual(before);
      await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
    });

    it('unknown, others’, other realms’ and reminders’ ids do not exist', async () => {
      const id = await scheduleOk(HAMLET, channelParams());
      const msg = await sendChannel(t, HAMLET, 'Verona', 'r', 'remind me');
      const reminder = (
        await call(t, 'post', '/reminders', HAMLET, { message_id: msg, scheduled_delivery_timestamp: later() })
      ).body as { reminder_id: number };
      for (const [as, target] of [
        [OTHELLO, id],
        [HAMLET, 999999],
        [HAMLET, reminder.reminder_id],
      ] as const) {
        const p = await call(t, 'patch', `/scheduled_messages/${target}`, as, { content: 'x' });
        expectError(p, 404, 'Scheduled message does not exist');
        expectMatchesOpenApi('patch', '/scheduled_messages/{scheduled_message_id}', 404, p.body);
        const d = await call(t, 'delete', `/scheduled_messages/${target}`, as);
        expectError(d, 404, 'Scheduled message does not exist');
        expectMatchesOpenApi('delete', '/scheduled_messages/{scheduled_message_id}', 404, d.body);
      }
      const lear = await t
        .http()
        .delete(`/api/v1/scheduled_messages/${id}`)
        .set('Host', LEAR_HOST)
        .auth(...(await t.auth(KING, 'lear')));
      expectError(lear, 404, 'Scheduled message does not exist');
      expect((await call(t, 'delete', '/scheduled_messages/abc', HAMLET)).status).toBe(404);
      expect((await call(t, 'delete', '/scheduled_messages/99999999999999999999', HAMLET)).status).toBe(404);
      expect(await list(HAMLET)).toHaveLength(1);
      await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
      await call(t, 'delete', `/reminders/${reminder.reminder_id}`, HAMLET);
    });
  });

  describe('delivery', () => {
    it('sends at the scheduled time as the sender through the send path; the entry leaves the list', async () => {
      const at = later(600);
      const id = await scheduleOk(HAMLET, channelParams({ scheduled_delivery_timestamp: at, read_by_sender: true }));
      const q = await openQueue(t, HAMLET, ['scheduled_messages', 'message']);
      const watcher = await openQueue(t, OTHELLO, ['message']);
      expect(await deliverAfter(0)).toBe(0);
      expect(await deliverAfter(590)).toBe(0);
      expect(await deliverAfter(11)).toBe(1);
      const stored = await row(id);
      expect(stored).toEqual(
        expect.objectContaining({ delivered: true, failed: false, delivered_message_id: expect.any(Number) }),
      );
      expect(await message(stored.delivered_message_id)).toEqual(
        expect.objectContaining({ sender_id: hamlet, content: 'Meet at **noon**', subject: 'plans' }),
      );
      const events = await takeEvents(t, q);
      expect(events.map((e) => e.type)).toEqual(['message', 'scheduled_messages']);
      expect(events[0].flags).toEqual(['read']);
      expect(events[1]).toEqual({ type: 'scheduled_messages', op: 'remove', scheduled_message_id: id });
      expect((await takeEvents(t, watcher)).map((e) => (e.message as { id: number }).id)).toEqual([
        stored.delivered_message_id,
      ]);
      expect(await list(HAMLET)).toEqual([]);
      // Nothing more to do, and an edit now is refused.
      expect(await deliverAfter(60)).toBe(0);
      expectError(
        await call(t, 'patch', `/scheduled_messages/${id}`, HAMLET, { content: 'late edit' }),
        400,
        'Scheduled message was already sent',
      );
    });

    it('a sender who lost permission meanwhile: failed flag, update event, Notification Bot notice', async () => {
      const at = later(300);
      const id = await scheduleOk(HAMLET, channelParams({ topic: 'doomed', scheduled_delivery_timestamp: at }));
      const admins = await systemGroupId(t, 'role:administrators');
      const everyone = await systemGroupId(t, 'role:everyone');
      const setSenders = (group: number) =>
        call(t, 'patch', `/streams/${verona}`, IAGO, { can_send_message_group: JSON.stringify({ new: group }) });
      expect((await setSenders(admins)).status).toBe(200);
      const q = await openQueue(t, HAMLET, ['scheduled_messages', 'message']);
      try {
        expect(await deliverAfter(301)).toBe(1);
      } finally {
        await setSenders(everyone);
      }
      expect(await row(id)).toEqual(
        expect.objectContaining({
          delivered: false,
          failed: true,
          failure_message: 'You do not have permission to post in this channel.',
        }),
      );
      const [entry] = await list(HAMLET);
      expect(entry).toEqual(expect.objectContaining({ scheduled_message_id: id, failed: true }));
      const events = await takeEvents(t, q);
      // (then the notice of the channel's permission change, restored above)
      expect(events.slice(0, 2).map((e) => [e.type, e.op])).toEqual([
        ['scheduled_messages', 'update'],
        ['message', undefined],
      ]);
      expect(events[0]).toEqual({ type: 'scheduled_messages', op: 'update', scheduled_message: entry });
      const iso = new Date(at * 1000).toISOString().replace('.000Z', '+00:00');
      expect((await lastNotice(hamlet)).content).toBe(
        `The message you scheduled for <time:${iso}> was not sent because of the following error:\n\n` +
          '> You do not have permission to post in this channel.\n\n[View scheduled messages](#scheduled)',
      );
      // Not retried; an edit without a new time is refused, with one it is scheduled again.
      expect(await deliverAfter(60)).toBe(0);
      const patch = (params: Record<string, unknown>) => call(t, 'patch', `/scheduled_messages/${id}`, HAMLET, params);
      expectError(await patch({ content: 'again' }), 400, 'Scheduled delivery time must be in the future.');
      const clockNow = Math.floor(t.app.get(Clock).now().getTime() / 1000);
      expect((await patch({ scheduled_delivery_timestamp: clockNow + 30 })).status).toBe(200);
      expect((await list(HAMLET))[0].failed).toBe(false);
      expect(await deliverAfter(31)).toBe(1);
      expect((await row(id)).delivered).toBe(true);
    });

    it('more than 10 minutes late: failed, with Zulip’s text', async () => {
      const id = await scheduleOk(HAMLET, channelParams({ scheduled_delivery_timestamp: later(60) }));
      expect(await deliverAfter(60 + 11 * 60)).toBe(1);
      expect(await row(id)).toEqual(
        expect.objectContaining({ failed: true, failure_message: 'Message could not be sent at the scheduled time.' }),
      );
      await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
    });

    it('a deactivated sender: failed, no notice', async () => {
      const id = await scheduleOk(OTHELLO, channelParams({ scheduled_delivery_timestamp: later(60) }));
      const before = await lastNotice(othello);
      await setUser(t, OTHELLO, { is_active: false });
      try {
        expect(await deliverAfter(61)).toBe(1);
      } finally {
        await setUser(t, OTHELLO, { is_active: true });
      }
      expect(await row(id)).toEqual(
        expect.objectContaining({ failed: true, failure_message: 'Account is deactivated' }),
      );
      expect(await lastNotice(othello)).toEqual(before);
    });

    it('a deactivated organization: failed, no notice', async () => {
      const id = await scheduleOk(HAMLET, channelParams({ scheduled_delivery_timestamp: later(60) }));
      const before = await lastNotice(hamlet);
      await setRealm(t, { deactivated: true });
      try {
        expect(await deliverAfter(61)).toBe(1);
      } finally {
        await setRealm(t, { deactivated: false });
      }
      expect(await row(id)).toEqual(
        expect.objectContaining({ failed: true, failure_message: 'This organization has been deactivated' }),
      );
      expect(await lastNotice(hamlet)).toEqual(before);
      await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
    });

    it('an edit waits for a delivery in progress, then finds it sent', async () => {
      const id = await scheduleOk(HAMLET, channelParams());
      const runner = t.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        // A deliverer holds the row.
        await runner.query(`SELECT id FROM scheduled_message WHERE id = $1 FOR UPDATE`, [id]);
        const edit = call(t, 'patch', `/scheduled_messages/${id}`, HAMLET, { content: 'too late' });
        const settled = await Promise.race([
          edit.then(() => 'answered'),
          new Promise((r) => setTimeout(r, 300, 'waiting')),
        ]);
        expect(settled).toBe('waiting');
        await runner.query(`UPDATE scheduled_message SET delivered = true WHERE id = $1`, [id]);
        await runner.commitTransaction();
        expectError(await edit, 400, 'Scheduled message was already sent');
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    });

    it('re-renders at delivery: a mention of a user who joined later', async () => {
      const id = await scheduleOk(HAMLET, {
        type: 'direct',
        to: JSON.stringify([othello]),
        content: 'Hello @**Othello, the Moor of Venice**',
        scheduled_delivery_timestamp: later(60),
      });
      expect(await deliverAfter(61)).toBe(1);
      const sent = await message((await row(id)).delivered_message_id);
      expect(sent.rendered_content).toContain('user-mention');
      expect(sent.sending_client).toBeTruthy();
    });
  });

  it('metrics: outcomes and the backlog of due messages', async () => {
    const id = await scheduleOk(HAMLET, channelParams({ scheduled_delivery_timestamp: later(60) }));
    const sample = (text: string, name: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.slice(name.length + 1));
    };
    t.app.get(Clock).advance(61_000);
    let text = (await t.http().get('/metrics')).text;
    expect(sample(text, 'zulip_job_queue_depth{queue="scheduled_messages"}')).toBe(1);
    const delivered = sample(text, 'zulip_scheduled_messages_total{outcome="delivered"}') ?? 0;
    expect(await t.app.get(ScheduledDeliveryService).deliverDue()).toBe(1);
    expect((await row(id)).delivered).toBe(true);
    text = (await t.http().get('/metrics')).text;
    expect(sample(text, 'zulip_job_queue_depth{queue="scheduled_messages"}')).toBe(0);
    expect(sample(text, 'zulip_scheduled_messages_total{outcome="delivered"}')).toBe(delivered + 1);
    expect(sample(text, 'zulip_scheduled_messages_total{outcome="failed"}')).toBeGreaterThanOrEqual(1);
  });

  describe('reminders', () => {
    it('POST /reminders: Zulip’s text, listed, announced; delivered by Notification Bot', async () => {
      const msg = await sendChannel(t, OTHELLO, 'Verona', 'reminders', 'Do not forget');
      const q = await openQueue(t, HAMLET, ['reminders', 'message']);
      const at = later(120);
      const res = await call(t, 'post', '/reminders', HAMLET, {
        message_id: msg,
        scheduled_delivery_timestamp: at,
        note: 'important\n\n',
      });
      expect(res.body).toEqual({ result: 'success', msg: '', reminder_id: expect.any(Number) });
      expectMatchesOpenApi('post', '/reminders', 200, res.body);
      const id = (res.body as { reminder_id: number }).reminder_id;
      const realmUrl = t.app.get(RealmService).realmUrl({ stringId: 'zulip' });
      const othelloName = 'Othello, the Moor of Venice';
      const content =
        'You requested a reminder for the following message. Note:\n > important\n\n' +
        `@_**${othelloName}|${othello}** [said](${realmUrl}/#narrow/channel/${verona}-Verona/topic/reminders/near/${msg}) ` +
        `in #**Verona>reminders@${msg}**:\n\`\`\`quote\nDo not forget\n\`\`\``;
      const dict = {
        reminder_id: id,
        type: 'private',
        to: [hamlet],
        content,
        rendered_content: expect.stringContaining('<blockquote>'),
        scheduled_delivery_timestamp: at,
        failed: false,
        reminder_target_message_id: msg,
      };
      expect(await reminders(HAMLET)).toEqual([dict]);
      expect(await reminders(OTHELLO)).toEqual([]);
      expect((await list(HAMLET)).map((m) => m.scheduled_message_id)).not.toContain(id);
      expect(await takeEvents(t, q)).toEqual([{ type: 'reminders', op: 'add', reminders: [dict] }]);

      expect(await deliverAfter(121)).toBe(1);
      const stored = await row(id);
      expect(stored.delivered).toBe(true);
      const sent = await message(stored.delivered_message_id);
      expect(sent).toEqual(expect.objectContaining({ sender_id: notificationBot, content }));
      const events = await takeEvents(t, q);
      expect(events.map((e) => e.type)).toEqual(['message', 'reminders']);
      expect(events[1]).toEqual({ type: 'reminders', op: 'remove', reminder_id: id });
      expect(await reminders(HAMLET)).toEqual([]);
    });

    it('reminders of direct messages name the other participants', async () => {
      const msg = await sendDirect(t, OTHELLO, [hamlet], 'Between us');
      const res = await call(t, 'post', '/reminders', HAMLET, {
        message_id: msg,
        scheduled_delivery_timestamp: later(),
      });
      expect(res.status).toBe(200);
      const [r] = (await reminders(HAMLET)).filter(
        (x) => x.reminder_id === (res.body as { reminder_id: number }).reminder_id,
      );
      const realmUrl = t.app.get(RealmService).realmUrl({ stringId: 'zulip' });
      const ids = [hamlet, othello].sort((a, b) => a - b).join(',');
      expect(r.content).toBe(
        'You requested a reminder for the following direct message.\n\n' +
          `@_**Othello, the Moor of Venice|${othello}** [said](${realmUrl}/#narrow/dm/${ids}-dm/near/${msg}) ` +
          `to @_**King Hamlet|${hamlet}**:\n\`\`\`quote\nBetween us\n\`\`\``,
      );
      const del = await call(t, 'delete', `/reminders/${r.reminder_id as number}`, HAMLET);
      expect(del.body).toEqual({ result: 'success', msg: '' });
      expectMatchesOpenApi('delete', '/reminders/{reminder_id}', 200, del.body);
      expect(await reminders(HAMLET)).toEqual([]);
    });

    it('refuses past times, inaccessible messages, long notes and unknown ids; writes nothing', async () => {
      const msg = await sendChannel(t, HAMLET, 'Verona', 'r2', 'mine');
      const before = await rowCount();
      const post = (params: Record<string, unknown>, as = HAMLET) => call(t, 'post', '/reminders', as, params);
      expectError(
        await post({ message_id: 999999, scheduled_delivery_timestamp: now() - 1 }),
        400,
        'Scheduled delivery time must be in the future.',
      );
      expectError(await post({ message_id: 999999, scheduled_delivery_timestamp: later() }), 400, 'Invalid message(s)');
      expectError(
        await post({ message_id: msg, scheduled_delivery_timestamp: later(), note: 'x'.repeat(1001) }),
        400,
        'Maximum reminder note length: 1000 characters',
      );
      expectError(
        await post({ scheduled_delivery_timestamp: later() }),
        400,
        "Missing 'message_id' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      // A direct message between others; another realm's user.
      const dm = await sendDirect(t, IAGO, [othello], 'private');
      expectError(await post({ message_id: dm, scheduled_delivery_timestamp: later() }), 400, 'Invalid message(s)');
      const lear = await t
        .http()
        .post('/api/v1/reminders')
        .set('Host', LEAR_HOST)
        .auth(...(await t.auth(KING, 'lear')))
        .type('form')
        .send({ message_id: String(msg), scheduled_delivery_timestamp: String(later()) });
      expectError(lear, 400, 'Invalid message(s)');
      expect(await rowCount()).toBe(before);

      const sched = await scheduleOk(HAMLET, channelParams());
      for (const target of [999999, sched]) {
        const d = await call(t, 'delete', `/reminders/${target}`, HAMLET);
        expectError(d, 404, 'Reminder does not exist');
        expectMatchesOpenApi('delete', '/reminders/{reminder_id}', 404, d.body);
      }
      const own = (await post({ message_id: msg, scheduled_delivery_timestamp: later() })).body as {
        reminder_id: number;
      };
      expectError(await call(t, 'delete', `/reminders/${own.reminder_id}`, OTHELLO), 404, 'Reminder does not exist');
      await call(t, 'delete', `/reminders/${own.reminder_id}`, HAMLET);
      await call(t, 'delete', `/scheduled_messages/${sched}`, HAMLET);
    });

    it('guests and bots: on messages they can read', async () => {
      await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'members only' }] });
      const msg = await sendChannel(t, HAMLET, 'members only', 'r3', 'for the bot');
      const bot = await call(t, 'post', '/reminders', BOT, { message_id: msg, scheduled_delivery_timestamp: later() });
      expect(bot.status).toBe(200);
      // Polonius (a guest) is not in that channel.
      expectError(
        await call(t, 'post', '/reminders', POLONIUS, { message_id: msg, scheduled_delivery_timestamp: later() }),
        400,
        'Invalid message(s)',
      );
      const dm = await sendDirect(t, HAMLET, [await userId(t, POLONIUS)], 'to the guest');
      const guest = await call(t, 'post', '/reminders', POLONIUS, {
        message_id: dm,
        scheduled_delivery_timestamp: later(),
      });
      expect(guest.status).toBe(200);
    });

    it('a reminder whose message became unreachable is sent with the text it had', async () => {
      const created = await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name: 'closing soon' }],
        invite_only: true,
        principals: JSON.stringify([hamlet, await userId(t, IAGO)]),
      });
      expect(created.status).toBe(200);
      const msg = await sendChannel(t, IAGO, 'closing soon', 'topic', 'Read this');
      const res = await call(t, 'post', '/reminders', HAMLET, {
        message_id: msg,
        scheduled_delivery_timestamp: later(60),
      });
      expect(res.status).toBe(200);
      const [r] = (await reminders(HAMLET)).filter(
        (x) => x.reminder_id === (res.body as { reminder_id: number }).reminder_id,
      );
      await call(t, 'delete', '/users/me/subscriptions', HAMLET, { subscriptions: JSON.stringify(['closing soon']) });
      await deliverAfter(61);
      const stored = await row(r.reminder_id as number);
      expect(stored.delivered).toBe(true);
      expect((await message(stored.delivered_message_id)).content).toBe(r.content);
    });
  });

  describe('/register', () => {
    it('scheduled_messages and reminders, gated by fetch_event_types', async () => {
      const id = await scheduleOk(HAMLET, channelParams());
      const both = await call(t, 'post', '/register', HAMLET, {
        fetch_event_types: ['scheduled_messages', 'reminders'],
      });
      const body = both.body as Record<string, unknown>;
      expect(
        (body.scheduled_messages as Array<{ scheduled_message_id: number }>).map((m) => m.scheduled_message_id),
      ).toEqual((await list(HAMLET)).map((m) => m.scheduled_message_id));
      expect(body.reminders).toEqual(await reminders(HAMLET));
      const neither = (await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm'] })).body as Record<
        string,
        unknown
      >;
      expect(neither.scheduled_messages).toBeUndefined();
      expect(neither.reminders).toBeUndefined();
      await call(t, 'delete', `/scheduled_messages/${id}`, HAMLET);
    });
  });
});
