import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { DomainEventBus } from '../../../src/events/domain-event-bus';
import {
  call,
  CORDELIA,
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
  unsubscribe,
  userId,
} from '../messaging/helpers';

describe('uploads: POST /user_uploads, GET /user_uploads/..., /attachments', () => {
  let t: TestApp;
  let dataDir: string;
  let uploadsDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-uploads-'));
    uploadsDir = join(dataDir, 'files');
    t = await startTestApp({ DATA_DIR: dataDir, UPLOADS_DIR: uploadsDir, MAX_FILE_UPLOAD_SIZE_MIB: '1' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const upload = async (
    email: string,
    name: string,
    content: Buffer | string,
    contentType = 'text/plain',
    field = 'file',
  ) =>
    t
      .http()
      .post('/api/v1/user_uploads')
      .auth(...(await t.auth(email)))
      .attach(field, Buffer.from(content), { filename: name, contentType });
  const uploaded = async (email: string, name: string, content: string | Buffer, contentType = 'text/plain') => {
    const res = await upload(email, name, content, contentType);
    if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
    const url = (res.body as { url: string }).url;
    return { url, pathId: url.slice('/user_uploads/'.length) };
  };
  const fetchFile = async (email: string | null, url: string) => {
    const req = t
      .http()
      .get(url)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    return email ? req.auth(...(await t.auth(email))) : req;
  };
  const attachmentRow = async (pathId: string) =>
    (
      await t.dataSource.query<
        Array<{
          id: number;
          file_name: string;
          owner_id: number;
          size: string;
          content_type: string;
          is_realm_public: boolean | null;
        }>
      >(`SELECT id, file_name, owner_id, size, content_type, is_realm_public FROM attachment WHERE path_id = $1`, [
        pathId,
      ])
    )[0];
  const incomingNow = () => {
    const dir = join(uploadsDir, '.incoming');
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  /**
   * What is left in the temporary directory once the request's cleanup has run: it starts when
   * the response ends, so the client may see the answer a moment before the removal is done.
   */
  const incomingLeftovers = async () => {
    for (let i = 0; i < 100 && incomingNow().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    return incomingNow();
  };
  const settle = () => t.app.get(DomainEventBus).whenIdle();

  it('stores one file under <realm>/<24 random>/<sanitized name> with a row, and answers {uri, url, filename}', async () => {
    const res = await upload(HAMLET, 'my report (final) v2.txt', 'hello world');
    expect(res.status).toBe(200);
    expectMatchesOpenApi('post', '/user_uploads', 200, res.body);
    const body = res.body as { uri: string; url: string; filename: string };
    expect(body.uri).toBe(body.url);
    expect(body.filename).toBe('my report (final) v2.txt');
    const realmId = (
      await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM realm WHERE string_id = 'zulip'`)
    )[0].id;
    expect(body.url).toMatch(new RegExp(`^/user_uploads/${realmId}/[A-Za-z0-9_-]{24}/my-report-final-v2\\.txt$`));
    const pathId = body.url.slice('/user_uploads/'.length);
    expect(readFileSync(join(uploadsDir, pathId), 'utf8')).toBe('hello world');
    const row = await attachmentRow(pathId);
    expect(row).toMatchObject({
      file_name: 'my report (final) v2.txt',
      owner_id: await userId(t, HAMLET),
      size: '11',
      content_type: 'text/plain',
    });
    expect(await incomingLeftovers()).toEqual([]);
  });

  it('accepts any field name, keeps Unicode names, and names nameless leftovers uploaded-file', async () => {
    const a = await upload(HAMLET, 'résumé café.pdf', '%PDF-1.4', 'application/pdf', 'whatever');
    expect(a.status).toBe(200);
    expect((a.body as { url: string }).url).toMatch(/\/résumé-café\.pdf$/);
    const b = await upload(HAMLET, '???', 'x', 'text/plain');
    expect((b.body as { url: string }).url).toMatch(/\/uploaded-file$/);
    // Directory parts of a client's name never reach the path id.
    const c = await upload(HAMLET, '../../etc/passwd', 'x', 'text/plain');
    expect((c.body as { url: string }).url).not.toContain('..');
  });

  it('refuses no file, two files and files above the limit, leaving nothing behind', async () => {
    const before = Number(
      (await t.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM attachment`))[0].n,
    );
    const none = await t
      .http()
      .post('/api/v1/user_uploads')
      .auth(...(await t.auth(HAMLET)))
      .field('note', 'no file');
    expectError(none, 400, 'You must specify a file to upload');
    expectMatchesOpenApi('post', '/user_uploads', 400, none.body);
    const urlencoded = await call(t, 'post', '/user_uploads', HAMLET, {});
    expectError(urlencoded, 400, 'You must specify a file to upload');
    const two = await t
      .http()
      .post('/api/v1/user_uploads')
      .auth(...(await t.auth(HAMLET)))
      .attach('a', Buffer.from('1'), 'a.txt')
      .attach('b', Buffer.from('2'), 'b.txt');
    expectError(two, 400, 'You may only upload one file at a time');
    const big = await upload(HAMLET, 'big.bin', Buffer.alloc(1024 * 1024 + 1, 7), 'application/octet-stream');
    expectError(big, 400, "File is larger than this server's configured maximum upload size (1 MiB).");
    const exact = await upload(HAMLET, 'exact.bin', Buffer.alloc(1024 * 1024, 7), 'application/octet-stream');
    expect(exact.status).toBe(200);
    const after = Number((await t.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM attachment`))[0].n);
    expect(after).toBe(before + 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(await incomingLeftovers()).toEqual([]);
  });

  it('refuses files on every other route, and needs credentials', async () => {
    const res = await t
      .http()
      .post('/api/v1/messages')
      .auth(...(await t.auth(HAMLET)))
      .field('type', 'channel')
      .field('to', 'Verona')
      .field('topic', 't')
      .field('content', 'x')
      .attach('file', Buffer.from('x'), 'x.txt');
    expectError(res, 400, 'Malformed multipart body');
    const anon = await t.http().post('/api/v1/user_uploads').attach('file', Buffer.from('x'), 'x.txt');
    expect(anon.status).toBe(401);
  });

  it('serves the owner the file with its type, disposition, nosniff and a CSP', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const img = await uploaded(HAMLET, 'pic.png', png, 'image/png');
    const res = await fetchFile(HAMLET, img.url);
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, png)).toBe(0);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-disposition']).toBe('inline; filename="pic.png"');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");

    const html = await uploaded(HAMLET, 'page.html', '<script>alert(1)</script>', 'text/html');
    const page = await fetchFile(HAMLET, html.url);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-disposition']).toBe('attachment; filename="page.html"');
    const weird = await uploaded(HAMLET, 'naïve.bin', 'x', 'Application/X-Weird; charset="x"');
    const w = await fetchFile(HAMLET, weird.url);
    expect(w.headers['content-type']).toBe('application/x-weird');
    expect(w.headers['x-evil']).toBeUndefined();
    expect(w.headers['content-disposition']).toBe("attachment; filename*=utf-8''na%C3%AFve.bin");
  });

  it('others get the same 404 as for a missing file until a message they can access links it', async () => {
    const f = await uploaded(HAMLET, 'secret.txt', 'secret');
    const missing = await fetchFile(OTHELLO, f.url.replace(/[^/]+$/, 'nothere.txt'));
    expect(missing.status).toBe(404);
    const denied = await fetchFile(OTHELLO, f.url);
    expect({ status: denied.status, body: denied.body as unknown }).toEqual({
      status: missing.status,
      body: missing.body as unknown,
    });
    // A direct message to cordelia: she can, othello still cannot.
    await sendDirect(t, HAMLET, [await userId(t, CORDELIA)], `see [secret](${f.url})`);
    expect((await fetchFile(CORDELIA, f.url)).status).toBe(200);
    expect((await fetchFile(OTHELLO, f.url)).status).toBe(404);
    expect((await attachmentRow(f.pathId)).is_realm_public).toBe(false);
    // A public channel: everyone in the realm but guests who cannot see the message.
    await sendChannel(t, HAMLET, 'Denmark', 'files', `[secret](${f.url})`);
    await settle();
    expect((await attachmentRow(f.pathId)).is_realm_public).toBe(true);
    expect((await fetchFile(OTHELLO, f.url)).status).toBe(200);
    expect((await fetchFile(IAGO, f.url)).status).toBe(200);
    expect((await fetchFile(POLONIUS, f.url)).status).toBe(404);
    // In a channel the guest receives, he can.
    await sendChannel(t, HAMLET, 'Verona', 'files', `[secret](${f.url})`);
    expect((await fetchFile(POLONIUS, f.url)).status).toBe(200);
  });

  it('a private channel with shared history: subscribers can, former subscribers and others cannot', async () => {
    const res = await call(t, 'post', '/users/me/subscriptions', HAMLET, {
      subscriptions: [{ name: 'upload-private' }],
      invite_only: true,
      history_public_to_subscribers: true,
      principals: [HAMLET, OTHELLO],
    });
    expect(res.status).toBe(200);
    const f = await uploaded(HAMLET, 'plan.txt', 'plan');
    await sendChannel(t, HAMLET, 'upload-private', 'files', `[plan](${f.url})`);
    await settle();
    expect((await attachmentRow(f.pathId)).is_realm_public).toBe(false);
    expect((await fetchFile(OTHELLO, f.url)).status).toBe(200);
    expect((await fetchFile(CORDELIA, f.url)).status).toBe(404);
    // Cordelia joins later: shared history lets her in.
    await subscribe(t, HAMLET, 'upload-private', [CORDELIA]);
    expect((await fetchFile(CORDELIA, f.url)).status).toBe(200);
    // Othello leaves: the channel's messages and their files go with it.
    await unsubscribe(t, OTHELLO, 'upload-private');
    expect((await fetchFile(OTHELLO, f.url)).status).toBe(404);
    await unsubscribe(t, CORDELIA, 'upload-private');
    expect((await fetchFile(CORDELIA, f.url)).status).toBe(404);
  });

  it('makes path traversal impossible', async () => {
    const f = await uploaded(HAMLET, 'safe.txt', 'safe');
    const [realm, random] = f.pathId.split('/');
    const attempts = [
      `/user_uploads/${realm}/../../../../etc/passwd`,
      `/user_uploads/${realm}/%2e%2e/%2e%2e/etc/passwd`,
      `/user_uploads/${realm}/${random}%2Fsafe.txt`,
      `/user_uploads/${realm}%2F${random}/safe.txt`,
      `/user_uploads/${realm}/${random}/safe.txt%00.png`,
      `/user_uploads/${realm}/${random}/..%2F..%2F..%2Fsecret_key`,
      `/user_uploads/${realm}/${random}/..%5C..%5Csecret_key`,
      `/user_uploads/.incoming/x/y`,
      `/user_uploads/${realm}/${random}`,
    ];
    for (const url of attempts) {
      const res = await fetchFile(HAMLET, url);
      expect([url, res.status]).toEqual([url, 404]);
      expect(String((res.body as Buffer | undefined) ?? '')).not.toContain('safe');
    }
    // Undecodable escapes: a client error, never a 500.
    expect((await fetchFile(HAMLET, `/user_uploads/${realm}/${random}/%E0%A4%A`)).status).toBe(400);
    expect((await fetchFile(HAMLET, f.url)).status).toBe(200);
    expect((await fetchFile(null, f.url)).status).toBe(401);
  });

  it('the API route gives a temporary URL that works without credentials', async () => {
    const f = await uploaded(HAMLET, 'temp.txt', 'temporary');
    const res = await call(t, 'get', f.url, HAMLET);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', `/user_uploads/${f.pathId.split('/')[0]}/temp.txt`, 200, res.body);
    const url = (res.body as { url: string }).url;
    expect(url).toMatch(/^\/user_uploads\/temporary\/[A-Za-z0-9_.-]+\/temp\.txt$/);
    const file = await fetchFile(null, url);
    expect(file.status).toBe(200);
    expect((file.body as Buffer).toString()).toBe('temporary');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expectError(await t.http().get(url.replace(/temp\.txt$/, 'other.txt')), 400, 'Invalid filename');
    expectError(await t.http().get(url.replace(/\/temporary\/[^/]+\//, '/temporary/AAAA.BBBB/')), 400, 'Invalid token');
    // Othello may not even learn that it exists.
    const denied = await call(t, 'get', f.url, OTHELLO);
    const missing = await call(t, 'get', f.url.replace(/[^/]+$/, 'nope.txt'), OTHELLO);
    expect(denied.status).toBe(404);
    expect(denied.body).toEqual(missing.body);
  });

  it('editing out the only reference returns it in detached_uploads; links follow edits and deletes', async () => {
    const f = await uploaded(HAMLET, 'draft.txt', 'draft');
    const id = await sendChannel(t, HAMLET, 'Verona', 'detach', `[draft](${f.url})`);
    const row = await attachmentRow(f.pathId);
    const links = async () =>
      (
        await t.dataSource.query<Array<{ message_id: number }>>(
          `SELECT message_id FROM attachment_message WHERE attachment_id = $1`,
          [row.id],
        )
      ).map((r) => r.message_id);
    expect(await links()).toEqual([id]);
    const edit = await call(t, 'patch', `/messages/${id}`, HAMLET, { content: 'no more file' });
    expect(edit.status).toBe(200);
    expectMatchesOpenApi('patch', `/messages/${id}`, 200, edit.body);
    const created = (
      await t.dataSource.query<Array<{ t: Date }>>(`SELECT create_time AS t FROM attachment WHERE id = $1`, [row.id])
    )[0].t;
    expect((edit.body as { detached_uploads: unknown }).detached_uploads).toEqual([
      {
        id: row.id,
        name: 'draft.txt',
        path_id: f.pathId,
        size: 5,
        create_time: Math.floor(new Date(created).getTime() / 1000) * 1000,
        messages: [],
      },
    ]);
    expect(await links()).toEqual([]);
    const hasAttachment = async () =>
      (
        await t.dataSource.query<Array<{ h: boolean }>>(`SELECT has_attachment AS h FROM message WHERE id = $1`, [id])
      )[0].h;
    expect(await hasAttachment()).toBe(false);
    // Editing it back relinks; a second message keeps it attached when one is edited out.
    await call(t, 'patch', `/messages/${id}`, HAMLET, { content: `[draft](${f.url}) again` });
    expect(await links()).toEqual([id]);
    expect(await hasAttachment()).toBe(true);
    const second = await sendChannel(t, HAMLET, 'Verona', 'detach', `[again](${f.url})`);
    const kept = await call(t, 'patch', `/messages/${id}`, HAMLET, { content: 'gone here' });
    expect((kept.body as { detached_uploads: unknown[] }).detached_uploads).toEqual([]);
    // Deleting the last message unlinks.
    const del = await call(t, 'delete', `/messages/${second}`, IAGO);
    expect(del.status).toBe(200);
    expect(await links()).toEqual([]);
    // Publicity follows the links: with no public message left, othello is refused.
    expect((await fetchFile(OTHELLO, f.url)).status).toBe(404);
    expect((await attachmentRow(f.pathId)).is_realm_public).toBe(false);
  });

  it('GET /attachments lists the caller’s files and the realm usage; DELETE removes file and row', async () => {
    const f = await uploaded(CORDELIA, 'mine.txt', 'abc');
    const id = await sendChannel(t, CORDELIA, 'Verona', 'att', `[mine](${f.url})`);
    const queue = await openQueue(t, CORDELIA, ['attachment']);
    const list = await call(t, 'get', '/attachments', CORDELIA);
    expect(list.status).toBe(200);
    expectMatchesOpenApi('get', '/attachments', 200, list.body);
    const body = list.body as {
      attachments: Array<{ id: number; path_id: string; messages: Array<{ id: number }> }>;
      upload_space_used: number;
    };
    const mine = body.attachments.find((a) => a.path_id === f.pathId)!;
    expect(mine.messages.map((m) => m.id)).toEqual([id]);
    const total = Number(
      (
        await t.dataSource.query<Array<{ s: string }>>(
          `SELECT sum(size) AS s FROM attachment a JOIN realm r ON r.id = a.realm_id WHERE r.string_id = 'zulip'`,
        )
      )[0].s,
    );
    expect(body.upload_space_used).toBe(total);
    expect(body.attachments.every((a) => a.path_id !== undefined)).toBe(true);
    const others = (await call(t, 'get', '/attachments', OTHELLO)).body as { attachments: Array<{ id: number }> };
    expect(others.attachments.map((a) => a.id)).not.toContain(mine.id);

    const notOwner = await call(t, 'delete', `/attachments/${mine.id}`, OTHELLO);
    expectError(notOwner, 400, 'Invalid attachment');
    expectMatchesOpenApi('delete', `/attachments/${mine.id}`, 400, notOwner.body);
    expectError(await call(t, 'delete', '/attachments/99999999', CORDELIA), 400, 'Invalid attachment');
    expectError(await call(t, 'delete', '/attachments/99999999999999', CORDELIA), 400, 'Invalid attachment');
    expect((await call(t, 'delete', '/attachments/abc', CORDELIA)).status).toBe(404);
    expect(existsSync(join(uploadsDir, f.pathId))).toBe(true);

    const ok = await call(t, 'delete', `/attachments/${mine.id}`, CORDELIA);
    expect(ok.status).toBe(200);
    expectMatchesOpenApi('delete', `/attachments/${mine.id}`, 200, ok.body);
    expect(existsSync(join(uploadsDir, f.pathId))).toBe(false);
    expect(await attachmentRow(f.pathId)).toBeUndefined();
    expect((await fetchFile(CORDELIA, f.url)).status).toBe(404);
    const events = await takeEvents(t, queue);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'attachment',
        op: 'remove',
        attachment: { id: mine.id },
        upload_space_used: total - 3,
      }),
    ]);
  });

  it('POST /register reports the configured limit', async () => {
    const res = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm'] });
    expect((res.body as { max_file_upload_size_mib: number }).max_file_upload_size_mib).toBe(1);
  });
});
