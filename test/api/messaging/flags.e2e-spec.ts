import { expectMatchesOpenApi } from '../../helpers/openapi';
import { countQueriesDuring } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Flag } from '../../../src/messaging/flags';
import { MessageFlagsService } from '../../../src/messaging/message-flags.service';
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
  PROSPERO,
  sendChannel,
  sendDirect,
  takeEvents,
  umFlags,
  userId,
} from './helpers';

describe('message flags', () => {
  let t: TestApp;
  const flags = (email: string, params: Record<string, unknown>) => call(t, 'post', '/messages/flags', email, params);
  async function flagsOk(email: string, messages: number[], op: string, flag: string) {
    const res = await flags(email, { messages, op, flag });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('post', '/messages/flags', 200, res.body);
    return res.body as { messages: number[]; ignored_because_not_subscribed_channels?: number[] };
  }

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('POST /messages/flags', () => {
    it('validates flag and op with Zulip texts, in order', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'flags', 'x');
      const invalid = await flags(HAMLET, { messages: [id], op: 'add', flag: 'invalid' });
      expectError(invalid, 400, "Invalid flag: 'invalid'");
      expectMatchesOpenApi('post', '/messages/flags', 400, invalid.body);
      expectError(
        await flags(HAMLET, { messages: [id], op: 'add', flag: 'is_private' }),
        400,
        "Invalid flag: 'is_private'",
      );
      expectError(
        await flags(HAMLET, { messages: [id], op: 'add', flag: 'active_mobile_push_notification' }),
        400,
        "Invalid flag: 'active_mobile_push_notification'",
      );
      for (const flag of [
        'mentioned',
        'historical',
        'stream_wildcard_mentioned',
        'has_alert_word',
        'group_mentioned',
      ]) {
        expectError(await flags(HAMLET, { messages: [id], op: 'add', flag }), 400, `Flag not editable: '${flag}'`);
      }
      expectError(
        await flags(HAMLET, { messages: [id], op: 'bogus', flag: 'read' }),
        400,
        "Invalid message flag operation: 'bogus'",
      );
      expectError(await flags(HAMLET, { messages: [id], op: 'bogus', flag: 'bogus' }), 400, "Invalid flag: 'bogus'");
      expectError(
        await flags(HAMLET, { op: 'add', flag: 'read' }),
        400,
        "Missing 'messages' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expectError(
        await flags(HAMLET, { messages: '[1, "a"]', op: 'add', flag: 'read' }),
        400,
        'messages is not an integer',
      );
      expectError(await flags(HAMLET, { messages: 'x', op: 'add', flag: 'read' }), 400, 'messages is not valid JSON');
    });

    it('adds and removes flags, answering with the ids actually changed (DECISIONS #5)', async () => {
      const a = await sendChannel(t, HAMLET, 'Verona', 'star', 'a');
      const b = await sendChannel(t, HAMLET, 'Verona', 'star', 'b');
      expect(await flagsOk(OTHELLO, [a, b], 'add', 'starred')).toEqual({
        result: 'success',
        msg: '',
        messages: [a, b],
      });
      expect(await umFlags(t, OTHELLO, a)).toBe(Flag.starred);
      expect((await flagsOk(OTHELLO, [a, b], 'add', 'starred')).messages).toEqual([]);
      expect((await flagsOk(OTHELLO, [b], 'remove', 'starred')).messages).toEqual([b]);
      expect((await flagsOk(OTHELLO, [a, b], 'add', 'collapsed')).messages).toEqual([a, b]);
      expect(await umFlags(t, OTHELLO, a)).toBe(Flag.starred | Flag.collapsed);
      const read = await flagsOk(OTHELLO, [a, b], 'add', 'read');
      expect(read).toEqual({ result: 'success', msg: '', messages: [a, b] });
      expect(read).not.toHaveProperty('ignored_because_not_subscribed_channels');
      const unread = await flagsOk(OTHELLO, [a], 'remove', 'read');
      expect(unread).toEqual({
        result: 'success',
        msg: '',
        messages: [a],
        ignored_because_not_subscribed_channels: [],
      });
    });

    it('stars an accessible message never received with a historical row (flags starred, historical, read)', async () => {
      // Cordelia is not subscribed to Denmark, a public channel.
      const id = await sendChannel(t, IAGO, 'Denmark', 'history', 'star me');
      expect(await umFlags(t, CORDELIA, id)).toBeNull();
      expect((await flagsOk(CORDELIA, [id], 'add', 'starred')).messages).toEqual([id]);
      expect(await umFlags(t, CORDELIA, id)).toBe(Flag.starred | Flag.historical | Flag.read);
      const msg = await call(t, 'get', `/messages/${id}`, CORDELIA);
      expect((msg.body as { message: { flags: string[] } }).message.flags).toEqual(['read', 'starred', 'historical']);
      // Marking read a message without a row changes nothing and creates nothing.
      const other = await sendChannel(t, IAGO, 'Denmark', 'history', 'read me');
      expect((await flagsOk(CORDELIA, [other], 'add', 'read')).messages).toEqual([]);
      expect(await umFlags(t, CORDELIA, other)).toBeNull();
      expect((await flagsOk(CORDELIA, [other], 'remove', 'starred')).messages).toEqual([]);
    });

    it('treats messages the user cannot access exactly like missing ones', async () => {
      const core = await sendChannel(t, HAMLET, 'core team', 'secret', 'private');
      const othello = await userId(t, OTHELLO);
      const dm = await sendDirect(t, HAMLET, [othello], 'private');
      for (const id of [core, dm, 99999999]) {
        const starred = await flags(CORDELIA, { messages: [id], op: 'add', flag: 'starred' });
        expectError(starred, 400, 'Invalid message(s)');
        expect((await flagsOk(CORDELIA, [id], 'add', 'read')).messages).toEqual([]);
        expectError(await flags(CORDELIA, { messages: [id], op: 'remove', flag: 'read' }), 400, 'Invalid message(s)');
      }
      // Guests cannot reach public history either.
      const pub = await sendChannel(t, IAGO, 'Denmark', 'guests', 'x');
      expectError(await flags(POLONIUS, { messages: [pub], op: 'add', flag: 'starred' }), 400, 'Invalid message(s)');
      expect(await umFlags(t, CORDELIA, core)).toBeNull();
    });

    it('never marks unread a message of a channel the user is not subscribed to', async () => {
      const venice = await sendChannel(t, PROSPERO, 'Venice', 'unread', 'x');
      const verona = await sendChannel(t, PROSPERO, 'Verona', 'unread', 'y');
      await flagsOk(HAMLET, [venice], 'add', 'starred'); // historical row, read
      await flagsOk(HAMLET, [verona], 'add', 'read');
      const res = await flagsOk(HAMLET, [venice, verona], 'remove', 'read');
      expect(res.messages).toEqual([verona]);
      expect(res.ignored_because_not_subscribed_channels).toEqual([await channelId(t, 'Venice')]);
      expect((await umFlags(t, HAMLET, venice))! & Flag.read).toBe(Flag.read);
    });

    it('sends update_message_flags events to the user only', async () => {
      const id = await sendChannel(t, IAGO, 'Verona', 'events', 'flag me');
      const q = await openQueue(t, OTHELLO, ['update_message_flags']);
      const other = await openQueue(t, HAMLET, ['update_message_flags']);
      await flagsOk(OTHELLO, [id], 'add', 'starred');
      expect(await takeEvents(t, q)).toEqual([
        { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [id], all: false },
      ]);
      await flagsOk(OTHELLO, [id], 'add', 'read');
      await flagsOk(OTHELLO, [id], 'remove', 'read');
      const events = await takeEvents(t, q);
      expect(events[1]).toEqual({
        type: 'update_message_flags',
        op: 'remove',
        operation: 'remove',
        flag: 'read',
        messages: [id],
        all: false,
        message_details: {
          [id]: { type: 'stream', stream_id: await channelId(t, 'Verona'), topic: 'events', unmuted_stream_msg: true },
        },
      });
      const dm = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'dm @**Othello, the Moor of Venice**');
      await flagsOk(OTHELLO, [dm], 'add', 'read');
      await flagsOk(OTHELLO, [dm], 'remove', 'read');
      const [, dmEvent] = await takeEvents(t, q);
      expect(dmEvent.message_details).toEqual({
        [dm]: { type: 'private', user_ids: [await userId(t, HAMLET)], mentioned: true },
      });
      expect(await takeEvents(t, other)).toEqual([]);
    });

    it('changes flags with one statement however many messages', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) ids.push(await sendChannel(t, IAGO, 'Verona', 'bulk', `m${i}`));
      const counter = countQueriesDuring(t.app.get(MessageFlagsService), 'updateFlags', {
        transactionControl: true,
        detachedHandlers: true,
      });
      try {
        await flagsOk(HAMLET, ids.slice(0, 2), 'add', 'starred');
        const few = [...counter.statements];
        counter.reset();
        const statements = counter.statements;
        expect((await flagsOk(HAMLET, ids.slice(2), 'add', 'starred')).messages).toHaveLength(38);
        expect(statements.length).toBe(few.length);
        expect(statements.filter((s) => /UPDATE user_message/.test(s))).toHaveLength(1);
      } finally {
        counter.restore();
      }
    });
  });

  describe('mark as read', () => {
    it('POST /mark_all_as_read marks every unread message read', async () => {
      const id = await sendChannel(t, IAGO, 'Verona', 'mark all', 'x');
      const dm = await sendDirect(t, IAGO, [await userId(t, CORDELIA)], 'y');
      const q = await openQueue(t, CORDELIA, ['update_message_flags']);
      const res = await call(t, 'post', '/mark_all_as_read', CORDELIA);
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/mark_all_as_read', 200, res.body);
      expect(res.body).toEqual({ result: 'success', msg: '', complete: true });
      expect((await umFlags(t, CORDELIA, id))! & Flag.read).toBe(Flag.read);
      expect((await umFlags(t, CORDELIA, dm))! & Flag.read).toBe(Flag.read);
      expect(await takeEvents(t, q)).toEqual([
        { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [], all: true },
      ]);
    });

    it('POST /mark_stream_as_read and /mark_topic_as_read', async () => {
      const a = await sendChannel(t, IAGO, 'Denmark', 'one', 'a');
      const b = await sendChannel(t, IAGO, 'Denmark', 'two', 'b');
      const c = await sendChannel(t, IAGO, 'Verona', 'one', 'c');
      const denmark = await channelId(t, 'Denmark');
      const q = await openQueue(t, OTHELLO, ['update_message_flags']);
      const topic = await call(t, 'post', '/mark_topic_as_read', OTHELLO, { stream_id: denmark, topic_name: 'ONE' });
      expect(topic.status).toBe(200);
      expectMatchesOpenApi('post', '/mark_topic_as_read', 200, topic.body);
      expect((await umFlags(t, OTHELLO, a))! & Flag.read).toBe(Flag.read);
      expect((await umFlags(t, OTHELLO, b))! & Flag.read).toBe(0);
      const stream = await call(t, 'post', '/mark_stream_as_read', OTHELLO, { stream_id: denmark });
      expect(stream.status).toBe(200);
      expectMatchesOpenApi('post', '/mark_stream_as_read', 200, stream.body);
      expect((await umFlags(t, OTHELLO, b))! & Flag.read).toBe(Flag.read);
      expect((await umFlags(t, OTHELLO, c))! & Flag.read).toBe(0);
      const events = await takeEvents(t, q);
      expect(events.map((e) => e.messages)).toEqual([[a], expect.arrayContaining([b])]);
      expectError(
        await call(t, 'post', '/mark_topic_as_read', OTHELLO, { stream_id: denmark, topic_name: 'nope' }),
        400,
        "No such topic 'nope'",
      );
      expectError(
        await call(t, 'post', '/mark_stream_as_read', OTHELLO, { stream_id: 999999 }),
        400,
        'Invalid channel ID',
      );
      expectError(
        await call(t, 'post', '/mark_stream_as_read', OTHELLO, { stream_id: await channelId(t, 'core team') }),
        400,
        'Invalid channel ID',
      );
      expectError(
        await call(t, 'post', '/mark_stream_as_read', OTHELLO, {}),
        400,
        "Missing 'stream_id' argument",
        'REQUEST_VARIABLE_MISSING',
      );
    });
  });
});
