/**
 * Alert words (zerver/tests/test_alert_words.py): GET/POST/DELETE /users/me/alert_words,
 * alert_words in /register and alert_words events, and the has_alert_word flag that sending and
 * editing set from the realm's words (one matcher per realm, cached; no query per recipient).
 */
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { Flag } from '../../../src/messaging/flags';
import { countQueries } from '../../helpers/query-counter';
import { call, CORDELIA, DEFAULT_BOT, expectError, HAMLET, IAGO, OTHELLO, POLONIUS, userId } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  addSubscribers,
  createUsers,
  openQueue,
  sendChannel,
  sendDirect,
  takeEvents,
  umFlags,
} from '../messaging/helpers';

describe('alert words', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const words = (email: string, method: 'get' | 'post' | 'delete' = 'get', list?: unknown) =>
    call(t, method, '/users/me/alert_words', email, list === undefined ? {} : { alert_words: list });
  const setWords = async (email: string, list: string[]) => {
    const current = (await words(email)).body.alert_words as string[];
    if (current.length > 0) expect((await words(email, 'delete', current)).status).toBe(200);
    if (list.length > 0) expect((await words(email, 'post', list)).status).toBe(200);
  };
  const hasAlert = async (email: string, messageId: number) =>
    (((await umFlags(t, email, messageId)) ?? 0) & Flag.has_alert_word) !== 0;

  describe('the endpoints', () => {
    it('starts empty; POST strips, drops empty words and answers the whole sorted list', async () => {
      const empty = await words(HAMLET);
      expect(empty.status).toBe(200);
      expectMatchesOpenApi('get', '/users/me/alert_words', 200, empty.body);
      expect(empty.body.alert_words).toEqual([]);

      const res = await words(HAMLET, 'post', ['one ', '\n two', 'three', '   ', 'multi-word word', '☃']);
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/users/me/alert_words', 200, res.body);
      expect(res.body.alert_words).toEqual(['multi-word word', 'one', 'three', 'two', '☃']);
      expect((await words(HAMLET)).body.alert_words).toEqual(res.body.alert_words);
      const state = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['alert_words'] });
      expect(state.body.alert_words).toEqual(res.body.alert_words);
    });

    it('adds and removes ignoring case (Zulip test_basics); unknown words are ignored', async () => {
      await setWords(HAMLET, ['alert', 'multi-word word', '☃']);
      const again = await words(HAMLET, 'post', ['ALert', 'ALERT', 'New', 'NEW']);
      // A word equal but for case to a stored one is not added; of two new ones the last is kept.
      expect(again.body.alert_words).toEqual(['NEW', 'alert', 'multi-word word', '☃']);
      const removed = await words(HAMLET, 'delete', ['ALert', 'never-there', '☃']);
      expect(removed.status).toBe(200);
      expectMatchesOpenApi('delete', '/users/me/alert_words', 200, removed.body);
      expect(removed.body.alert_words).toEqual(['NEW', 'multi-word word']);
    });

    it('sends the whole list in an alert_words event to the user only', async () => {
      await setWords(HAMLET, []);
      const mine = await openQueue(t, HAMLET, ['alert_words']);
      const other = await openQueue(t, OTHELLO, ['alert_words']);
      await words(HAMLET, 'post', ['tea']);
      await words(HAMLET, 'post', ['Tea']); // nothing new: the event still comes, as Zulip
      await words(HAMLET, 'delete', ['TEA']);
      expect(await takeEvents(t, mine)).toEqual([
        { type: 'alert_words', alert_words: ['tea'] },
        { type: 'alert_words', alert_words: ['tea'] },
        { type: 'alert_words', alert_words: [] },
      ]);
      expect(await takeEvents(t, other)).toEqual([]);
    });

    it("refuses bad parameters in Zulip's words and changes nothing", async () => {
      await setWords(HAMLET, ['kept']);
      const cases: Array<['post' | 'delete', Record<string, unknown>, string, string?]> = [
        ['post', {}, "Missing 'alert_words' argument", 'REQUEST_VARIABLE_MISSING'],
        ['delete', {}, "Missing 'alert_words' argument", 'REQUEST_VARIABLE_MISSING'],
        ['post', { alert_words: 'not json' }, 'alert_words is not valid JSON'],
        ['post', { alert_words: { a: 1 } }, 'alert_words is not a list'],
        ['delete', { alert_words: 'kept' }, 'alert_words is not valid JSON'],
        ['post', { alert_words: ['fine', 7] }, 'alert_words[1] is not a string'],
        ['delete', { alert_words: [null] }, 'alert_words[0] is not a string'],
        ['post', { alert_words: ['x'.repeat(101)] }, 'alert_words[0] is too long (limit: 100 characters)'],
        ['post', { alert_words: ['ab\u0000c'] }, 'Invalid character in alert word, at position 3.'],
      ];
      for (const [method, params, msg, code] of cases) {
        const res = await call(t, method, '/users/me/alert_words', HAMLET, params);
        expectError(res, 400, msg, code);
        if (!code) expectMatchesOpenApi(method, '/users/me/alert_words', 400, res.body);
      }
      // 100 characters (code points) are fine; a NUL word cannot exist, so DELETE ignores it.
      expect((await words(HAMLET, 'post', ['☃'.repeat(100)])).status).toBe(200);
      expect((await words(HAMLET, 'delete', ['a\u0000'])).body.alert_words).toEqual(['kept', '☃'.repeat(100)]);
    });

    it('guests and bots keep their own words; deactivated users are refused', async () => {
      expect((await words(POLONIUS, 'post', ['guest word'])).body.alert_words).toEqual(['guest word']);
      expect((await words(DEFAULT_BOT, 'post', ['bot word'])).body.alert_words).toEqual(['bot word']);
      expect((await words(HAMLET)).body.alert_words).not.toContain('guest word');

      const [gone] = await createUsers(t, 'alertgone', 1);
      const email = 'alertgone0@zulip.com';
      await words(email, 'post', ['x']);
      expect((await call(t, 'delete', `/users/${gone}`, IAGO)).status).toBe(200);
      for (const method of ['get', 'post', 'delete'] as const) {
        const res = await words(email, method, method === 'get' ? undefined : ['x']);
        expect(res.status).toBe(401);
      }
    });

    it("another realm's words stay in that realm", async () => {
      const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
      await t.app.get(UsersService).createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' });
      const res = await t
        .http()
        .post('/api/v1/users/me/alert_words')
        .set('Host', 'lear.zulip.testserver')
        .auth(...(await t.auth('king@lear.example', 'lear')))
        .type('form')
        .send({ alert_words: JSON.stringify(['crown']) });
      expect(res.body.alert_words).toEqual(['crown']);
      await setWords(HAMLET, []);
      const id = await sendChannel(t, OTHELLO, 'Denmark', 'realms', 'the crown is heavy');
      expect(await hasAlert(HAMLET, id)).toBe(false);
      expect((await words(HAMLET)).body.alert_words).toEqual([]);
    });
  });

  describe('has_alert_word', () => {
    const alerts = async (content: string) =>
      hasAlert(HAMLET, await sendChannel(t, OTHELLO, 'Denmark', 'alerts', content));

    it("flags messages with the user's words between word boundaries (Zulip test_alert_flags)", async () => {
      await setWords(HAMLET, ['one', 'two', 'three']);
      expect(await alerts('Normal alert one time')).toBe(true);
      expect(await alerts('Normal alert one')).toBe(true);
      expect(await alerts('two normal alerts')).toBe(true);
      expect(await alerts('This one? should alert')).toBe(true);
      expect(await alerts('Definitely time for three.')).toBe(true);
      expect(await alerts("One two three o'clock")).toBe(true);
      expect(await alerts("One o'clock")).toBe(true);
      expect(await alerts("Case of ONE, won't stop me")).toBe(true);
      expect(await alerts("Don't alert on http://t.co/one/ URLs")).toBe(false);
      expect(await alerts("Don't alert on http://t.co/one URLs")).toBe(false);
      expect(await alerts("Don't alert on clone, twofold or seventytwofold")).toBe(false);
    });

    it('only for the users whose words match; GET /messages shows the flag and is:alerted finds it', async () => {
      await setWords(HAMLET, ['biscuit']);
      await setWords(CORDELIA, ['crumpet']);
      const id = await sendChannel(t, OTHELLO, 'Denmark', 'tea time', 'a biscuit, please');
      expect(await hasAlert(HAMLET, id)).toBe(true);
      expect(await hasAlert(CORDELIA, id)).toBe(false);
      const fetched = await call(t, 'get', '/messages', HAMLET, {
        anchor: id,
        num_before: 0,
        num_after: 0,
        narrow: [{ operator: 'is', operand: 'alerted' }],
      });
      expect(fetched.status).toBe(200);
      const [message] = fetched.body.messages as Array<{ id: number; flags: string[] }>;
      expect(message.id).toBe(id);
      expect(message.flags).toContain('has_alert_word');
    });

    it("the message event carries the flag; the sender's own words flag their copy (as Zulip)", async () => {
      await setWords(HAMLET, ['ALERT']);
      const q = await openQueue(t, HAMLET, ['message']);
      const id = await sendChannel(t, HAMLET, 'Denmark', 'own', 'this is an ALERT for you');
      expect(await hasAlert(HAMLET, id)).toBe(true);
      const [event] = await takeEvents(t, q);
      expect(event.flags).toContain('has_alert_word');
    });

    it('direct messages too', async () => {
      await setWords(HAMLET, ['parcel']);
      const id = await sendDirect(t, OTHELLO, [await userId(t, HAMLET)], 'Your parcel arrived');
      expect(await hasAlert(HAMLET, id)).toBe(true);
      expect(await hasAlert(OTHELLO, id)).toBe(false);
    });

    it('editing recomputes it (Zulip test_update_alert_words)', async () => {
      await setWords(HAMLET, ['ALERT']);
      const id = await sendChannel(t, HAMLET, 'Denmark', 'edits', 'this is an ALERT for you');
      await setWords(OTHELLO, ['alarm']);
      await call(t, 'post', '/messages/flags', HAMLET, { messages: [id], op: 'add', flag: 'starred' });
      const edit = (content: string) => call(t, 'patch', `/messages/${id}`, HAMLET, { content });
      const q = await openQueue(t, OTHELLO, ['update_message']);
      expect((await edit('new ALERT for you')).status).toBe(200);
      expect(await hasAlert(HAMLET, id)).toBe(true);
      expect((await edit('sorry false alarm')).status).toBe(200);
      expect(await hasAlert(HAMLET, id)).toBe(false);
      expect(await hasAlert(OTHELLO, id)).toBe(true);
      // The update_message events carry each user's flags after the edit.
      const events = await takeEvents(t, q);
      expect(events.map((e) => (e.flags as string[]).includes('has_alert_word'))).toEqual([false, true]);
      // The other flags are kept.
      expect(((await umFlags(t, HAMLET, id))! & Flag.starred) !== 0).toBe(true);
    });

    it('a change of words applies to the next message at once (the cached matcher is dropped)', async () => {
      await setWords(HAMLET, []);
      expect(await alerts('marmalade on toast')).toBe(false);
      await words(HAMLET, 'post', ['marmalade']);
      expect(await alerts('marmalade on toast')).toBe(true);
      await words(HAMLET, 'delete', ['MARMALADE']);
      expect(await alerts('marmalade on toast')).toBe(false);
    });

    it("a change made through another instance is seen once the realm row's version moves", async () => {
      await setWords(HAMLET, []);
      expect(await alerts('quince jelly')).toBe(false);
      // Another instance writes the word and bumps the realm's version; this one still holds its
      // matcher until it reads the realm row again (cached for 2 s at most).
      const hamletId = await userId(t, HAMLET);
      await t.dataSource.query(
        `INSERT INTO alert_word (realm_id, user_profile_id, word) SELECT realm_id, id, 'quince' FROM user_profile WHERE id = $1`,
        [hamletId],
      );
      await t.dataSource.query(
        `UPDATE realm SET alert_words_version = alert_words_version + 1 WHERE string_id = 'zulip'`,
      );
      t.app.get(RealmService).invalidate();
      expect(await alerts('quince jelly')).toBe(true);
    });

    it('costs the same statements for a channel with N users having alert words as with 1', async () => {
      const many = await createUsers(t, 'alertmany', 12);
      const [single] = await createUsers(t, 'alertsingle', 1);
      for (const [name, ids] of [
        ['alerts one', [single]],
        ['alerts many', many],
      ] as const) {
        expect((await call(t, 'post', '/users/me/subscriptions', OTHELLO, { subscriptions: [{ name }] })).status).toBe(
          200,
        );
        await addSubscribers(t, name, [...ids]);
      }
      for (let i = 0; i < many.length; i++) await words(`alertmany${i}@zulip.com`, 'post', ['pineapple', `fruit${i}`]);
      await words('alertsingle0@zulip.com', 'post', ['pineapple']);
      // Warm up: the first send builds the realm's matcher (one query), and starts the topics.
      await sendChannel(t, OTHELLO, 'alerts one', 'fruit', 'warm');
      await sendChannel(t, OTHELLO, 'alerts many', 'fruit', 'warm');

      const one = await countQueries(() => sendChannel(t, OTHELLO, 'alerts one', 'fruit', 'a pineapple!'));
      const n = await countQueries(() => sendChannel(t, OTHELLO, 'alerts many', 'fruit', 'a pineapple!'));
      expect(n.count).toBe(one.count);
      expect(one.queries.some((q) => /alert_word/.test(q))).toBe(false);
      for (let i = 0; i < many.length; i++) expect(await hasAlert(`alertmany${i}@zulip.com`, n.result)).toBe(true);
      expect(await hasAlert('alertsingle0@zulip.com', one.result)).toBe(true);
    });
  });
});
