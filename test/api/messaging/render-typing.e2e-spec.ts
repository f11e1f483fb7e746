import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  addSubscribers,
  call,
  channelId,
  CORDELIA,
  createUsers,
  expectError,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  setUser,
  takeEvents,
  userId,
} from './helpers';

describe('render and typing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('POST /messages/render', () => {
    it('renders Markdown with mentions, without storing anything', async () => {
      const before = await t.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM message`);
      const res = await call(t, 'post', '/messages/render', HAMLET, {
        content: '**foo** @**Othello, the Moor of Venice**',
      });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/messages/render', 200, res.body);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        rendered: `<p><strong>foo</strong> <span class="user-mention" data-user-id="${await userId(t, OTHELLO)}">@Othello, the Moor of Venice</span></p>`,
      });
      const after = await t.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM message`);
      expect(after).toEqual(before);
    });

    it('renders over-long content as it would be stored: truncated (DECISIONS #10)', async () => {
      const res = await call(t, 'post', '/messages/render', HAMLET, { content: 'A'.repeat(10001) });
      expect(res.status).toBe(200);
      const rendered = (res.body as { rendered: string }).rendered;
      expect(rendered).toBe(`<p>${'A'.repeat(9980)}<br>\n[message truncated]</p>`);
    });

    it('needs content', async () => {
      const res = await call(t, 'post', '/messages/render', HAMLET, {});
      expectError(res, 400, "Missing 'content' argument", 'REQUEST_VARIABLE_MISSING');
      expect((await call(t, 'post', '/messages/render', HAMLET, { content: '' })).body).toMatchObject({ rendered: '' });
    });
  });

  describe('POST /typing', () => {
    it('sends direct typing events to the participants who want them', async () => {
      const othello = await userId(t, OTHELLO);
      const cordelia = await userId(t, CORDELIA);
      const hamlet = await userId(t, HAMLET);
      await setUser(t, CORDELIA, { receives_typing_notifications: false });
      const queues = await Promise.all([HAMLET, OTHELLO, CORDELIA, IAGO].map((e) => openQueue(t, e, ['typing'])));
      const res = await call(t, 'post', '/typing', HAMLET, { op: 'start', to: [othello, cordelia] });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/typing', 200, res.body);
      const expected = {
        type: 'typing',
        op: 'start',
        message_type: 'direct',
        sender: { user_id: hamlet, email: HAMLET },
        recipients: [
          { user_id: othello, email: OTHELLO },
          { user_id: cordelia, email: CORDELIA },
          { user_id: hamlet, email: HAMLET },
        ],
      };
      const [h, o, c, i] = await Promise.all(queues.map((q) => takeEvents(t, q)));
      expect(o).toEqual([expected]);
      expect(h).toEqual([expected]);
      expect(c).toEqual([]);
      expect(i).toEqual([]);
      await call(t, 'post', '/typing', HAMLET, { type: 'direct', op: 'stop', to: [othello] });
      expect((await takeEvents(t, queues[1]))[0]).toMatchObject({ op: 'stop' });
      await setUser(t, CORDELIA, { receives_typing_notifications: true });
    });

    it('sends channel typing events to subscribers', async () => {
      const verona = await channelId(t, 'Verona');
      // Channel typing goes only to queues declaring stream_typing_notifications (Zulip's accepts_event).
      const streamTyping = { client_capabilities: { stream_typing_notifications: true } };
      const queues = await Promise.all(
        [OTHELLO, IAGO, 'prospero@zulip.com'].map((e) => openQueue(t, e, ['typing'], streamTyping)),
      );
      const legacy = await openQueue(t, OTHELLO, ['typing']);
      const modern = await openQueue(t, OTHELLO, ['typing'], {
        client_capabilities: { empty_topic_name: true, stream_typing_notifications: true },
      });
      const res = await call(t, 'post', '/typing', HAMLET, {
        type: 'channel',
        op: 'start',
        stream_id: verona,
        topic: 'lunch',
      });
      expect(res.status).toBe(200);
      const expected = {
        type: 'typing',
        op: 'start',
        message_type: 'stream',
        sender: { user_id: await userId(t, HAMLET), email: HAMLET },
        stream_id: verona,
        topic: 'lunch',
      };
      for (const q of queues) expect(await takeEvents(t, q)).toEqual([expected]);
      expect(await takeEvents(t, legacy)).toEqual([]);
      await takeEvents(t, modern);
      await call(t, 'post', '/typing', HAMLET, { type: 'stream', op: 'stop', stream_id: verona, topic: '(no topic)' });
      expect((await takeEvents(t, queues[0]))[0]).toMatchObject({ op: 'stop', topic: 'general chat' });
      expect((await takeEvents(t, modern))[0]).toMatchObject({ op: 'stop', topic: '' });
      // Only subscribers of the channel.
      const denmark = await channelId(t, 'Denmark');
      const cordeliaQ = await openQueue(t, CORDELIA, ['typing'], streamTyping);
      await call(t, 'post', '/typing', HAMLET, { type: 'stream', op: 'start', stream_id: denmark, topic: 'x' });
      expect(await takeEvents(t, cordeliaQ)).toEqual([]);
    });

    it('sends no channel typing events above 100 subscribers', async () => {
      const crowd = await createUsers(t, 'typist', 95);
      await addSubscribers(t, 'Verona', crowd);
      const verona = await channelId(t, 'Verona');
      const q = await openQueue(t, OTHELLO, ['typing'], { client_capabilities: { stream_typing_notifications: true } });
      await call(t, 'post', '/typing', HAMLET, { type: 'stream', op: 'start', stream_id: verona, topic: 'crowded' });
      expect(await takeEvents(t, q)).toEqual([]);
    });

    it('refuses bad requests with Zulip texts', async () => {
      const othello = await userId(t, OTHELLO);
      expectError(
        await call(t, 'post', '/typing', HAMLET, { to: [othello] }),
        400,
        "Missing 'op' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expectError(await call(t, 'post', '/typing', HAMLET, { op: 'begin', to: [othello] }), 400, 'Invalid op');
      expectError(
        await call(t, 'post', '/typing', HAMLET, { op: 'start', type: 'private', to: [othello] }),
        400,
        'Invalid type',
      );
      expectError(await call(t, 'post', '/typing', HAMLET, { op: 'start' }), 400, "Missing 'to' argument");
      expectError(await call(t, 'post', '/typing', HAMLET, { op: 'start', to: [] }), 400, "Empty 'to' list");
      expectError(await call(t, 'post', '/typing', HAMLET, { op: 'start', to: [99999] }), 400, 'Invalid user ID 99999');
      expectError(await call(t, 'post', '/typing', HAMLET, { op: 'start', to: 'x' }), 400, 'to is not valid JSON');
      const stream = await call(t, 'post', '/typing', HAMLET, { op: 'start', type: 'stream', topic: 'x' });
      expectError(stream, 400, "Missing 'stream_id' argument");
      expectMatchesOpenApi('post', '/typing', 400, stream.body);
      const verona = await channelId(t, 'Verona');
      expectError(
        await call(t, 'post', '/typing', HAMLET, { op: 'start', type: 'stream', stream_id: verona }),
        400,
        'Missing topic',
      );
      const core = await channelId(t, 'core team');
      expectError(
        await call(t, 'post', '/typing', OTHELLO, { op: 'start', type: 'stream', stream_id: core, topic: 'x' }),
        400,
        'Invalid channel ID',
      );
      expectError(
        await call(t, 'post', '/typing', POLONIUS, {
          op: 'start',
          type: 'stream',
          stream_id: await channelId(t, 'Denmark'),
          topic: 'x',
        }),
        400,
        'Invalid channel ID',
      );
      expectError(
        await call(t, 'post', '/typing', HAMLET, { op: 'start', type: 'stream', stream_id: 999999, topic: 'x' }),
        400,
        'Invalid channel ID',
      );
      await setUser(t, HAMLET, { send_private_typing_notifications: false, send_stream_typing_notifications: false });
      expectError(
        await call(t, 'post', '/typing', HAMLET, { op: 'start', to: [othello] }),
        400,
        'User has disabled typing notifications for direct messages',
      );
      expectError(
        await call(t, 'post', '/typing', HAMLET, { op: 'start', type: 'stream', stream_id: verona, topic: 'x' }),
        400,
        'User has disabled typing notifications for channel messages',
      );
      await setUser(t, HAMLET, { send_private_typing_notifications: true, send_stream_typing_notifications: true });
    });
  });
});
