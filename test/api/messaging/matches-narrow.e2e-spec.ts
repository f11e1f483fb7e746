import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  call,
  CORDELIA,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  sendChannel,
  sendDirect,
  setUser,
  userId,
} from './helpers';

type Matches = Record<string, { match_content: string; match_subject: string }>;

describe('GET /messages/matches_narrow', () => {
  let t: TestApp;
  const get = (email: string, params: Record<string, unknown>) =>
    call(t, 'get', '/messages/matches_narrow', email, params);
  async function matches(email: string, msgIds: number[], narrow: unknown[]): Promise<Matches> {
    const res = await get(email, { msg_ids: msgIds, narrow });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/messages/matches_narrow', 200, res.body);
    return (res.body as { messages: Matches }).messages;
  }

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers which messages match, with the rendered content and escaped topic', async () => {
    const link = await sendChannel(t, IAGO, 'Verona', 'links & <things>', 'see https://zulip.com');
    const plain = await sendChannel(t, IAGO, 'Verona', 'links & <things>', 'no link here');
    const result = await matches(HAMLET, [link, plain], [{ operator: 'has', operand: 'link' }]);
    expect(Object.keys(result)).toEqual([String(link)]);
    expect(result[link].match_subject).toBe('links &amp; &lt;things&gt;');
    expect(result[link].match_content).toContain('<a href="https://zulip.com"');
    // Channel and topic narrows.
    expect(
      Object.keys(
        await matches(
          HAMLET,
          [link, plain],
          [
            { operator: 'channel', operand: 'Verona' },
            { operator: 'topic', operand: 'links & <things>' },
          ],
        ),
      ),
    ).toEqual([String(link), String(plain)]);
    expect(await matches(HAMLET, [link], [{ operator: 'channel', operand: 'Denmark' }])).toEqual({});
  });

  it('highlights search terms as GET /messages does', async () => {
    const id = await sendChannel(t, IAGO, 'Verona', 'search topic', 'the quick brown fox');
    const other = await sendChannel(t, IAGO, 'Verona', 'search topic', 'nothing to see');
    const result = await matches(HAMLET, [id, other], [{ operator: 'search', operand: 'fox' }]);
    expect(Object.keys(result)).toEqual([String(id)]);
    expect(result[id].match_content).toBe('<p>the quick brown <span class="highlight">fox</span></p>');
    expect(result[id].match_subject).toBe('search topic');
    const fetched = await call(t, 'get', '/messages', HAMLET, {
      anchor: id,
      num_before: 0,
      num_after: 0,
      narrow: [{ operator: 'search', operand: 'fox' }],
    });
    const [message] = (fetched.body as { messages: Array<Record<string, string>> }).messages;
    expect(result[id]).toEqual({ match_content: message.match_content, match_subject: message.match_subject });
  });

  it('only covers messages the user received', async () => {
    // Cordelia is not subscribed to Denmark: its public history is not "received".
    const pub = await sendChannel(t, IAGO, 'Denmark', 'not received', 'x');
    const core = await sendChannel(t, IAGO, 'core team', 'secret', 'x');
    const dm = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'private');
    expect(await matches(CORDELIA, [pub, core, dm, 2_000_000_000, 99_999_999_999], [])).toEqual({});
    expect(Object.keys(await matches(OTHELLO, [pub, dm], []))).toEqual([String(pub), String(dm)]);
    expect(await matches(POLONIUS, [pub], [])).toEqual({});
    await setUser(t, OTHELLO, { is_active: false });
    try {
      expectError(await get(OTHELLO, { msg_ids: [pub], narrow: [] }), 401, 'Account is deactivated', 'UNAUTHORIZED');
    } finally {
      await setUser(t, OTHELLO, { is_active: true });
    }

    const lear = await t.app.get(RealmService).createRealm({ stringId: 'learmatch', name: 'Lear match' });
    await t.app.get(UsersService).createUser(lear, { email: 'kent@lear.example', fullName: 'Kent' });
    const res = await t
      .http()
      .get('/api/v1/messages/matches_narrow')
      .set('Host', 'learmatch.zulip.testserver')
      .auth(...(await t.auth('kent@lear.example', 'learmatch')))
      .query({ msg_ids: JSON.stringify([pub, dm]), narrow: '[]' });
    expect(res.status).toBe(200);
    expect(res.body.messages).toEqual({});
  });

  it('answers every error with Zulip texts', async () => {
    const missing = await get(HAMLET, { narrow: [] });
    expectError(missing, 400, "Missing 'msg_ids' argument", 'REQUEST_VARIABLE_MISSING');
    expectMatchesOpenApi('get', '/messages/matches_narrow', 400, missing.body);
    expectError(await get(HAMLET, { msg_ids: [1] }), 400, "Missing 'narrow' argument", 'REQUEST_VARIABLE_MISSING');
    expectError(await get(HAMLET, { msg_ids: '{}', narrow: [] }), 400, 'msg_ids is not a list');
    expectError(await get(HAMLET, { msg_ids: '["a"]', narrow: [] }), 400, 'msg_ids is not an integer');
    expectError(await get(HAMLET, { msg_ids: [1], narrow: 'x' }), 400, 'narrow is not valid JSON');
    expectError(
      await get(HAMLET, { msg_ids: [1], narrow: [{ operator: 'stream', operand: 'nowhere' }] }),
      400,
      'Invalid narrow operator: unknown channel nowhere',
      'BAD_NARROW',
    );
    expectError(
      await get(HAMLET, { msg_ids: [1], narrow: [{ operator: 'bogus', operand: 'x' }] }),
      400,
      'Invalid narrow operator: unknown operator bogus',
      'BAD_NARROW',
    );
  });
});
