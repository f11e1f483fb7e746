import type { Response } from 'supertest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { waitFor } from '../../helpers/jobs';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { call, encodeParams, HAMLET, type Method, OTHELLO, sendChannel, unsubscribe } from './helpers';

/**
 * Every message endpoint (and the files messages link) answers a user of another realm, and a
 * user who has left a private channel, exactly as it answers for a message that does not
 * exist — and changes nothing.
 */
describe('message access security: more endpoints, other realms, former subscribers', () => {
  let t: TestApp;
  let dataDir: string;
  const MISSING = 2_000_000_000;
  const LEAR = 'goneril@lear.example';

  /** A caller: email plus the Host of its realm. */
  type Caller = { email: string; realm?: string };

  async function send(
    c: Caller,
    method: Method,
    path: string,
    params: Record<string, unknown> = {},
  ): Promise<Response> {
    if (!c.realm) return call(t, method, path, c.email, params);
    const auth = await t.auth(c.email, c.realm);
    const url = `/api/v1${path}`;
    const encoded = encodeParams(params);
    const host = `${c.realm}.zulip.testserver`;
    if (method === 'get')
      return t
        .http()
        .get(url)
        .set('Host', host)
        .auth(...auth)
        .query(encoded);
    return t
      .http()
      [method](url)
      .set('Host', host)
      .auth(...auth)
      .type('form')
      .send(encoded);
  }

  async function fetchUpload(c: Caller, url: string): Promise<Response> {
    const req = t.http().get(url);
    if (c.realm) req.set('Host', `${c.realm}.zulip.testserver`);
    return req.auth(...(await t.auth(c.email, c.realm)));
  }

  /** Every endpoint that names message `id`: status and body of each. */
  async function probe(c: Caller, id: number): Promise<Array<{ what: string; status: number; body: unknown }>> {
    const out: Array<{ what: string; status: number; body: unknown }> = [];
    const record = (what: string, res: Response) => out.push({ what, status: res.status, body: res.body as unknown });
    record('GET /messages/{id}', await send(c, 'get', `/messages/${id}`));
    const fetched = await send(c, 'get', '/messages', { message_ids: [id] });
    out.push({
      what: 'GET /messages message_ids',
      status: fetched.status,
      body: (fetched.body as { messages?: Array<{ id: number }> }).messages?.map((m) => m.id) ?? fetched.body,
    });
    record('PATCH content', await send(c, 'patch', `/messages/${id}`, { content: 'defaced' }));
    record('PATCH topic', await send(c, 'patch', `/messages/${id}`, { topic: 'moved away' }));
    record('DELETE', await send(c, 'delete', `/messages/${id}`));
    record('POST reaction', await send(c, 'post', `/messages/${id}/reactions`, { emoji_name: 'octopus' }));
    record('DELETE reaction', await send(c, 'delete', `/messages/${id}/reactions`, { emoji_name: 'octopus' }));
    record('flags starred', await send(c, 'post', '/messages/flags', { messages: [id], op: 'add', flag: 'starred' }));
    record('report', await send(c, 'post', `/messages/${id}/report`, { report_type: 'spam' }));
    record('read receipts', await send(c, 'get', `/messages/${id}/read_receipts`));
    record('history', await send(c, 'get', `/messages/${id}/history`));
    const matched = await send(c, 'get', '/messages/matches_narrow', { msg_ids: [id], narrow: [] });
    out.push({
      what: 'matches_narrow',
      status: matched.status,
      body: Object.keys((matched.body as { messages?: object }).messages ?? matched.body),
    });
    const byNarrow = await send(c, 'post', '/messages/flags/narrow', {
      anchor: id,
      num_before: 0,
      num_after: 0,
      narrow: [{ operator: 'id', operand: id }],
      op: 'add',
      flag: 'starred',
    });
    out.push({
      what: 'flags/narrow',
      status: byNarrow.status,
      body: (byNarrow.body as { processed_count?: number }).processed_count ?? byNarrow.body,
    });
    return out;
  }

  /** Everything about message `id` the endpoints above could change. */
  async function snapshot(id: number): Promise<unknown> {
    return {
      message: await t.dataSource.query(
        `SELECT content, subject, recipient_id, edit_history, last_edit_time, has_attachment FROM message WHERE id = $1`,
        [id],
      ),
      userMessages: await t.dataSource.query(
        `SELECT user_profile_id, flags FROM user_message WHERE message_id = $1 ORDER BY user_profile_id`,
        [id],
      ),
      reactions: await t.dataSource.query(`SELECT user_profile_id, emoji_code FROM reaction WHERE message_id = $1`, [
        id,
      ]),
      links: await t.dataSource.query(`SELECT attachment_id FROM attachment_message WHERE message_id = $1`, [id]),
      messages: await t.dataSource.query(`SELECT count(*) AS n FROM message`),
      attachments: await t.dataSource.query(`SELECT id, is_realm_public FROM attachment ORDER BY id`),
    };
  }

  async function expectLikeMissing(c: Caller, id: number, upload: { url: string; missingUrl: string }) {
    const before = await snapshot(id);
    const seen = await probe(c, id);
    const missing = await probe(c, MISSING);
    expect(seen).toEqual(missing);
    expect(seen[0]).toEqual({
      what: 'GET /messages/{id}',
      status: 400,
      body: { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' },
    });
    expectMatchesOpenApi('get', `/messages/${id}`, 400, seen[0].body);
    const answersOk = ['GET /messages message_ids', 'matches_narrow', 'flags/narrow'];
    for (const r of seen.filter((x) => !answersOk.includes(x.what))) {
      // Lear has no moderation request channel: Zulip refuses reports before looking at the message.
      const msg =
        r.what === 'report' && c.realm
          ? 'Message reporting is not enabled in this organization.'
          : 'Invalid message(s)';
      expect([r.what, r.status, r.body]).toEqual([r.what, 400, { result: 'error', msg, code: 'BAD_REQUEST' }]);
    }
    expect(seen[1]).toEqual({ what: 'GET /messages message_ids', status: 200, body: [] });
    expect(seen.find((x) => x.what === 'matches_narrow')).toEqual({ what: 'matches_narrow', status: 200, body: [] });
    expect(seen.find((x) => x.what === 'flags/narrow')).toEqual({ what: 'flags/narrow', status: 200, body: 0 });
    // The file the message links: the same 404 as a file that does not exist.
    const file = await fetchUpload(c, upload.url);
    const noFile = await fetchUpload(c, upload.missingUrl);
    expect({ status: file.status, body: file.body as unknown }).toEqual({ status: 404, body: noFile.body as unknown });
    expect(noFile.status).toBe(404);
    expect(await snapshot(id)).toEqual(before);
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-secmore-'));
    t = await startTestApp({ DATA_DIR: dataDir, UPLOADS_DIR: join(dataDir, 'uploads') });
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: LEAR, fullName: 'Goneril' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function privateMessageWithFile(): Promise<{ id: number; url: string; missingUrl: string }> {
    const res = await call(t, 'post', '/users/me/subscriptions', HAMLET, {
      subscriptions: [{ name: 'war council' }],
      invite_only: true,
      principals: [HAMLET, OTHELLO],
    });
    expect(res.status).toBe(200);
    const up = await t
      .http()
      .post('/api/v1/user_uploads')
      .auth(...(await t.auth(HAMLET)))
      .attach('file', Buffer.from('battle plans'), { filename: 'plans.txt', contentType: 'text/plain' });
    expect(up.status).toBe(200);
    const url = (up.body as { url: string }).url;
    const id = await sendChannel(t, HAMLET, 'war council', 'plans', `attack at dawn [plans](${url})`);
    await call(t, 'post', `/messages/${id}/reactions`, HAMLET, { emoji_name: 'octopus' });
    return { id, url, missingUrl: url.replace(/[^/]+$/, 'nothing.txt') };
  }

  it('a user of another realm gets the nonexistent-message answer everywhere, and nothing changes', async () => {
    const m = await privateMessageWithFile();
    await expectLikeMissing({ email: LEAR, realm: 'lear' }, m.id, m);
    // Even a public channel message of another realm.
    const pub = await sendChannel(t, HAMLET, 'Verona', 'public', `public [plans](${m.url})`);
    // The link makes the file public to the realm, after the send's commit (uploads' handler):
    // the snapshot is taken once that has happened, so only the refused requests can change it.
    await waitFor(async () => {
      const rows = await t.dataSource.query<Array<{ is_realm_public: boolean | null }>>(
        `SELECT a.is_realm_public FROM attachment a JOIN attachment_message am ON am.attachment_id = a.id
          WHERE am.message_id = $1`,
        [pub],
      );
      return rows[0]?.is_realm_public === true;
    });
    await expectLikeMissing({ email: LEAR, realm: 'lear' }, pub, m);
  });

  it('a user who left a private channel gets the nonexistent-message answer, and nothing changes', async () => {
    const m = await privateMessageWithFile();
    const othello = { email: OTHELLO };
    expect((await send(othello, 'get', `/messages/${m.id}`)).status).toBe(200);
    expect((await fetchUpload(othello, m.url)).status).toBe(200);
    await unsubscribe(t, OTHELLO, 'war council');
    await expectLikeMissing(othello, m.id, m);
  });
});
