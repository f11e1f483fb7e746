import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Clock } from '../../../src/messaging/clock';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  BOT,
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
  setUser,
  takeEvents,
  userId,
} from './helpers';

type Entry = Record<string, unknown>;

describe('GET /messages/{message_id}/history', () => {
  let t: TestApp;
  const history = (email: string, id: number | string, params: Record<string, unknown> = {}) =>
    call(t, 'get', `/messages/${id}/history`, email, params);
  async function entries(email: string, id: number, params: Record<string, unknown> = {}): Promise<Entry[]> {
    const res = await history(email, id, params);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/messages/{message_id}/history', 200, res.body);
    return (res.body as { message_history: Entry[] }).message_history;
  }
  async function edit(email: string, id: number, params: Record<string, unknown>): Promise<void> {
    t.app.get(Clock).advance(10_000);
    const res = await call(t, 'patch', `/messages/${id}`, email, params);
    if (res.status !== 200) throw new Error(`edit failed: ${JSON.stringify(res.body)}`);
  }
  /** The stored send time and edit times (oldest edit first) of a message, in seconds. */
  async function times(id: number): Promise<{ sent: number; edits: number[] }> {
    const [row] = await t.dataSource.query<Array<{ sent: number; history: Array<{ timestamp: number }> | null }>>(
      `SELECT floor(extract(epoch FROM date_sent))::int AS sent, edit_history AS history FROM message WHERE id = $1`,
      [id],
    );
    return { sent: row.sent, edits: (row.history ?? []).map((e) => e.timestamp).reverse() };
  }
  async function setPolicy(value: string): Promise<void> {
    const res = await call(t, 'patch', '/realm', IAGO, { message_edit_history_visibility_policy: value });
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('replays content edits, topic edits and channel moves, oldest first', async () => {
    const hamlet = await userId(t, HAMLET);
    const iago = await userId(t, IAGO);
    const id = await sendChannel(t, HAMLET, 'Verona', 'history one', 'first **version**');
    const { sent } = await times(id);
    expect(await entries(OTHELLO, id)).toEqual([
      {
        content: 'first **version**',
        rendered_content: '<p>first <strong>version</strong></p>',
        timestamp: sent,
        topic: 'history one',
        user_id: hamlet,
      },
    ]);
    await edit(HAMLET, id, { content: 'second version' });
    await edit(HAMLET, id, { topic: 'history two' });
    await edit(HAMLET, id, { content: 'third version', topic: 'history three' });
    await edit(IAGO, id, { stream_id: await channelId(t, 'Denmark') });
    const [edited, renamed, both, moved] = (await times(id)).edits;
    const first = { content: 'first **version**', rendered_content: '<p>first <strong>version</strong></p>' };
    const second = { content: 'second version', rendered_content: '<p>second version</p>' };
    const third = { content: 'third version', rendered_content: '<p>third version</p>' };
    const all = [
      { ...first, timestamp: sent, topic: 'history one', user_id: hamlet },
      {
        ...second,
        prev_content: first.content,
        prev_rendered_content: first.rendered_content,
        timestamp: edited,
        topic: 'history one',
        user_id: hamlet,
      },
      { ...second, prev_topic: 'history one', timestamp: renamed, topic: 'history two', user_id: hamlet },
      {
        ...third,
        prev_content: second.content,
        prev_rendered_content: second.rendered_content,
        prev_topic: 'history two',
        timestamp: both,
        topic: 'history three',
        user_id: hamlet,
      },
      {
        ...third,
        prev_stream: await channelId(t, 'Verona'),
        stream: await channelId(t, 'Denmark'),
        timestamp: moved,
        topic: 'history three',
        user_id: iago,
      },
    ];
    expect(await entries(IAGO, id)).toEqual(all);

    // "moves": content edits disappear; an edit that also moved keeps only the move.
    const q = await openQueue(t, HAMLET, ['realm']);
    const res = await call(t, 'patch', '/realm', IAGO, { message_edit_history_visibility_policy: 'moves' });
    expect(res.body).toEqual({ result: 'success', msg: '', message_edit_history_visibility_policy: 2 });
    expect(await takeEvents(t, q)).toEqual([
      { type: 'realm', op: 'update', property: 'message_edit_history_visibility_policy', value: 'moves' },
    ]);
    try {
      const withoutContent = (e: Entry) => {
        const copy = { ...e };
        delete copy.prev_content;
        delete copy.prev_rendered_content;
        return copy;
      };
      expect(await entries(IAGO, id)).toEqual([all[0], all[2], withoutContent(all[3]), all[4]]);
      const register = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm'] });
      expect(register.body).toMatchObject({
        realm_message_edit_history_visibility_policy: 'moves',
        realm_allow_edit_history: true,
      });
      // Message dicts follow the policy too; the timestamps come from the whole history.
      const message = (await call(t, 'get', `/messages/${id}`, IAGO)).body as { message: Entry };
      expect((message.message.edit_history as Entry[]).map((e) => e.timestamp)).toEqual([moved, both, renamed]);
      expect(message.message.last_edit_timestamp).toBe(both);

      await setPolicy('none');
      const disabled = await history(IAGO, id);
      expectError(disabled, 400, 'Message edit history is disabled in this organization');
      // Checked before the message: any id gets it.
      expectError(await history(IAGO, 2_000_000_000), 400, 'Message edit history is disabled in this organization');
      const hidden = (await call(t, 'get', `/messages/${id}`, IAGO)).body as { message: Entry };
      expect(hidden.message).not.toHaveProperty('edit_history');
      expect(hidden.message.last_edit_timestamp).toBe(both);
      expect(hidden.message.last_moved_timestamp).toBe(moved);
      const after = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm'] });
      expect(after.body).toMatchObject({
        realm_message_edit_history_visibility_policy: 'none',
        realm_allow_edit_history: false,
      });
    } finally {
      await setPolicy('all');
    }
  });

  it('shows direct messages with an empty topic, and the empty topic by the client capability', async () => {
    const hamlet = await userId(t, HAMLET);
    const dm = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'dm one');
    await edit(HAMLET, dm, { content: 'dm two' });
    const dmHistory = await entries(OTHELLO, dm);
    expect(dmHistory.map((e) => [e.topic, e.content, e.user_id])).toEqual([
      ['', 'dm one', hamlet],
      ['', 'dm two', hamlet],
    ]);
    const id = await sendChannel(t, HAMLET, 'Verona', '', 'in general chat');
    await edit(HAMLET, id, { topic: 'named' });
    expect((await entries(HAMLET, id)).map((e) => [e.topic, e.prev_topic])).toEqual([
      ['general chat', undefined],
      ['named', 'general chat'],
    ]);
    expect((await entries(HAMLET, id, { allow_empty_topic_name: true })).map((e) => [e.topic, e.prev_topic])).toEqual([
      ['', undefined],
      ['named', ''],
    ]);
  });

  it('refuses what the caller cannot access, as a missing message', async () => {
    const core = await sendChannel(t, IAGO, 'core team', 'secret', 'x');
    const pub = await sendChannel(t, IAGO, 'Denmark', 'history guest', 'x');
    const dm = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'private');
    for (const [email, id] of [
      [CORDELIA, core],
      [PROSPERO, dm],
      [POLONIUS, pub],
      [HAMLET, 2_000_000_000],
      [HAMLET, 99_999_999_999],
    ] as Array<[string, number]>) {
      const res = await history(email, id);
      expectError(res, 400, 'Invalid message(s)');
      expectMatchesOpenApi('get', '/messages/{message_id}/history', 400, res.body);
    }
    // Public history is readable by members who never received the message.
    expect(await entries(CORDELIA, pub)).toHaveLength(1);
    expect((await history(HAMLET, 'abc')).status).toBe(404);
    expectError(
      await history(HAMLET, pub, { allow_empty_topic_name: 'x' }),
      400,
      'allow_empty_topic_name is not valid JSON',
    );

    // A deactivated user is refused before anything else; a bot reads history like anyone.
    await setUser(t, CORDELIA, { is_active: false });
    try {
      expectError(await history(CORDELIA, pub), 401, 'Account is deactivated', 'UNAUTHORIZED');
    } finally {
      await setUser(t, CORDELIA, { is_active: true });
    }
    expect(await entries(BOT, pub)).toHaveLength(1);

    const lear = await t.app.get(RealmService).createRealm({ stringId: 'learhistory', name: 'Lear history' });
    await t.app.get(UsersService).createUser(lear, { email: 'gloucester@lear.example', fullName: 'Gloucester' });
    const res = await t
      .http()
      .get(`/api/v1/messages/${pub}/history`)
      .set('Host', 'learhistory.zulip.testserver')
      .auth(...(await t.auth('gloucester@lear.example', 'learhistory')));
    expectError(res, 400, 'Invalid message(s)');
  });

  it('PATCH /realm validates message_edit_history_visibility_policy and needs an administrator', async () => {
    expectError(
      await call(t, 'patch', '/realm', IAGO, { message_edit_history_visibility_policy: 'some' }),
      400,
      'Invalid message_edit_history_visibility_policy',
    );
    const res = await call(t, 'patch', '/realm', HAMLET, { message_edit_history_visibility_policy: 'none' });
    expect(res.status).toBe(400);
    expect((res.body as { code: string }).code).toBe('UNAUTHORIZED_PRINCIPAL');
    // No change, no event, no key in the answer.
    const q = await openQueue(t, HAMLET, ['realm']);
    const same = await call(t, 'patch', '/realm', IAGO, { message_edit_history_visibility_policy: 'all' });
    expect(same.body).toEqual({ result: 'success', msg: '' });
    expect(await takeEvents(t, q)).toEqual([]);
  });
});
