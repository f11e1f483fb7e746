/**
 * Security review finding (issue 11 item 6): a file once linked from a public channel stayed
 * "realm-public" (claimable by anyone in a new message) after that message was deleted or its
 * channel went private. The cache is recomputed in the deleting / privacy-changing transaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainEventBus } from '../../../src/events/domain-event-bus';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  call,
  channelId,
  CORDELIA,
  HAMLET,
  IAGO,
  OTHELLO,
  sendChannel,
  sendDirect,
  subscribe,
  userId,
} from '../messaging/helpers';

describe('attachment publicity after deletes and privacy changes', () => {
  let t: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-publicity-'));
    t = await startTestApp({ DATA_DIR: dataDir, UPLOADS_DIR: join(dataDir, 'files') });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const settle = () => t.app.get(DomainEventBus).whenIdle();
  const uploadAs = async (email: string, name: string) => {
    const res = await t
      .http()
      .post('/api/v1/user_uploads')
      .auth(...(await t.auth(email)))
      .attach('file', Buffer.from(`secret ${name}`), { filename: name, contentType: 'text/plain' });
    expect(res.status).toBe(200);
    return res.body.url as string;
  };
  const fetchStatus = async (email: string, url: string) =>
    (
      await t
        .http()
        .get(url)
        .auth(...(await t.auth(email)))
    ).status;
  const flags = async (url: string) =>
    (
      await t.dataSource.query<
        Array<{ is_realm_public: boolean | null; is_web_public: boolean | null; links: number }>
      >(
        `SELECT a.is_realm_public, a.is_web_public,
                (SELECT count(*)::int FROM attachment_message am WHERE am.attachment_id = a.id) AS links
           FROM attachment a WHERE a.path_id = $1`,
        [url.slice('/user_uploads/'.length)],
      )
    )[0];

  it('deleting the only public message that linked a file makes it private again', async () => {
    const url = await uploadAs(HAMLET, 'deleted.txt');
    const id = await sendChannel(t, HAMLET, 'Verona', 'files', `[file](${url})`);
    await settle();
    expect(await flags(url)).toMatchObject({ is_realm_public: true, links: 1 });

    expect((await call(t, 'delete', `/messages/${id}`, IAGO)).status).toBe(200);
    expect(await flags(url)).toMatchObject({ is_realm_public: false, links: 0 });

    // Othello never saw the file; his direct message cannot share it with Cordelia.
    await sendDirect(t, OTHELLO, [await userId(t, CORDELIA)], `look: [file](${url})`);
    await settle();
    expect((await flags(url)).links).toBe(0);
    expect(await fetchStatus(CORDELIA, url)).toBe(404);
    expect(await fetchStatus(OTHELLO, url)).toBe(404);
    expect(await fetchStatus(HAMLET, url)).toBe(200);
  });

  it('a channel going private takes the realm-public status from files linked only there', async () => {
    const created = await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'vault' }],
      principals: [await userId(t, HAMLET)],
    });
    expect(created.status).toBe(200);
    await subscribe(t, HAMLET, 'vault');
    const url = await uploadAs(HAMLET, 'vault.txt');
    await sendChannel(t, HAMLET, 'vault', 'files', `[file](${url})`);
    // Linked from a public channel too, then that link goes: only the vault link remains.
    const elsewhere = await uploadAs(HAMLET, 'both.txt');
    await sendChannel(t, HAMLET, 'vault', 'files', `[file](${elsewhere})`);
    await sendChannel(t, HAMLET, 'Verona', 'files', `[file](${elsewhere})`);
    await settle();
    expect(await flags(url)).toMatchObject({ is_realm_public: true });

    const vault = await channelId(t, 'vault');
    const patched = await call(t, 'patch', `/streams/${vault}`, IAGO, { is_private: true });
    expect(patched.status).toBe(200);
    expect(await flags(url)).toMatchObject({ is_realm_public: false, is_web_public: false });
    // Still linked from public Verona.
    expect(await flags(elsewhere)).toMatchObject({ is_realm_public: true });

    await sendDirect(t, OTHELLO, [await userId(t, CORDELIA)], `look: [file](${url})`);
    await settle();
    expect((await flags(url)).links).toBe(1);
    expect(await fetchStatus(CORDELIA, url)).toBe(404);
    expect(await fetchStatus(OTHELLO, url)).toBe(404);
    // A file still public to the realm can be shared (Zulip's behaviour).
    await sendDirect(t, OTHELLO, [await userId(t, CORDELIA)], `this one: [file](${elsewhere})`);
    await settle();
    expect(await fetchStatus(CORDELIA, elsewhere)).toBe(200);
  });
});
