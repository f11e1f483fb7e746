import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Flag } from '../../../src/messaging/flags';
import {
  AARON,
  addSubscribers,
  BOT,
  call,
  channelId,
  CORDELIA,
  createUsers,
  DESDEMONA,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  openQueue,
  POLONIUS,
  PROSPERO,
  sendChannel,
  setChannel,
  setRealm,
  setUser,
  SHIVA,
  systemGroupId,
  takeEvents,
  umFlags,
  userId,
  ZOE,
  channelsChanged,
} from './helpers';

const UI_CLIENT = { 'User-Agent': 'ZulipMobile/27.192 (Android 10)' };
const API_CLIENT = { 'User-Agent': 'ZulipPython/0.9.0' };

describe('POST /messages', () => {
  let t: TestApp;
  const send = (email: string, params: Record<string, unknown>, headers: Record<string, string> = API_CLIENT) =>
    call(t, 'post', '/messages', email, params, headers);
  const stored = async (id: number) =>
    (
      await t.dataSource.query<Array<Record<string, unknown>>>(
        `SELECT subject, content, rendered_content, sending_client, is_channel_message, recipient_id, sender_id FROM message WHERE id = $1`,
        [id],
      )
    )[0];
  const recipientsOf = async (id: number) =>
    (
      await t.dataSource.query<Array<{ user_profile_id: number }>>(
        `SELECT user_profile_id FROM user_message WHERE message_id = $1 ORDER BY 1`,
        [id],
      )
    ).map((r) => r.user_profile_id);

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('channel messages', () => {
    it('sends by channel name and writes one UserMessage row per subscriber', async () => {
      const res = await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'greetings', content: 'Hello **world**' });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/messages', 200, res.body);
      const id = (res.body as { id: number }).id;
      expect(res.body).toEqual({ result: 'success', msg: '', id });
      expect(await stored(id)).toMatchObject({
        subject: 'greetings',
        content: 'Hello **world**',
        rendered_content: '<p>Hello <strong>world</strong></p>',
        sending_client: 'ZulipPython',
        is_channel_message: true,
      });
      const subscribers = await t.dataSource.query<Array<{ user_profile_id: number }>>(
        `SELECT sub.user_profile_id FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id
          WHERE s.name = 'Verona' AND sub.active ORDER BY 1`,
      );
      expect(await recipientsOf(id)).toEqual(subscribers.map((s) => s.user_profile_id));
      // An API client's message is unread for its sender too.
      expect(await umFlags(t, HAMLET, id)).toBe(0);
    });

    it('accepts the channel id, a JSON name, a one-element list and the `channel` type', async () => {
      const verona = await channelId(t, 'Verona');
      for (const [type, to] of [
        ['stream', String(verona)],
        ['channel', JSON.stringify('Verona')],
        ['stream', JSON.stringify([verona])],
        ['channel', 'verona'],
      ]) {
        const res = await send(HAMLET, { type, to, topic: 'ids', content: 'x' });
        expect(res.status).toBe(200);
        expect((await stored((res.body as { id: number }).id)).recipient_id).toBe(
          (
            await t.dataSource.query<Array<{ recipient_id: number }>>(`SELECT recipient_id FROM stream WHERE id = $1`, [
              verona,
            ])
          )[0].recipient_id,
        );
      }
    });

    it('marks the message read for its sender from a Zulip UI client, or as read_by_sender says', async () => {
      const fromUi = await sendChannel(t, HAMLET, 'Verona', 'reading', 'one', {});
      expect(await umFlags(t, HAMLET, fromUi)).toBe(0);
      const uiRes = await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'reading', content: 'two' }, UI_CLIENT);
      expect(await umFlags(t, HAMLET, (uiRes.body as { id: number }).id)).toBe(Flag.read);
      const explicit = await send(HAMLET, {
        type: 'stream',
        to: 'Verona',
        topic: 'reading',
        content: 'three',
        read_by_sender: true,
      });
      expect(await umFlags(t, HAMLET, (explicit.body as { id: number }).id)).toBe(Flag.read);
      const notRead = await send(
        HAMLET,
        { type: 'stream', to: 'Verona', topic: 'reading', content: 'four', read_by_sender: false },
        UI_CLIENT,
      );
      expect(await umFlags(t, HAMLET, (notRead.body as { id: number }).id)).toBe(0);
      // Other recipients are never marked read.
      expect(await umFlags(t, OTHELLO, (uiRes.body as { id: number }).id)).toBe(0);
    });

    it('gives no UserMessage row to a sender who is not subscribed', async () => {
      // Iago is not subscribed to Venice (a public channel).
      const id = await sendChannel(t, IAGO, 'Venice', 'visit', 'hello from outside');
      expect(await umFlags(t, IAGO, id)).toBeNull();
      expect(await umFlags(t, PROSPERO, id)).toBe(0);
    });

    it('maps (no topic) and the empty-topic display name to the empty topic, strips and truncates topics', async () => {
      for (const topic of ['(no topic)', 'general chat', '']) {
        const id = await sendChannel(t, HAMLET, 'Verona', topic, 'empty topic');
        expect((await stored(id)).subject).toBe('');
      }
      expect((await stored(await sendChannel(t, HAMLET, 'Verona', '  spaced  ', 'x'))).subject).toBe('spaced');
      const long = 'a'.repeat(61);
      expect((await stored(await sendChannel(t, HAMLET, 'Verona', long, 'x'))).subject).toBe(`${'a'.repeat(57)}...`);
      // Code points, not UTF-16 units.
      const emoji = '😀'.repeat(60);
      expect((await stored(await sendChannel(t, HAMLET, 'Verona', emoji, 'x'))).subject).toBe(emoji);
    });

    it('truncates over-long content like Zulip (9980 characters + "\\n[message truncated]")', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'long', 'A'.repeat(10001));
      expect((await stored(id)).content).toBe(`${'A'.repeat(9980)}\n[message truncated]`);
      const exact = await sendChannel(t, HAMLET, 'Verona', 'long', 'B'.repeat(10000));
      expect((await stored(exact)).content).toBe('B'.repeat(10000));
    });

    it('strips trailing whitespace and leading newlines from the content', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'ws', '\n\n  indented\n\n  ');
      expect((await stored(id)).content).toBe('  indented');
    });
  });

  describe('direct messages', () => {
    it('sends to user ids, emails and comma-separated emails; one conversation, one recipient id', async () => {
      const othello = await userId(t, OTHELLO);
      const hamlet = await userId(t, HAMLET);
      const byIds = await send(HAMLET, { type: 'direct', to: JSON.stringify([othello]), content: 'hi Othello' });
      expect(byIds.status).toBe(200);
      expectMatchesOpenApi('post', '/messages', 200, byIds.body);
      const a = await stored((byIds.body as { id: number }).id);
      expect(a).toMatchObject({ subject: '', is_channel_message: false });
      const back = await send(OTHELLO, { type: 'private', to: JSON.stringify([HAMLET]), content: 'hi Hamlet' });
      expect((await stored((back.body as { id: number }).id)).recipient_id).toBe(a.recipient_id);
      const csv = await send(HAMLET, { type: 'direct', to: `${OTHELLO}, `, content: 'again' });
      expect((await stored((csv.body as { id: number }).id)).recipient_id).toBe(a.recipient_id);
      expect(await recipientsOf((byIds.body as { id: number }).id)).toEqual([hamlet, othello].sort((x, y) => x - y));
      expect(await umFlags(t, OTHELLO, (byIds.body as { id: number }).id)).toBe(Flag.is_private);
    });

    it('sends group DMs (the sender is always a participant) and notes to oneself', async () => {
      const ids = await Promise.all([HAMLET, OTHELLO, PROSPERO].map((e) => userId(t, e)));
      const res = await send(HAMLET, { type: 'direct', to: JSON.stringify([ids[1], ids[2]]), content: 'group' });
      expect(await recipientsOf((res.body as { id: number }).id)).toEqual([...ids].sort((a, b) => a - b));
      const reply = await send(PROSPERO, {
        type: 'direct',
        to: JSON.stringify([ids[0], ids[1], ids[2]]),
        content: 'reply',
      });
      expect((await stored((reply.body as { id: number }).id)).recipient_id).toBe(
        (await stored((res.body as { id: number }).id)).recipient_id,
      );
      const self = await send(HAMLET, { type: 'direct', to: JSON.stringify([ids[0]]), content: 'note to self' });
      expect(await recipientsOf((self.body as { id: number }).id)).toEqual([ids[0]]);
    });

    it('settles concurrent first messages of a conversation on one conversation', async () => {
      const [a, b] = await createUsers(t, 'racer', 2);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          send(HAMLET, { type: 'direct', to: JSON.stringify([a, b]), content: `race ${i}` }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const recipients = new Set<unknown>();
      for (const r of results) recipients.add((await stored((r.body as { id: number }).id)).recipient_id);
      expect(recipients.size).toBe(1);
      const orphans = await t.dataSource.query<unknown[]>(
        `SELECT r.id FROM recipient r WHERE r.type = 3 AND NOT EXISTS (SELECT 1 FROM direct_message_group g WHERE g.recipient_id = r.id)`,
      );
      expect(orphans).toEqual([]);
    });

    it('refuses unknown and deactivated recipients and mixed lists', async () => {
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify(['nonexistent']), content: 'x' }),
        400,
        "Invalid email 'nonexistent'",
      );
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify([99999]), content: 'x' }),
        400,
        'Invalid user ID 99999',
      );
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify([OTHELLO, 5]), content: 'x' }),
        400,
        'Recipient lists may contain emails or user IDs, but not both.',
      );
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify([1.5]), content: 'x' }),
        400,
        'Invalid data type for recipients',
      );
      expectError(
        await send(HAMLET, { type: 'direct', to: '{"a": 1}', content: 'x' }),
        400,
        'Invalid data type for recipients',
      );
      expectError(await send(HAMLET, { type: 'direct', to: '""', content: 'x' }), 400, 'Message must have recipients');
      expectError(await send(HAMLET, { type: 'direct', content: 'x' }), 400, 'Message must have recipients');
      // A user of another realm is unknown here.
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify(['notification-bot@zulip.com']), content: 'x' }),
        400,
        "Invalid email 'notification-bot@zulip.com'",
      );
    });

    it('refuses a deactivated recipient', async () => {
      const [gone] = await createUsers(t, 'gone', 1);
      await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [gone]);
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify([gone]), content: 'x' }),
        400,
        "'gone0@zulip.com' is no longer using Zulip.",
      );
    });

    it('applies the realm direct-message permission groups', async () => {
      const othello = await userId(t, OTHELLO);
      await setRealm(t, { direct_message_permission_group: await systemGroupId(t, 'role:nobody') });
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify([othello]), content: 'x' }),
        400,
        'Direct messages are disabled in this organization.',
      );
      // Messages to oneself and to bots stay allowed.
      expect((await send(HAMLET, { type: 'direct', to: JSON.stringify([HAMLET]), content: 'x' })).status).toBe(200);
      expect((await send(HAMLET, { type: 'direct', to: JSON.stringify([BOT]), content: 'x' })).status).toBe(200);
      await setRealm(t, { direct_message_permission_group: await systemGroupId(t, 'role:administrators') });
      expectError(
        await send(HAMLET, { type: 'direct', to: JSON.stringify([othello]), content: 'x' }),
        400,
        'This conversation does not include any users who can authorize it.',
      );
      // Any administrator in the conversation authorizes it.
      const iago = await userId(t, IAGO);
      expect((await send(HAMLET, { type: 'direct', to: JSON.stringify([othello, iago]), content: 'x' })).status).toBe(
        200,
      );
      await setRealm(t, { direct_message_permission_group: await systemGroupId(t, 'role:everyone') });

      await setRealm(t, { direct_message_initiator_group: await systemGroupId(t, 'role:administrators') });
      const cordelia = await userId(t, CORDELIA);
      expectError(
        await send(AARON, { type: 'direct', to: JSON.stringify([cordelia]), content: 'x' }),
        400,
        'You do not have permission to initiate direct message conversations.',
      );
      // Existing conversations continue.
      expect((await send(OTHELLO, { type: 'direct', to: JSON.stringify([HAMLET]), content: 'x' })).status).toBe(200);
      await setRealm(t, { direct_message_initiator_group: await systemGroupId(t, 'role:everyone') });
    });
  });

  describe('parameter errors, in Zulip order', () => {
    it('reports missing and malformed parameters', async () => {
      const missing = await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'x' });
      expectError(missing, 400, "Missing 'content' argument", 'REQUEST_VARIABLE_MISSING');
      expect(missing.body).toMatchObject({ var_name: 'content' });
      expectError(
        await send(HAMLET, { to: 'Verona', topic: 'x', content: 'x' }),
        400,
        "Missing 'type' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expectError(await send(HAMLET, { type: 'invalid type', to: 'Verona', content: 'x' }), 400, 'Invalid type');
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'a', subject: 'b', content: 'x' }),
        400,
        "Can't decide between 'topic' and 'subject' arguments",
        'REQUEST_CONFUSING_VAR',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'a', content: 'x', read_by_sender: 'yes' }),
        400,
        'read_by_sender is not valid JSON',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'a', content: 'x', read_by_sender: '1' }),
        400,
        'read_by_sender is not a boolean',
      );
      // content is checked first.
      expectError(
        await send(HAMLET, { type: 'bad', topic: 'x' }),
        400,
        "Missing 'content' argument",
        'REQUEST_VARIABLE_MISSING',
      );
    });

    it('accepts the legacy `subject` name of the topic', async () => {
      const res = await send(HAMLET, { type: 'stream', to: 'Verona', subject: 'legacy', content: 'x' });
      expect((await stored((res.body as { id: number }).id)).subject).toBe('legacy');
    });

    it('needs local_id with queue_id (DECISIONS #6)', async () => {
      const q = await openQueue(t, HAMLET, ['message']);
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'x', content: 'x', queue_id: q.queueId }),
        400,
        "Missing 'local_id' argument",
      );
    });

    it('validates the addressee before the content', async () => {
      expectError(await send(HAMLET, { type: 'stream', to: 'Verona', content: 'x' }), 400, 'Missing topic');
      expectError(await send(HAMLET, { type: 'stream', topic: 'x', content: 'x' }), 400, 'Missing channel');
      expectError(await send(HAMLET, { type: 'stream', to: 'Verona', content: ' ' }), 400, 'Missing topic');
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'Test\n\rTopic', content: 'x' }),
        400,
        'Invalid character in topic, at position 5!',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: '\u0007', content: 'x' }),
        400,
        'Invalid character in topic, at position 1!',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'x', content: ' ' }),
        400,
        'Message must not be empty',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'x', content: 'a\u0000b' }),
        400,
        'Message must not contain null bytes',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: JSON.stringify(['Verona', 'Denmark']), topic: 'x', content: 'x' }),
        400,
        'Expected exactly one channel',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: '{"a": 1}', topic: 'x', content: 'x' }),
        400,
        'Invalid data type for channel',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: '""', topic: 'x', content: 'x' }),
        400,
        "Channel name can't be empty.",
      );
    });

    it('reports unknown channels with STREAM_DOES_NOT_EXIST', async () => {
      const byId = await send(HAMLET, { type: 'stream', to: '99999', topic: 'x', content: 'x' });
      expectError(byId, 400, "Channel with ID '99999' does not exist", 'STREAM_DOES_NOT_EXIST');
      expect(byId.body).toMatchObject({ stream_id: 99999 });
      const byName = await send(HAMLET, { type: 'stream', to: 'nonexistent_stream', topic: 'x', content: 'x' });
      expectError(byName, 400, "Channel 'nonexistent_stream' does not exist", 'STREAM_DOES_NOT_EXIST');
      expect(byName.body).toMatchObject({ stream: 'nonexistent_stream' });
      expectMatchesOpenApi('post', '/messages', 400, byName.body);
      const escaped = await send(HAMLET, { type: 'stream', to: '<b>', topic: 'x', content: 'x' });
      expectError(escaped, 400, "Channel '&lt;b&gt;' does not exist", 'STREAM_DOES_NOT_EXIST');
      // Ids that cannot be database ids are unknown channels, never a 500.
      expectError(
        await send(HAMLET, { type: 'stream', to: '99999999999', topic: 'x', content: 'x' }),
        400,
        "Channel with ID '99999999999' does not exist",
        'STREAM_DOES_NOT_EXIST',
      );
    });
  });

  describe('permissions', () => {
    it('lets a guest post only where subscribed (and to web-public channels)', async () => {
      expect((await send(POLONIUS, { type: 'stream', to: 'Verona', topic: 'guest', content: 'x' })).status).toBe(200);
      expectError(
        await send(POLONIUS, { type: 'stream', to: 'Denmark', topic: 'guest', content: 'x' }),
        400,
        "Not authorized to send to channel 'Denmark'",
      );
      expect((await send(POLONIUS, { type: 'stream', to: 'Rome', topic: 'guest', content: 'x' })).status).toBe(200);
    });

    it('keeps private channels to their subscribers, whatever the role', async () => {
      expect((await send(HAMLET, { type: 'stream', to: 'core team', topic: 'x', content: 'x' })).status).toBe(200);
      expectError(
        await send(OTHELLO, { type: 'stream', to: 'core team', topic: 'x', content: 'x' }),
        400,
        "Not authorized to send to channel 'core team'",
      );
      // Moderators are no exception.
      expectError(
        await send(SHIVA, { type: 'stream', to: 'core team', topic: 'x', content: 'x' }),
        400,
        "Not authorized to send to channel 'core team'",
      );
    });

    it('lets members of can_subscribe_group post to a private channel with shared history', async () => {
      await setChannel(t, 'core team', {
        can_subscribe_group: await systemGroupId(t, 'role:members'),
        history_public_to_subscribers: true,
      });
      expect((await send(OTHELLO, { type: 'stream', to: 'core team', topic: 'x', content: 'x' })).status).toBe(200);
      expectError(
        await send(POLONIUS, { type: 'stream', to: 'core team', topic: 'x', content: 'x' }),
        400,
        "Not authorized to send to channel 'core team'",
      );
      await setChannel(t, 'core team', { history_public_to_subscribers: false });
      expectError(
        await send(OTHELLO, { type: 'stream', to: 'core team', topic: 'x', content: 'x' }),
        400,
        "Not authorized to send to channel 'core team'",
      );
      await setChannel(t, 'core team', {
        history_public_to_subscribers: true,
        can_subscribe_group: await systemGroupId(t, 'role:nobody'),
      });
    });

    it('applies can_send_message_group before anything else', async () => {
      await setChannel(t, 'Denmark', { can_send_message_group: await systemGroupId(t, 'role:administrators') });
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Denmark', topic: 'x', content: 'x' }),
        400,
        'You do not have permission to post in this channel.',
      );
      expect((await send(IAGO, { type: 'stream', to: 'Denmark', topic: 'x', content: 'x' })).status).toBe(200);
      await setChannel(t, 'Denmark', { can_send_message_group: await systemGroupId(t, 'role:nobody') });
      expectError(
        await send(IAGO, { type: 'stream', to: 'Denmark', topic: 'x', content: 'x' }),
        400,
        'You do not have permission to post in this channel.',
      );
      await setChannel(t, 'Denmark', { can_send_message_group: await systemGroupId(t, 'role:everyone') });
    });

    it('refuses archived channels', async () => {
      await setChannel(t, 'sandbox', { deactivated: true });
      expectError(
        await send(HAMLET, { type: 'stream', to: 'sandbox', topic: 'x', content: 'x' }),
        400,
        "Not authorized to send to channel 'sandbox'",
      );
      await setChannel(t, 'sandbox', { deactivated: false });
    });

    it('applies can_create_topic_group to new topics only', async () => {
      await sendChannel(t, OTHELLO, 'Scotland', 'existing', 'first');
      await setChannel(t, 'Scotland', { can_create_topic_group: await systemGroupId(t, 'role:moderators') });
      expectError(
        await send(OTHELLO, { type: 'stream', to: 'Scotland', topic: 'brand new', content: 'x' }),
        400,
        'You do not have permission to create new topics in this channel.',
      );
      expect((await send(OTHELLO, { type: 'stream', to: 'Scotland', topic: 'EXISTING', content: 'x' })).status).toBe(
        200,
      );
      expect((await send(SHIVA, { type: 'stream', to: 'Scotland', topic: 'brand new', content: 'x' })).status).toBe(
        200,
      );
      await setChannel(t, 'Scotland', { can_create_topic_group: await systemGroupId(t, 'role:everyone') });
    });

    it("applies the channel's topics_policy, or the realm's when it inherits", async () => {
      await setChannel(t, 'Zulip', { topics_policy: 3 });
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Zulip', topic: '', content: 'x' }),
        400,
        'Sending messages to the general chat is not allowed in this channel.',
      );
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Zulip', topic: '(no topic)', content: 'x' }),
        400,
        'Sending messages to the general chat is not allowed in this channel.',
      );
      expect((await send(HAMLET, { type: 'stream', to: 'Zulip', topic: 'named', content: 'x' })).status).toBe(200);
      await setChannel(t, 'Zulip', { topics_policy: 4 });
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Zulip', topic: 'named', content: 'x' }),
        400,
        'Only the general chat topic is allowed in this channel.',
      );
      expect((await send(HAMLET, { type: 'stream', to: 'Zulip', topic: '', content: 'x' })).status).toBe(200);
      await setChannel(t, 'Zulip', { topics_policy: 1 });
      await setRealm(t, { topics_policy: 'disable_empty_topic' });
      expectError(
        await send(HAMLET, { type: 'stream', to: 'Zulip', topic: 'general chat', content: 'x' }),
        400,
        'Sending messages to the general chat is not allowed in this channel.',
      );
      await setChannel(t, 'Zulip', { topics_policy: 2 });
      expect((await send(HAMLET, { type: 'stream', to: 'Zulip', topic: '', content: 'x' })).status).toBe(200);
      await setChannel(t, 'Zulip', { topics_policy: 1 });
      await setRealm(t, { topics_policy: 'allow_empty_topic' });
    });
  });

  describe('mentions', () => {
    it('flags mentioned users, and the rest of the recipients not', async () => {
      const id = await sendChannel(
        t,
        HAMLET,
        'Verona',
        'mentions',
        'Hi @**Othello, the Moor of Venice** and @_**Iago**',
      );
      expect(await umFlags(t, OTHELLO, id)).toBe(Flag.mentioned);
      expect(await umFlags(t, IAGO, id)).toBe(0); // silent mention
      expect(await umFlags(t, CORDELIA, id)).toBe(0);
    });

    it('flags channel wildcard mentions for every recipient', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'wildcards', '@**all** hello');
      expect(await umFlags(t, CORDELIA, id)).toBe(Flag.stream_wildcard_mentioned);
      const msg = await call(t, 'get', `/messages/${id}`, CORDELIA);
      expect((msg.body as { message: { flags: string[] } }).message.flags).toEqual([
        'stream_wildcard_mentioned',
        'wildcard_mentioned',
      ]);
    });

    it('flags topic wildcard mentions for topic participants only', async () => {
      await sendChannel(t, CORDELIA, 'Verona', 'topic wildcards', 'I was here');
      const id = await sendChannel(t, HAMLET, 'Verona', 'topic wildcards', '@**topic** ping');
      expect(await umFlags(t, CORDELIA, id)).toBe(Flag.topic_wildcard_mentioned);
      expect(await umFlags(t, HAMLET, id)).toBe(Flag.topic_wildcard_mentioned);
      expect(await umFlags(t, OTHELLO, id)).toBe(0);
    });

    it('flags members of a mentioned group and enforces can_mention_group', async () => {
      // hamletcharacters: cordelia and hamlet.
      const id = await sendChannel(t, OTHELLO, 'Verona', 'groups', 'Hello @*hamletcharacters*');
      expect(await umFlags(t, CORDELIA, id)).toBe(Flag.mentioned | Flag.group_mentioned);
      expect(await umFlags(t, AARON, id)).toBe(0);
      const msg = await call(t, 'get', `/messages/${id}`, CORDELIA);
      expect((msg.body as { message: { flags: string[] } }).message.flags).toEqual(['mentioned']);
      await t.dataSource.query(`UPDATE user_group SET can_mention_group = $1 WHERE name = 'hamletcharacters'`, [
        await systemGroupId(t, 'role:administrators'),
      ]);
      expectError(
        await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'groups', content: 'Hello @*hamletcharacters*' }),
        400,
        "You are not allowed to mention user group 'hamletcharacters'.",
      );
      // Silent mentions notify nobody and need no permission.
      expect(
        (await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'groups', content: 'Hello @_*hamletcharacters*' }))
          .status,
      ).toBe(200);
      expect(
        (await send(IAGO, { type: 'stream', to: 'Verona', topic: 'groups', content: 'Hello @*hamletcharacters*' }))
          .status,
      ).toBe(200);
      await t.dataSource.query(`UPDATE user_group SET can_mention_group = $1 WHERE name = 'hamletcharacters'`, [
        await systemGroupId(t, 'role:everyone'),
      ]);
    });

    it('restricts channel and topic wildcards above 15 subscribers / participants to can_mention_many_users_group', async () => {
      const extra = await createUsers(t, 'crowd', 16);
      await addSubscribers(t, 'Venice', extra);
      const res = await send(PROSPERO, { type: 'stream', to: 'Venice', topic: 'crowd', content: '@**all** hi' });
      expectError(
        res,
        400,
        'You do not have permission to use channel wildcard mentions in this channel.',
        'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      );
      expectMatchesOpenApi('post', '/messages', 400, res.body);
      expectError(
        await send(PROSPERO, { type: 'stream', to: 'Venice', topic: 'crowd', content: '@**everyone** hi' }),
        400,
        'You do not have permission to use channel wildcard mentions in this channel.',
        'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      );
      // Administrators are in can_mention_many_users_group by default.
      expect((await send(IAGO, { type: 'stream', to: 'Venice', topic: 'crowd', content: '@**all** hi' })).status).toBe(
        200,
      );
      // Topic wildcards count topic participants: 16 senders in the topic.
      for (let i = 0; i < 15; i++) {
        await sendChannel(t, `crowd${i}@zulip.com`, 'Venice', 'busy topic', `message ${i}`);
      }
      // 15 participants + Prospero = 16.
      expectError(
        await send(PROSPERO, { type: 'stream', to: 'Venice', topic: 'busy topic', content: '@**topic** hi' }),
        400,
        'You do not have permission to use topic wildcard mentions in this topic.',
        'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
      );
      expect(
        (
          await send('crowd0@zulip.com', {
            type: 'stream',
            to: 'Venice',
            topic: 'busy topic',
            content: '@**topic** hi',
          })
        ).status,
      ).toBe(200);
      // A small topic is fine.
      expect(
        (await send(PROSPERO, { type: 'stream', to: 'Venice', topic: 'quiet topic', content: '@**topic** hi' })).status,
      ).toBe(200);
    });
  });

  describe('automatic topic visibility', () => {
    it('follows a topic the sender starts (on initiation) and reports it once', async () => {
      await setUser(t, ZOE, { automatically_follow_topics_policy: 3 });
      const q = await openQueue(t, ZOE, ['user_topic']);
      const first = await send(ZOE, { type: 'stream', to: 'Rome', topic: 'new idea', content: 'x' });
      expect(first.body).toMatchObject({ automatic_new_visibility_policy: 3 });
      expectMatchesOpenApi('post', '/messages', 200, first.body);
      const events = await takeEvents(t, q);
      expect(events).toEqual([
        {
          type: 'user_topic',
          stream_id: await channelId(t, 'Rome'),
          topic_name: 'new idea',
          last_updated: expect.any(Number),
          visibility_policy: 3,
        },
      ]);
      const second = await send(ZOE, { type: 'stream', to: 'Rome', topic: 'new idea', content: 'y' });
      expect(second.body).not.toHaveProperty('automatic_new_visibility_policy');
      expect(await takeEvents(t, q)).toEqual([]);
      // Not the first message of an existing topic.
      await sendChannel(t, PROSPERO, 'Venice', 'old idea', 'x');
      const later = await send(ZOE, { type: 'stream', to: 'Venice', topic: 'old idea', content: 'x' });
      expect(later.body).not.toHaveProperty('automatic_new_visibility_policy');
    });

    it('unmutes topics of a muted channel the sender writes to (on send)', async () => {
      await setUser(t, ZOE, {
        automatically_follow_topics_policy: 4,
        automatically_unmute_topics_in_muted_streams_policy: 2,
      });
      await t.dataSource.query(
        `UPDATE subscription SET is_muted = true WHERE user_profile_id = $1 AND recipient_id = (SELECT recipient_id FROM stream WHERE name = 'Denmark')`,
        [await userId(t, ZOE)],
      );
      await channelsChanged(t);
      const res = await send(ZOE, { type: 'stream', to: 'Denmark', topic: 'muted channel', content: 'x' });
      expect(res.body).toMatchObject({ automatic_new_visibility_policy: 2 });
      const rows = await t.dataSource.query<Array<{ visibility_policy: number }>>(
        `SELECT visibility_policy FROM user_topic WHERE user_profile_id = $1 AND topic_name = 'muted channel'`,
        [await userId(t, ZOE)],
      );
      expect(rows).toEqual([{ visibility_policy: 2 }]);
      // Not muted: nothing to unmute.
      const unmuted = await send(ZOE, { type: 'stream', to: 'Verona', topic: 'muted channel', content: 'x' });
      expect(unmuted.body).not.toHaveProperty('automatic_new_visibility_policy');
    });
  });

  describe('events', () => {
    it('sends the message event after commit to every recipient, with their flags', async () => {
      const hamletQ = await openQueue(t, HAMLET, ['message'], { apply_markdown: true });
      const othelloQ = await openQueue(t, OTHELLO, ['message']);
      const iagoQ = await openQueue(t, IAGO, ['message']);
      const zoeQ = await openQueue(t, ZOE, ['message']);
      const res = await send(
        HAMLET,
        { type: 'stream', to: 'core team', topic: 'events', content: 'Hi @**Iago**' },
        UI_CLIENT,
      );
      const id = (res.body as { id: number }).id;
      const [hamletEvent] = await takeEvents(t, hamletQ);
      expect(hamletEvent).toMatchObject({
        type: 'message',
        flags: ['read'],
        message: {
          id,
          type: 'stream',
          display_recipient: 'core team',
          subject: 'events',
          content: '<p>Hi <span class="user-mention" data-user-id="11">@Iago</span></p>',
          content_type: 'text/html',
          sender_email: HAMLET,
          client: 'ZulipMobile',
        },
      });
      expect(hamletEvent).not.toHaveProperty('local_message_id');
      expect((await takeEvents(t, iagoQ))[0]).toMatchObject({ flags: ['mentioned'] });
      // Not subscribed to the private channel: no event.
      expect(await takeEvents(t, othelloQ)).toEqual([]);
      expect(await takeEvents(t, zoeQ)).toEqual([]);
    });

    it('puts local_message_id only in the queue named by queue_id', async () => {
      const echoQ = await openQueue(t, HAMLET, ['message']);
      const otherQ = await openQueue(t, HAMLET, ['message']);
      const othelloQ = await openQueue(t, OTHELLO, ['message']);
      await send(HAMLET, {
        type: 'stream',
        to: 'Verona',
        topic: 'echo',
        content: 'x',
        queue_id: echoQ.queueId,
        local_id: '100.01',
      });
      // Zulip's OpenAPI document does not list local_message_id, so these are not schema-checked.
      expect((await takeEvents(t, echoQ, false))[0]).toMatchObject({ type: 'message', local_message_id: '100.01' });
      expect((await takeEvents(t, otherQ))[0]).not.toHaveProperty('local_message_id');
      expect((await takeEvents(t, othelloQ))[0]).not.toHaveProperty('local_message_id');
      // The queue of another user, even if named, gets none.
      await send(HAMLET, {
        type: 'stream',
        to: 'Verona',
        topic: 'echo',
        content: 'y',
        queue_id: othelloQ.queueId,
        local_id: '1',
      });
      expect((await takeEvents(t, othelloQ))[0]).not.toHaveProperty('local_message_id');
    });

    it('formats the event per queue: raw content, gravatar and the empty topic', async () => {
      const raw = await openQueue(t, OTHELLO, ['message'], { apply_markdown: false, client_gravatar: false });
      const modern = await openQueue(t, OTHELLO, ['message'], {
        apply_markdown: true,
        client_capabilities: { empty_topic_name: true },
      });
      await send(HAMLET, { type: 'stream', to: 'Verona', topic: '', content: '**bold**' });
      const [rawEvent] = await takeEvents(t, raw);
      expect(rawEvent.message).toMatchObject({
        content: '**bold**',
        content_type: 'text/x-markdown',
        subject: 'general chat',
      });
      expect((rawEvent.message as { avatar_url: string }).avatar_url).toMatch(
        /^https:\/\/secure\.gravatar\.com\/avatar\//,
      );
      const [modernEvent] = await takeEvents(t, modern);
      expect(modernEvent.message).toMatchObject({
        content: '<p><strong>bold</strong></p>',
        subject: '',
        avatar_url: null,
      });
    });

    it('sends direct message events to the participants only', async () => {
      const qs = await Promise.all(
        [HAMLET, OTHELLO, CORDELIA, DESDEMONA].map((e) => openQueue(t, e, ['message'], { apply_markdown: true })),
      );
      const othello = await userId(t, OTHELLO);
      const cordelia = await userId(t, CORDELIA);
      await send(HAMLET, { type: 'direct', to: JSON.stringify([othello, cordelia]), content: 'secret' });
      const [h, o, c, d] = await Promise.all(qs.map((q) => takeEvents(t, q)));
      expect(h).toHaveLength(1);
      expect(o[0]).toMatchObject({
        type: 'message',
        flags: [],
        message: { type: 'private', content: '<p>secret</p>' },
      });
      expect((o[0].message as { display_recipient: Array<{ id: number }> }).display_recipient.map((u) => u.id)).toEqual(
        [await userId(t, HAMLET), othello, cordelia].sort((a, b) => a - b),
      );
      expect(c).toHaveLength(1);
      expect(d).toEqual([]);
    });

    it('sends nothing when the send fails', async () => {
      const q = await openQueue(t, OTHELLO, ['message']);
      await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'x', content: '' });
      expect(await takeEvents(t, q)).toEqual([]);
    });
  });
});
