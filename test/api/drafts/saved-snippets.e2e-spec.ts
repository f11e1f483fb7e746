/**
 * Saved snippets (zerver/tests/test_saved_snippets.py): GET/POST /saved_snippets,
 * PATCH/DELETE /saved_snippets/{saved_snippet_id}, saved_snippets in /register and events.
 */
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { call, DEFAULT_BOT, expectError, HAMLET, IAGO, OTHELLO, POLONIUS } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { createUsers, openQueue, takeEvents } from '../messaging/helpers';

type Snippet = { id: number; title: string; content: string; date_created: number };

describe('saved snippets', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const list = async (email: string) =>
    (await call(t, 'get', '/saved_snippets', email)).body.saved_snippets as Snippet[];
  const create = (email: string, params: Record<string, unknown>) => call(t, 'post', '/saved_snippets', email, params);

  it('creates, lists, edits and deletes, with events to the owner only', async () => {
    const empty = await call(t, 'get', '/saved_snippets', HAMLET);
    expect(empty.status).toBe(200);
    expectMatchesOpenApi('get', '/saved_snippets', 200, empty.body);
    expect(empty.body.saved_snippets).toEqual([]);

    const mine = await openQueue(t, HAMLET, ['saved_snippets']);
    const other = await openQueue(t, OTHELLO, ['saved_snippets']);
    const before = Math.floor(Date.now() / 1000);
    const res = await create(HAMLET, { title: '  Welcome message ', content: '\n**Welcome** to the organization.  ' });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('post', '/saved_snippets', 200, res.body);
    const id = res.body.saved_snippet_id as number;
    const [snippet] = await list(HAMLET);
    expect(snippet).toEqual({
      id,
      title: 'Welcome message',
      content: '**Welcome** to the organization.',
      date_created: expect.any(Number) as number,
    });
    expect(snippet.date_created).toBeGreaterThanOrEqual(before - 1);
    const state = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['saved_snippets'] });
    expect(state.body.saved_snippets).toEqual([snippet]);

    const patched = await call(t, 'patch', `/saved_snippets/${id}`, HAMLET, { title: 'New title' });
    expect(patched.status).toBe(200);
    expectMatchesOpenApi('patch', '/saved_snippets/{saved_snippet_id}', 200, patched.body);
    expect((await call(t, 'patch', `/saved_snippets/${id}`, HAMLET, { content: ' New content ' })).status).toBe(200);
    // Nothing to change: success at once, and no event (Zulip's view).
    expect((await call(t, 'patch', `/saved_snippets/${id}`, HAMLET)).status).toBe(200);
    const edited = { ...snippet, title: 'New title', content: 'New content' };
    expect(await list(HAMLET)).toEqual([edited]);

    const deleted = await call(t, 'delete', `/saved_snippets/${id}`, HAMLET);
    expect(deleted.status).toBe(200);
    expectMatchesOpenApi('delete', '/saved_snippets/{saved_snippet_id}', 200, deleted.body);
    expect(await list(HAMLET)).toEqual([]);

    expect(await takeEvents(t, mine)).toEqual([
      { type: 'saved_snippets', op: 'add', saved_snippet: snippet },
      { type: 'saved_snippets', op: 'update', saved_snippet: { ...snippet, title: 'New title' } },
      { type: 'saved_snippets', op: 'update', saved_snippet: edited },
      { type: 'saved_snippets', op: 'remove', saved_snippet_id: id },
    ]);
    expect(await takeEvents(t, other)).toEqual([]);
  });

  it("refuses bad titles and contents in Zulip's words", async () => {
    const cases: Array<[Record<string, unknown>, string, string?]> = [
      [{ content: 'c' }, "Missing 'title' argument", 'REQUEST_VARIABLE_MISSING'],
      [{ title: 't' }, "Missing 'content' argument", 'REQUEST_VARIABLE_MISSING'],
      [{ title: 'A'.repeat(120), content: 'c' }, 'title is too long (limit: 60 characters)'],
      [{ title: '   ', content: 'c' }, 'title cannot be blank'],
      [{ title: 't', content: ' \n ' }, 'content cannot be blank'],
      [{ title: 't', content: 'x'.repeat(10001) }, 'content is too long (limit: 10000 characters)'],
      [{ title: 'a\u0000b', content: 'c' }, 'Invalid character in title, at position 2.'],
      [{ title: 't', content: 'c\u0000' }, 'Invalid character in content, at position 2.'],
    ];
    for (const [params, msg, code] of cases) {
      const res = await create(HAMLET, params);
      expectError(res, 400, msg, code);
      if (!code) expectMatchesOpenApi('post', '/saved_snippets', 400, res.body);
    }
    // Limits count characters after stripping.
    expect((await create(HAMLET, { title: ` ${'☃'.repeat(60)} `, content: 'c' })).status).toBe(200);
    expect((await list(HAMLET)).length).toBe(1);
    const [{ id }] = await list(HAMLET);
    expectError(
      await call(t, 'patch', `/saved_snippets/${id}`, HAMLET, { title: 'B'.repeat(61) }),
      400,
      'title is too long (limit: 60 characters)',
    );
    expectError(
      await call(t, 'patch', `/saved_snippets/${id}`, HAMLET, { content: '' }),
      400,
      'content cannot be blank',
    );
    await call(t, 'delete', `/saved_snippets/${id}`, HAMLET);
  });

  it("a missing snippet, another user's and another realm's: Saved snippet does not exist. (404)", async () => {
    const id = (await create(HAMLET, { title: 'Mine', content: 'hands off' })).body.saved_snippet_id as number;
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' });
    const learCall = async (method: 'patch' | 'delete') =>
      t
        .http()
        [method](`/api/v1/saved_snippets/${id}`)
        .set('Host', 'lear.zulip.testserver')
        .auth(...(await t.auth('king@lear.example', 'lear')))
        .type('form')
        .send({ content: 'stolen' });
    const responses = [
      await call(t, 'patch', '/saved_snippets/99999999', HAMLET, { content: 'New content' }),
      await call(t, 'patch', '/saved_snippets/99999999999999', HAMLET, { content: 'New content' }),
      await call(t, 'patch', `/saved_snippets/${id}`, OTHELLO, { content: 'stolen' }),
      await learCall('patch'),
      await call(t, 'delete', '/saved_snippets/99999999', HAMLET),
      await call(t, 'delete', `/saved_snippets/${id}`, OTHELLO),
      await learCall('delete'),
    ];
    for (const res of responses) {
      expectError(res, 404, 'Saved snippet does not exist.');
      expectMatchesOpenApi(res.request.method.toLowerCase(), '/saved_snippets/{saved_snippet_id}', 404, res.body);
    }
    expect((await list(HAMLET)).map((s) => s.content)).toEqual(['hands off']);
    expect((await call(t, 'delete', '/saved_snippets/abc', HAMLET)).status).toBe(404);
    await call(t, 'delete', `/saved_snippets/${id}`, HAMLET);
  });

  it('guests and bots keep their own; deactivated users are refused', async () => {
    expect((await create(POLONIUS, { title: 'Guest', content: 'guest text' })).status).toBe(200);
    expect((await create(DEFAULT_BOT, { title: 'Bot', content: 'bot text' })).status).toBe(200);
    expect((await list(POLONIUS)).map((s) => s.title)).toEqual(['Guest']);
    expect((await list(DEFAULT_BOT)).map((s) => s.title)).toEqual(['Bot']);
    expect(await list(HAMLET)).toEqual([]);

    const [gone] = await createUsers(t, 'snippetgone', 1);
    const email = 'snippetgone0@zulip.com';
    expect((await create(email, { title: 'x', content: 'y' })).status).toBe(200);
    expect((await call(t, 'delete', `/users/${gone}`, IAGO)).status).toBe(200);
    expect((await call(t, 'get', '/saved_snippets', email)).status).toBe(401);
    expect((await create(email, { title: 'x', content: 'y' })).status).toBe(401);
  });
});
