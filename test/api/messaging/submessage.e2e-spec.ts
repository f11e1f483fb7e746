import type { Response } from 'supertest';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  BOT,
  call,
  CORDELIA,
  encodeParams,
  expectError,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  sendChannel,
  sendDirect,
  subscribe,
  takeEvents,
  userId,
} from './helpers';

interface Submessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

describe('widgets and POST /submessage', () => {
  let t: TestApp;
  let learMessage: number;
  const CHANNEL = 'widgets';

  const post = (email: string, messageId: unknown, content: unknown, msgType: unknown = 'widget') =>
    call(t, 'post', '/submessage', email, {
      message_id: messageId,
      msg_type: msgType,
      content: typeof content === 'string' ? content : JSON.stringify(content),
    });
  async function submessagesOf(email: string, id: number): Promise<Submessage[]> {
    const res = await call(t, 'get', `/messages/${id}`, email);
    expect(res.status).toBe(200);
    return (res.body as { message: { submessages: Submessage[] } }).message.submessages;
  }
  async function storedCount(id: number): Promise<number> {
    const rows = await t.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM submessage WHERE message_id = $1`,
      [id],
    );
    return rows[0].n;
  }

  beforeAll(async () => {
    t = await startTestApp();
    // A public channel of Hamlet and Cordelia: Othello may read it without receiving it,
    // Polonius (a guest) may not read it at all.
    await subscribe(t, HAMLET, CHANNEL, [HAMLET, CORDELIA]);
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' });
    const auth = await t.auth('king@lear.example', 'lear');
    const sent = await t
      .http()
      .post('/api/v1/messages')
      .set('Host', 'lear.zulip.testserver')
      .auth(...auth)
      .type('form')
      .send(encodeParams({ type: 'direct', to: JSON.stringify(['king@lear.example']), content: '/poll Crown?\nyes' }));
    expect(sent.status).toBe(200);
    learMessage = (sent.body as { id: number }).id;
  });
  afterAll(() => t.close());

  describe('sending a widget message', () => {
    it('a /poll message gets its widget as a first submessage, shown in fetches and in the message event', async () => {
      const q = await openQueue(t, HAMLET, ['message']);
      const content = '/poll What is your favorite color?\n\nRed\nGreen  \n\n   Blue\n - Yellow';
      const id = await sendChannel(t, CORDELIA, CHANNEL, 'poll', content);
      const cordelia = await userId(t, CORDELIA);
      const widget = {
        widget_type: 'poll',
        extra_data: { question: 'What is your favorite color?', options: ['Red', 'Green', 'Blue', 'Yellow'] },
      };
      const subs = await submessagesOf(HAMLET, id);
      expect(subs).toEqual([
        {
          id: expect.any(Number),
          message_id: id,
          sender_id: cordelia,
          msg_type: 'widget',
          content: expect.any(String),
        },
      ]);
      expect(JSON.parse(subs[0].content)).toEqual(widget);
      // Stored as Zulip's json.dumps writes it.
      expect(subs[0].content).toBe(
        '{"widget_type": "poll", "extra_data": {"question": "What is your favorite color?", "options": ["Red", "Green", "Blue", "Yellow"]}}',
      );
      const [event] = await takeEvents(t, q);
      expect(event).toMatchObject({ type: 'message', message: { id, submessages: subs } });

      // The content is kept and rendered as ordinary Markdown (Zulip renders the text; clients draw the widget).
      const raw = await call(t, 'get', `/messages/${id}`, HAMLET, { apply_markdown: false });
      expect((raw.body as { message: { content: string } }).message.content).toBe(content);
      const html = await call(t, 'get', `/messages/${id}`, HAMLET);
      const rendered = await call(t, 'post', '/messages/render', HAMLET, { content });
      const renderedHtml = (rendered.body as { rendered: string }).rendered;
      expect(renderedHtml.startsWith('<p>/poll What is your favorite color?</p>')).toBe(true);
      expect((html.body as { message: { content: string; is_me_message: boolean } }).message).toMatchObject({
        content: renderedHtml,
        is_me_message: false,
      });
      expectMatchesOpenApi('get', '/messages/{message_id}', 200, html.body);
    });

    it('a /todo direct message gets its task list; ordinary, /me and unknown commands get none', async () => {
      const id = await sendDirect(
        t,
        OTHELLO,
        [await userId(t, HAMLET)],
        '/todo School Work\nchemistry: assignment 2\n- english',
      );
      const [sub] = await submessagesOf(HAMLET, id);
      expect(JSON.parse(sub.content)).toEqual({
        widget_type: 'todo',
        extra_data: {
          task_list_title: 'School Work',
          tasks: [
            { task: 'chemistry', desc: 'assignment 2' },
            { task: 'english', desc: '' },
          ],
        },
      });
      for (const content of ['plain words', '/me waves', '/bogus', 'use /poll', '/pollster']) {
        const plain = await sendChannel(t, HAMLET, CHANNEL, 'plain', content);
        expect(await submessagesOf(HAMLET, plain)).toEqual([]);
      }
      // Bots send widgets too.
      const byBot = await sendChannel(t, BOT, 'Verona', 'bot poll', '/poll Bots?');
      expect(JSON.parse((await submessagesOf(HAMLET, byBot))[0].content)).toEqual({
        widget_type: 'poll',
        extra_data: { question: 'Bots?', options: [] },
      });
    });

    it('costs one statement more than a plain message, and a plain message none', async () => {
      // The fewest statements of three sends (a cache refresh may add one to any single send).
      const cost = async (content: string) => {
        const counts: number[] = [];
        for (let i = 0; i < 3; i++) {
          const { result, count } = await countQueries(() =>
            call(t, 'post', '/messages', HAMLET, { type: 'channel', to: CHANNEL, topic: 'count', content }),
          );
          expect(result.status).toBe(200);
          counts.push(count);
        }
        return Math.min(...counts);
      };
      await cost('warm up');
      const plain = await cost('plain');
      expect(await cost('/me is plain too')).toBe(plain);
      expect(await cost('/poll Count?\na\nb')).toBe(plain + 1);
      expect(await cost('/todo Count')).toBe(plain + 1);
    });
  });

  describe('POST /submessage', () => {
    it('poll: votes and new options from readers, question edits from the author; events to users with the message', async () => {
      const id = await sendChannel(t, CORDELIA, CHANNEL, 'poll', '/poll Preference?\n\nyes\nno');
      const [hamlet, cordelia, othello] = [
        await userId(t, HAMLET),
        await userId(t, CORDELIA),
        await userId(t, OTHELLO),
      ];
      const queues = [await openQueue(t, HAMLET, ['submessage']), await openQueue(t, CORDELIA, ['submessage'])];
      const othelloQueue = await openQueue(t, OTHELLO, ['submessage']);

      const vote = JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 });
      const res = await post(HAMLET, id, vote);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      for (const q of queues) {
        const events = await takeEvents(t, q);
        expect(events).toEqual([
          {
            type: 'submessage',
            msg_type: 'widget',
            message_id: id,
            submessage_id: expect.any(Number),
            sender_id: hamlet,
            content: vote,
          },
        ]);
      }
      // Othello may read the public channel and vote, but he never received the message:
      // Zulip sends submessage events to UserMessage holders only.
      expect((await post(OTHELLO, id, { type: 'new_option', idx: 1, option: 'maybe' })).status).toBe(200);
      expect(await takeEvents(t, othelloQueue)).toEqual([]);
      expect((await takeEvents(t, queues[0])).map((e) => e.sender_id)).toEqual([othello]);

      expect((await post(CORDELIA, id, { type: 'question', question: 'Tabs or spaces?' })).status).toBe(200);
      expectError(
        await post(HAMLET, id, { type: 'question', question: 'Tabs or spaces?' }),
        400,
        "You can't edit a question unless you are the author.",
      );
      // Votes may name options that do not exist (clients ignore them), as in Zulip.
      expect((await post(HAMLET, id, { type: 'vote', key: 'nowhere,9', vote: -1 })).status).toBe(200);

      const subs = await submessagesOf(OTHELLO, id);
      expect(subs.map((s) => [s.sender_id, s.msg_type])).toEqual([
        [cordelia, 'widget'],
        [hamlet, 'widget'],
        [othello, 'widget'],
        [cordelia, 'widget'],
        [hamlet, 'widget'],
      ]);
      expect(subs.map((s) => s.id)).toEqual([...subs.map((s) => s.id)].sort((a, b) => a - b));
      expect(subs[1].content).toBe(vote);
      expect(subs.every((s) => s.message_id === id)).toBe(true);
    });

    it('todo: tasks and strikes from readers, title edits from the author', async () => {
      const id = await sendDirect(t, HAMLET, [await userId(t, CORDELIA)], '/todo Chores');
      const q = await openQueue(t, HAMLET, ['submessage']);
      const newTask = { type: 'new_task', key: 7, task: 'eat', desc: '', completed: false };
      expect((await post(CORDELIA, id, newTask)).status).toBe(200);
      expect((await post(CORDELIA, id, { type: 'strike', key: '7,9' })).status).toBe(200);
      expect((await post(HAMLET, id, { type: 'new_task_list_title', title: 'More chores' })).status).toBe(200);
      expectError(
        await post(CORDELIA, id, { type: 'new_task_list_title', title: 'Mine' }),
        400,
        "You can't edit the task list title unless you are the author.",
      );
      expectError(await post(CORDELIA, id, { ...newTask, key: 1001 }), 400, 'todo data["key"] is too large');
      expect((await takeEvents(t, q)).map((e) => e.type)).toEqual(['submessage', 'submessage', 'submessage']);
      expect((await submessagesOf(CORDELIA, id)).length).toBe(4);
    });

    it("refuses content that is not JSON or not the widget's data, changing nothing", async () => {
      const id = await sendChannel(t, HAMLET, CHANNEL, 'poll', '/poll Preference?\nyes\nno');
      const cases: Array<[string, string]> = [
        ['bogus', 'Invalid json for submessage'],
        ['', 'Invalid json for submessage'],
        ['""', 'poll data is not a dict'],
        ['[]', 'poll data is not a dict'],
        ['{"type": "bogus"}', 'Unknown type for poll data: bogus'],
        ['{"type": "vote"}', 'key key is missing from poll data'],
        ['{"type": "vote", "key": "1,1,", "vote": 99}', 'Invalid poll data["vote"]'],
        ['{"type": "vote", "key": "1,1", "vote": 1, "x": 2}', 'Unexpected arguments: x'],
        ['{"type": "question", "question": 7}', 'poll data["question"] is not a string'],
        ['{"type": "new_option", "idx": -1, "option": "pizza"}', 'poll data["idx"] is too small'],
        ['{"type": "new_option", "idx": "bogus", "option": "maybe"}', 'poll data["idx"] is not an integer'],
      ];
      for (const [content, msg] of cases) {
        expectError(await post(HAMLET, id, content), 400, msg);
      }
      expect(await storedCount(id)).toBe(1);
    });

    it('refuses messages that are not widget messages, or not accessible', async () => {
      const plain = await sendChannel(t, CORDELIA, CHANNEL, 'plain', 'no widget here');
      const vote = { type: 'vote', key: 'canned,0', vote: 1 };
      // Not a widget message: neither its sender nor anyone else may attach submessages.
      expectError(await post(HAMLET, plain, vote), 400, 'You cannot attach a submessage to this message.');
      expectError(await post(CORDELIA, plain, vote), 400, 'You cannot attach a submessage to this message.');
      expect(await storedCount(plain)).toBe(0);

      // A poll in a channel Polonius (a guest, not subscribed) cannot read; a private channel; others' DMs;
      // a message of another realm; an id that does not exist.
      const poll = await sendChannel(t, CORDELIA, CHANNEL, 'poll', '/poll Q?\na');
      const privatePoll = await sendChannel(t, HAMLET, 'core team', 'poll', '/poll Secret?\na');
      const dmPoll = await sendDirect(t, HAMLET, [await userId(t, CORDELIA)], '/poll Just us?\na');
      const invalid: Array<[string, number]> = [
        [POLONIUS, poll],
        [OTHELLO, privatePoll],
        [OTHELLO, dmPoll],
        [IAGO, dmPoll],
        [HAMLET, learMessage],
        [HAMLET, 2_000_000_000],
      ];
      for (const [email, id] of invalid) {
        const res = await post(email, id, vote);
        expectError(res, 400, 'Invalid message(s)');
      }
      expect(await storedCount(poll)).toBe(1);
      expect(await storedCount(learMessage)).toBe(1);
      // Ids that cannot be database ids behave like unknown ones; non-integers are refused.
      expectError(await post(HAMLET, 99_999_999_999, vote), 400, 'Invalid message(s)');
      expectError(await post(HAMLET, 'abc', vote), 400, 'message_id is not valid JSON');
      expectError(await post(HAMLET, 1.5, vote), 400, 'message_id is not an integer');
    });

    it('guests who can read the message, and bots, may vote; archived channels take no submessages', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'guest poll', '/poll Guests?\nyes');
      const vote = { type: 'vote', key: 'canned,0', vote: 1 };
      await subscribe(t, IAGO, 'Verona', [POLONIUS]);
      expect((await post(POLONIUS, id, vote)).status).toBe(200);
      expect((await post(BOT, id, vote)).status).toBe(200);
      expectError(
        await post(POLONIUS, id, { type: 'question', question: 'Mine?' }),
        400,
        "You can't edit a question unless you are the author.",
      );
      expect((await submessagesOf(POLONIUS, id)).map((s) => s.sender_id)).toEqual([
        await userId(t, HAMLET),
        await userId(t, POLONIUS),
        await userId(t, BOT),
      ]);

      await subscribe(t, HAMLET, 'widgets-archive');
      const archived = await sendChannel(t, HAMLET, 'widgets-archive', 'poll', '/poll Archived?\nyes');
      const channel = await call(t, 'get', '/get_stream_id', HAMLET, { stream: 'widgets-archive' });
      const streamId = (channel.body as { stream_id: number }).stream_id;
      expect((await call(t, 'delete', `/streams/${streamId}`, IAGO)).status).toBe(200);
      expectError(await post(HAMLET, archived, vote), 400, 'Invalid message(s)');
      expect(await storedCount(archived)).toBe(1);
    });

    it('checks its parameters: msg_type, missing values, the size of the content', async () => {
      const id = await sendChannel(t, HAMLET, CHANNEL, 'poll', '/poll Sizes?');
      const vote = { type: 'vote', key: 'canned,0', vote: 1 };
      expectError(await post(HAMLET, id, vote, 'whatever'), 400, 'Invalid msg_type');
      const missing = await call(t, 'post', '/submessage', HAMLET, { message_id: id, msg_type: 'widget' });
      expectError(missing, 400, "Missing 'content' argument", 'REQUEST_VARIABLE_MISSING');
      expectError(
        await call(t, 'post', '/submessage', HAMLET, { msg_type: 'widget', content: '{}' }),
        400,
        "Missing 'message_id' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      const long = JSON.stringify({ type: 'new_option', idx: 1, option: 'x'.repeat(10_000) });
      expectError(await post(HAMLET, id, long), 400, 'content is too long (limit: 10000 characters)');
      const justFits = JSON.stringify({ type: 'new_option', idx: 1, option: '' });
      const option = 'y'.repeat(10_000 - justFits.length);
      expect((await post(HAMLET, id, { type: 'new_option', idx: 1, option })).status).toBe(200);
      expect(await storedCount(id)).toBe(2);
    });

    it('stops a message at 10000 submessages', async () => {
      const id = await sendChannel(t, HAMLET, CHANNEL, 'poll', '/poll Popular?');
      const hamlet = await userId(t, HAMLET);
      await t.dataSource.query(
        `INSERT INTO submessage (message_id, sender_id, msg_type, content)
         SELECT $1, $2, 'widget', '{"type": "vote", "key": "canned,0", "vote": 1}' FROM generate_series(1, 9999)`,
        [id, hamlet],
      );
      expectError(
        await post(HAMLET, id, { type: 'vote', key: 'canned,0', vote: 1 }),
        400,
        'This message cannot take more than 10000 submessages.',
      );
      expect(await storedCount(id)).toBe(10_000);
    });
  });

  describe('message dicts', () => {
    it('GET /messages shows every message with its submessages, in one query for any number of messages', async () => {
      const topic = 'many polls';
      const ids: number[] = [];
      for (let i = 0; i < 100; i++) ids.push(await sendChannel(t, CORDELIA, CHANNEL, topic, `/poll Q${i}?\na\nb`));
      for (const id of ids)
        expect((await post(HAMLET, id, { type: 'vote', key: 'canned,1', vote: 1 })).status).toBe(200);
      const narrow = [
        { operator: 'channel', operand: CHANNEL },
        { operator: 'topic', operand: topic },
      ];
      const fetch = (n: number) =>
        countQueries(() =>
          call(t, 'get', '/messages', HAMLET, { anchor: 'newest', num_before: n, num_after: 0, narrow }),
        );
      // Per-process caches (credentials, the channel) expire after 10 s and are read again once:
      // of two fetches in a row, the one without such a refill is the fetch's own statements.
      const fewest = async (n: number) => {
        const [a, b] = [await fetch(n), await fetch(n)];
        return a.count <= b.count ? a : b;
      };
      const one = await fewest(1);
      const hundred = await fewest(100);
      expect(hundred.count).toBe(one.count);
      // The messages come with their reactions and submessages: no statement reads those tables alone.
      expect(hundred.queries.filter((q) => /^\s*SELECT\b[^(]*\bFROM (reaction|submessage)\b/i.test(q))).toEqual([]);
      const body = hundred.result.body as { messages: Array<{ id: number; submessages: Submessage[] }> };
      expectMatchesOpenApi('get', '/messages', 200, hundred.result.body);
      expect(body.messages.map((m) => m.id)).toEqual(ids);
      for (const m of body.messages) {
        expect(m.submessages.map((s) => s.msg_type)).toEqual(['widget', 'widget']);
        expect(m.submessages.every((s) => s.message_id === m.id)).toBe(true);
        expect(m.submessages[0].id).toBeLessThan(m.submessages[1].id);
      }
      const plain = await sendChannel(t, CORDELIA, CHANNEL, topic, 'plain');
      const latest = await call(t, 'get', '/messages', HAMLET, { anchor: plain, num_before: 0, num_after: 0, narrow });
      expect((latest.body as { messages: Array<{ submessages: unknown[] }> }).messages[0].submessages).toEqual([]);
    });

    it('deleting a message deletes its submessages', async () => {
      const id = await sendChannel(t, HAMLET, CHANNEL, 'doomed', '/poll Doomed?\nyes');
      expect((await post(CORDELIA, id, { type: 'vote', key: 'canned,0', vote: 1 })).status).toBe(200);
      expect(await storedCount(id)).toBe(2);
      const res: Response = await call(t, 'delete', `/messages/${id}`, IAGO);
      expect(res.status).toBe(200);
      expect(await storedCount(id)).toBe(0);
      expectError(await post(CORDELIA, id, { type: 'vote', key: 'canned,0', vote: 1 }), 400, 'Invalid message(s)');
    });
  });
});
