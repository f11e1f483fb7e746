/**
 * Custom emoji (Zulip's zerver/tests/test_realm_emoji.py and the custom-emoji parts of
 * test_markdown.py / test_reactions.py): GET/POST/DELETE /realm/emoji, the served images, events,
 * /register, rendering and reactions.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  call,
  CORDELIA,
  DEFAULT_BOT,
  DESDEMONA,
  expectError,
  groupId,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  SHIVA,
  userId,
} from '../../helpers/api';
import { drainEvents, registerQueue } from '../../helpers/events';
import { animatedImage, imageInfo, pngClaiming, stillImage, webpAnimationClaiming } from '../../helpers/images';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { expectRegisterMatchesOpenApi } from '../register/helpers';

const LEAR = 'goneril@lear.example';
const EMOJI_URL = /^\/user_avatars\/(\d+)\/emoji\/images\/([0-9a-f]{8})\.(png|gif|jpg|webp|avif)$/;

type EmojiDict = {
  id: string;
  name: string;
  source_url: string;
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
};

interface Upload {
  data: Buffer | string;
  name?: string;
  type?: string;
}

describe('custom emoji', () => {
  let t: TestApp;
  let dataDir: string;
  let realmId: number;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-realm-emoji-'));
    t = await startTestApp({ DATA_DIR: dataDir, UPLOADS_DIR: join(dataDir, 'uploads') });
    realmId = (await t.app.get(RealmService).findByStringId('zulip'))!.id;
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: LEAR, fullName: 'Goneril' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const host = (realm?: string) => (realm ? `${realm}.zulip.testserver` : 'zulip.testserver');

  async function upload(email: string, name: string, files: Upload[], realm?: string): Promise<Response> {
    let req = t
      .http()
      .post(`/api/v1/realm/emoji/${name}`)
      .set('Host', host(realm))
      .auth(...(await t.auth(email, realm)));
    files.forEach((f, i) => {
      req = req.attach(`f${i + 1}`, typeof f.data === 'string' ? Buffer.from(f.data) : f.data, {
        filename: f.name ?? 'img.png',
        ...(f.type ? { contentType: f.type } : {}),
      });
    });
    const res = await req;
    expectMatchesOpenApi('post', '/realm/emoji/{emoji_name}', res.status, res.body);
    return res;
  }

  const png = () => stillImage('png');

  async function uploadOk(email: string, name: string, file?: Upload, realm?: string): Promise<void> {
    const res = await upload(email, name, [file ?? { data: await png() }], realm);
    expect({ status: res.status, body: res.body as unknown }).toEqual({
      status: 200,
      body: { result: 'success', msg: '' },
    });
  }

  async function remove(email: string, name: string, realm?: string): Promise<Response> {
    const res = await t
      .http()
      .delete(`/api/v1/realm/emoji/${name}`)
      .set('Host', host(realm))
      .auth(...(await t.auth(email, realm)));
    expectMatchesOpenApi('delete', '/realm/emoji/{emoji_name}', res.status, res.body);
    return res;
  }

  async function list(email = HAMLET, realm?: string): Promise<Record<string, EmojiDict>> {
    const res = await t
      .http()
      .get('/api/v1/realm/emoji')
      .set('Host', host(realm))
      .auth(...(await t.auth(email, realm)));
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/realm/emoji', 200, res.body);
    return (res.body as { emoji: Record<string, EmojiDict> }).emoji;
  }

  async function byName(name: string, realm?: string): Promise<EmojiDict> {
    const found = Object.values(await list(realm ? LEAR : HAMLET, realm)).filter((e) => e.name === name);
    const active = found.find((e) => !e.deactivated) ?? found[found.length - 1];
    if (!active) throw new Error(`no emoji ${name}`);
    return active;
  }

  /** An image URL fetched as a browser would: no credentials. */
  const fetchImage = (url: string) =>
    t
      .http()
      .get(url)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });

  const rowCount = async () =>
    Number((await t.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM realm_emoji`))[0].n);

  describe('GET /realm/emoji', () => {
    it('is empty in a new realm, for everyone (guests and bots too)', async () => {
      expect(await list(HAMLET)).toEqual({});
      expect(await list(POLONIUS)).toEqual({});
      expect(await list(DEFAULT_BOT)).toEqual({});
    });
  });

  describe('POST /realm/emoji/{name}', () => {
    it('a member uploads a PNG: resized to 64×64, listed, served publicly, announced to everyone', async () => {
      const guestQueue = await registerQueue(t, POLONIUS, ['realm_emoji']);
      await uploadOk(HAMLET, 'my_emoji', { data: await stillImage('png', 300, 120) });
      const emoji = await byName('my_emoji');
      expect(emoji).toEqual({
        id: expect.stringMatching(/^\d+$/) as unknown,
        name: 'my_emoji',
        source_url: expect.stringMatching(EMOJI_URL) as unknown,
        still_url: null,
        deactivated: false,
        author_id: await userId(t, HAMLET),
      });
      expect(EMOJI_URL.exec(emoji.source_url)?.slice(1, 4)).toEqual([String(realmId), expect.any(String), 'png']);

      const events = await drainEvents(t, guestQueue);
      expectMatchesOpenApi('get', '/events', 200, { result: 'success', msg: '', events });
      expect(events).toEqual([
        { id: expect.any(Number) as unknown, type: 'realm_emoji', op: 'update', realm_emoji: await list() },
      ]);

      const image = await fetchImage(emoji.source_url);
      expect(image.status).toBe(200);
      expect(image.headers['content-type']).toBe('image/png');
      expect(image.headers['x-content-type-options']).toBe('nosniff');
      expect(await imageInfo(image.body as Buffer)).toEqual({ format: 'png', width: 64, height: 64, pages: 1 });
    });

    it('keeps animations (GIF, WebP) frame by frame at 64×64, padded square, with a PNG still', async () => {
      for (const format of ['gif', 'webp'] as const) {
        const name = `dancing_${format}`;
        await uploadOk(IAGO, name, { data: await animatedImage(format, 100, 50, 3), name: `dance.${format}` });
        const emoji = await byName(name);
        expect(emoji.source_url).toMatch(new RegExp(`\\.${format}$`));
        expect(emoji.still_url).toBe(emoji.source_url.replace(/images\/([0-9a-f]{8})\.\w+$/, 'images/still/$1.png'));
        const animation = await fetchImage(emoji.source_url);
        expect(animation.headers['content-type']).toBe(`image/${format}`);
        expect(await imageInfo(animation.body as Buffer)).toEqual({ format, width: 64, height: 64, pages: 3 });
        const still = await fetchImage(emoji.still_url!);
        expect(still.headers['content-type']).toBe('image/png');
        expect(await imageInfo(still.body as Buffer)).toEqual({ format: 'png', width: 64, height: 64, pages: 1 });
      }
    });

    it.each([
      ['jpeg', 'image/jpeg', 'jpg'],
      ['webp', 'image/webp', 'webp'],
      ['gif', 'image/gif', 'gif'],
      ['avif', 'image/avif', 'avif'],
    ] as const)('accepts a still %s image', async (format, type, ext) => {
      const name = `still_${format}`;
      await uploadOk(IAGO, name, { data: await stillImage(format, 40, 90), name: `x.${format}`, type });
      const emoji = await byName(name);
      expect(emoji.source_url.endsWith(`.${ext}`)).toBe(true);
      expect(emoji.still_url).toBeNull();
      const served = await fetchImage(emoji.source_url);
      expect(served.headers['content-type']).toBe(type);
      expect(await imageInfo(served.body as Buffer)).toMatchObject({ width: 64, height: 64, pages: 1 });
    });

    it('guesses the type from the file name when the part declares none (as Python clients send)', async () => {
      // Multipart parsers report a part without Content-Type as text/plain.
      await uploadOk(IAGO, 'no_type', { data: await png(), name: 'picture.png', type: 'text/plain' });
      expect((await byName('no_type')).source_url).toMatch(/\.png$/);
    });

    it('trims the name and turns spaces into underscores', async () => {
      await uploadOk(IAGO, encodeURIComponent(' spaced emoji '), undefined);
      expect((await byName('spaced_emoji')).name).toBe('spaced_emoji');
    });

    it.each([
      [
        'my_em*oji',
        'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.',
      ],
      [
        'my/emoji/with/forward/slash/',
        'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.',
      ],
      ['my_EMoji', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
      [
        '%C3%A9moji',
        'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.',
      ],
      ['my_emoji_', 'Emoji names must end with either a letter or digit.'],
      ['my-emoji-', 'Emoji names must end with either a letter or digit.'],
      ['%20', 'Emoji name is missing'],
    ])('refuses the name %s', async (name, msg) => {
      expectError(await upload(IAGO, name, [{ data: await png() }]), 400, msg);
    });

    it('a name that is not valid percent-encoding is a 400, never a 500', async () => {
      const res = await upload(IAGO, '%E0%A4%A', [{ data: await png() }]);
      expect({ status: res.status, code: (res.body as { code?: string }).code }).toEqual({
        status: 400,
        code: 'BAD_REQUEST',
      });
    });

    it('refuses guests and bots before anything else (require_member_or_admin)', async () => {
      expectError(await upload(POLONIUS, 'bad*name', [{ data: await png() }]), 400, 'Not allowed for guest users');
      expectError(
        await upload(DEFAULT_BOT, 'bad*name', [{ data: await png() }]),
        400,
        'This endpoint does not accept bot requests.',
      );
    });

    it('follows can_add_custom_emoji_group, checked after the name', async () => {
      const patchRealm = async (group: string) => {
        const res = await call(t, 'patch', '/realm', DESDEMONA, {
          can_add_custom_emoji_group: JSON.stringify({ new: await groupId(t, group) }),
        });
        expect(res.status).toBe(200);
      };
      // Default: members.
      await uploadOk(DESDEMONA, 'by_owner');
      await uploadOk(SHIVA, 'by_moderator');
      await uploadOk(OTHELLO, 'by_member');

      await patchRealm('role:administrators');
      expectError(await upload(OTHELLO, 'member_1', [{ data: await png() }]), 400, 'Insufficient permission');
      expectError(await upload(SHIVA, 'moderator_1', [{ data: await png() }]), 400, 'Insufficient permission');
      expectError(
        await upload(SHIVA, 'bad_', [{ data: await png() }]),
        400,
        'Emoji names must end with either a letter or digit.',
      );
      await uploadOk(IAGO, 'admin_1');
      await uploadOk(DESDEMONA, 'owner_1');

      await patchRealm('role:moderators');
      await uploadOk(SHIVA, 'moderator_2');
      expectError(await upload(OTHELLO, 'member_2', [{ data: await png() }]), 400, 'Insufficient permission');

      await patchRealm('role:members');
      await uploadOk(OTHELLO, 'member_3');
    });

    it('refuses a name in use, checked before the files', async () => {
      expectError(await upload(IAGO, 'my_emoji', []), 400, 'A custom emoji with this name already exists.');
      expectError(
        await upload(IAGO, 'my_emoji', [{ data: await png() }]),
        400,
        'A custom emoji with this name already exists.',
      );
    });

    it('needs exactly one file', async () => {
      expectError(await upload(IAGO, 'files_0', []), 400, 'You must upload exactly one file.');
      expectError(
        await upload(IAGO, 'files_2', [{ data: await png() }, { data: await png() }]),
        400,
        'You must upload exactly one file.',
      );
      const form = await t
        .http()
        .post('/api/v1/realm/emoji/files_form')
        .auth(...(await t.auth(IAGO)))
        .type('form')
        .send({ f: 'not a file' });
      expectError(form, 400, 'You must upload exactly one file.');
      expect(Object.values(await list()).some((e) => e.name.startsWith('files_'))).toBe(false);
    });

    it('lets only administrators override a built-in emoji name; the custom one then renders', async () => {
      expectError(
        await upload(OTHELLO, 'smile', [{ data: await png() }]),
        400,
        'Only administrators can override default emoji.',
      );
      expectError(
        await upload(OTHELLO, 'thumbs_up', [{ data: await png() }]),
        400,
        'Only administrators can override default emoji.',
      );
      // `zulip` is not a Unicode emoji name.
      await uploadOk(OTHELLO, 'zulip');
      await uploadOk(IAGO, 'smile');
      const smile = await byName('smile');
      const res = await call(t, 'post', '/messages', HAMLET, {
        type: 'channel',
        to: 'Verona',
        topic: 'emoji',
        content: ':smile: :zulip:',
      });
      expect(res.status).toBe(200);
      const zulip = await byName('zulip');
      expect(await renderedOf((res.body as { id: number }).id)).toBe(
        `<p><img alt=":smile:" class="emoji" src="${smile.source_url}" title="smile"> ` +
          `<img alt=":zulip:" class="emoji" src="${zulip.source_url}" title="zulip"></p>`,
      );
    });

    it('refuses a file over MAX_EMOJI_FILE_SIZE_MIB, after the other checks', async () => {
      const big = Buffer.concat([await png(), Buffer.alloc(5 * 1024 * 1024)]);
      expectError(
        await upload(IAGO, 'big_emoji', [{ data: big }]),
        400,
        'Uploaded file is larger than the allowed limit of 5 MiB',
      );
      expectError(
        await upload(IAGO, 'my_emoji', [{ data: big }]),
        400,
        'A custom emoji with this name already exists.',
      );
    });

    it.each([
      [
        'not an image',
        { data: 'hello, world', name: 'hello.png', type: 'image/png' },
        'Could not decode image; did you upload an image file?',
      ],
      [
        'an empty file',
        { data: Buffer.alloc(0), name: 'empty.png', type: 'image/png' },
        'Could not decode image; did you upload an image file?',
      ],
      [
        'SVG bytes declared as PNG',
        { data: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', name: 'x.png', type: 'image/png' },
        'Could not decode image; did you upload an image file?',
      ],
      ['a text file', { data: 'hello', name: 'hello.txt', type: 'text/plain' }, 'Invalid image format'],
      ['an SVG file', { data: '<svg/>', name: 'x.svg', type: 'image/svg+xml' }, 'Invalid image format'],
      ['a declared TIFF', { data: 'II*\0', name: 'x.tif', type: 'image/tiff' }, 'Invalid image format'],
    ])('refuses %s (BAD_IMAGE)', async (_what, file, msg) => {
      const before = await rowCount();
      expectError(await upload(IAGO, 'bad_image', [file]), 400, msg, 'BAD_IMAGE');
      expect(await rowCount()).toBe(before);
    });

    it('refuses truncated and corrupted images, decompression bombs and real TIFF bytes, never a 500', async () => {
      const full = await stillImage('png', 200, 200);
      const cases: Array<[Upload, string]> = [
        [{ data: full.subarray(0, Math.floor(full.length / 2)) }, 'Image is corrupted or truncated'],
        [
          { data: (await stillImage('jpeg', 200, 200)).subarray(0, 300), name: 'x.jpg', type: 'image/jpeg' },
          'Image is corrupted or truncated',
        ],
        [{ data: await pngClaiming(20000, 20000) }, 'Image size exceeds limit.'],
        [{ data: await pngClaiming(100000, 1) }, 'Image is corrupted or truncated'],
        [
          { data: await webpAnimationClaiming(3000, 3000, 11), name: 'x.webp', type: 'image/webp' },
          'Image size exceeds limit.',
        ],
        [
          { data: await stillImage('tiff', 20, 20), name: 'x.png', type: 'image/png' },
          'Could not decode image; did you upload an image file?',
        ],
      ];
      const before = await rowCount();
      for (const [file, msg] of cases) {
        const res = await upload(IAGO, 'bad_image', [file]);
        expectError(res, 400, msg, 'BAD_IMAGE');
      }
      expect(await rowCount()).toBe(before);
      expect(Object.values(await list()).some((e) => e.name === 'bad_image')).toBe(false);
    });

    it('reads nothing of an anonymous upload: 401, nothing stored', async () => {
      const before = await rowCount();
      const res = await t
        .http()
        .post('/api/v1/realm/emoji/anonymous')
        .attach('f', await png(), 'a.png');
      expect(res.status).toBe(401);
      expect(await rowCount()).toBe(before);
    });

    it('concurrent uploads of one name: one emoji, the others refused cleanly', async () => {
      const data = await png();
      const results = await Promise.all(Array.from({ length: 5 }, () => upload(IAGO, 'race', [{ data }])));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expectError(r, 400, 'A custom emoji with this name already exists.');
      }
      expect(Object.values(await list()).filter((e) => e.name === 'race')).toHaveLength(1);
      // No file of a refused upload stays behind: each stored emoji has its image and its original.
      const dir = join(dataDir, 'uploads', 'avatars', String(realmId), 'emoji', 'images');
      const stored = Object.keys(await list()).length;
      expect(readdirSync(dir).filter((f) => f !== 'still')).toHaveLength(2 * stored);
    });

    it("is per realm: another realm's names are free, its emoji are not listed", async () => {
      await uploadOk(LEAR, 'my_emoji', undefined, 'lear');
      const lears = await list(LEAR, 'lear');
      expect(Object.values(lears).map((e) => e.name)).toEqual(['my_emoji']);
      const learRealm = (await t.app.get(RealmService).findByStringId('lear'))!.id;
      expect(Object.values(lears)[0].source_url).toMatch(new RegExp(`^/user_avatars/${learRealm}/emoji/images/`));
      expect(Object.keys(await list())).not.toContain(Object.keys(lears)[0]);
    });

    it('stores the original beside the resized image and serves neither originals nor other paths', async () => {
      const emoji = await byName('my_emoji');
      const dir = join(dataDir, 'uploads', 'avatars', String(realmId), 'emoji', 'images');
      const file = emoji.source_url.split('/').pop()!;
      expect(readdirSync(dir)).toEqual(expect.arrayContaining([file, `${file}.original`]));
      for (const url of [
        `${emoji.source_url}.original`,
        `/user_avatars/${realmId}/emoji/images/../../../../etc/passwd`,
        `/user_avatars/${realmId}/emoji/images/%2e%2e%2fx.png`,
        `/user_avatars/${realmId}/emoji/images/still/${file}`,
        `/user_avatars/${realmId}/emoji/images/00000000.png`,
      ]) {
        const res = await t.http().get(url);
        expect({ url, status: res.status }).toEqual({ url, status: 404 });
      }
    });
  });

  describe('DELETE /realm/emoji/{name}', () => {
    it('an unknown name is a 404', async () => {
      const res = await remove(IAGO, 'invalid_emoji');
      expectError(res, 404, "Emoji 'invalid_emoji' does not exist");
      for (const [raw, name] of [
        ['%00', '\0'],
        ['a%2Fb', 'a/b'],
        ['MY_EMOJI', 'MY_EMOJI'],
        ['%20', ' '],
      ]) {
        expectError(await remove(IAGO, raw), 404, `Emoji '${name}' does not exist`);
      }
    });

    it('administrators delete any emoji, others only their own; deletion deactivates', async () => {
      await uploadOk(OTHELLO, 'del_1');
      await uploadOk(OTHELLO, 'del_2');
      await uploadOk(OTHELLO, 'del_3');
      const queue = await registerQueue(t, HAMLET, ['realm_emoji']);
      expect((await remove(OTHELLO, 'del_1')).status).toBe(200);
      expect((await remove(IAGO, 'del_2')).status).toBe(200);
      for (const email of [CORDELIA, SHIVA, POLONIUS, DEFAULT_BOT]) {
        expectError(await remove(email, 'del_3'), 400, 'Must be an organization administrator or emoji author');
      }
      const events = await drainEvents(t, queue);
      expect(events.map((e) => e.type)).toEqual(['realm_emoji', 'realm_emoji']);
      expect((events[1] as { realm_emoji: unknown }).realm_emoji).toEqual(await list());
      const all = Object.values(await list());
      expect(all.filter((e) => e.name.startsWith('del_')).map((e) => [e.name, e.deactivated])).toEqual([
        ['del_1', true],
        ['del_2', true],
        ['del_3', false],
      ]);
      // The image of a deactivated emoji stays (old messages show it).
      expect((await fetchImage(all.find((e) => e.name === 'del_1')!.source_url)).status).toBe(200);
      expectError(await remove(OTHELLO, 'del_1'), 404, "Emoji 'del_1' does not exist");
    });

    it('a name can be used again after deactivation; the author of the new one may delete it', async () => {
      await uploadOk(CORDELIA, 'reused');
      expect((await remove(CORDELIA, 'reused')).status).toBe(200);
      await uploadOk(OTHELLO, 'reused');
      expect(Object.values(await list()).filter((e) => e.name === 'reused')).toHaveLength(2);
      expectError(await remove(CORDELIA, 'reused'), 400, 'Must be an organization administrator or emoji author');
      expect((await remove(OTHELLO, 'reused')).status).toBe(200);
    });

    it("cannot reach another realm's emoji", async () => {
      await uploadOk(LEAR, 'lear_only', undefined, 'lear');
      expectError(await remove(IAGO, 'lear_only'), 404, "Emoji 'lear_only' does not exist");
      expect((await remove(IAGO, 'my_emoji')).status).toBe(200);
      expect((await byName('my_emoji', 'lear')).deactivated).toBe(false);
    });
  });

  describe('/register', () => {
    it('realm_emoji holds every emoji of the realm, deactivated ones included', async () => {
      const res = await call(t, 'post', '/register', POLONIUS, { fetch_event_types: JSON.stringify(['realm_emoji']) });
      expect(res.status).toBe(200);
      const body = res.body as { realm_emoji: Record<string, EmojiDict> };
      expect(body.realm_emoji).toEqual(await list());
      expectRegisterMatchesOpenApi(body);
    });
  });

  async function renderedOf(messageId: number): Promise<string> {
    const rows = await t.dataSource.query<Array<{ rendered_content: string }>>(
      `SELECT rendered_content FROM message WHERE id = $1`,
      [messageId],
    );
    return rows[0].rendered_content;
  }

  describe('Markdown', () => {
    const send = async (email: string, content: string, realm?: string) => {
      const res = await t
        .http()
        .post('/api/v1/messages')
        .set('Host', host(realm))
        .auth(...(await t.auth(email, realm)))
        .type('form')
        .send({
          type: realm ? 'direct' : 'channel',
          to: realm ? JSON.stringify([LEAR]) : 'Verona',
          topic: 'md',
          content,
        });
      expect(res.status).toBe(200);
      return renderedOf((res.body as { id: number }).id);
    };

    it("renders the realm's active emoji as Zulip's <img>; others stay text", async () => {
      await uploadOk(IAGO, 'party_parrot');
      const parrot = await byName('party_parrot');
      expect(await send(HAMLET, 'Look :party_parrot: and :del_1: and :lear_only: and :no_such:')).toBe(
        `<p>Look <img alt=":party_parrot:" class="emoji" src="${parrot.source_url}" title="party parrot"> ` +
          'and :del_1: and :lear_only: and :no_such:</p>',
      );
      expect(await send(HAMLET, '`:party_parrot:` **:party_parrot:**')).toBe(
        `<p><code>:party_parrot:</code> <strong><img alt=":party_parrot:" class="emoji" src="${parrot.source_url}" title="party parrot"></strong></p>`,
      );
      // Another realm sees its own emoji of that name, not ours.
      expect(await send(LEAR, ':party_parrot: :lear_only:', 'lear')).toBe(
        `<p>:party_parrot: <img alt=":lear_only:" class="emoji" src="${(await byName('lear_only', 'lear')).source_url}" title="lear only"></p>`,
      );
    });

    it('an animated emoji renders its animation (the still is for clients)', async () => {
      const gif = await byName('dancing_gif');
      expect(await send(HAMLET, ':dancing_gif:')).toBe(
        `<p><img alt=":dancing_gif:" class="emoji" src="${gif.source_url}" title="dancing gif"></p>`,
      );
    });

    it('a message naming a custom emoji 1,000 times renders every one', async () => {
      await uploadOk(IAGO, 'p1');
      const html = await send(HAMLET, ':p1: '.repeat(1000));
      expect(html.match(/<img /g)).toHaveLength(1000);
    });
  });

  describe('reactions', () => {
    const react = (email: string, id: number, params: Record<string, unknown>, method: 'post' | 'delete' = 'post') =>
      call(t, method, `/messages/${id}/reactions`, email, params);

    it('adds and removes realm_emoji reactions by name or by code, with events', async () => {
      const parrot = await byName('party_parrot');
      const msg = await sendMessage();
      const queue = await registerQueue(t, HAMLET, ['reaction']);
      expect((await react(OTHELLO, msg, { emoji_name: 'party_parrot' })).status).toBe(200);
      expect(
        (
          await react(CORDELIA, msg, {
            emoji_name: 'party_parrot',
            emoji_code: parrot.id,
            reaction_type: 'realm_emoji',
          })
        ).status,
      ).toBe(200);
      const events = await drainEvents(t, queue);
      expectMatchesOpenApi('get', '/events', 200, { result: 'success', msg: '', events });
      expect(events.map((e) => [e.op, e.emoji_name, e.emoji_code, e.reaction_type])).toEqual([
        ['add', 'party_parrot', parrot.id, 'realm_emoji'],
        ['add', 'party_parrot', parrot.id, 'realm_emoji'],
      ]);
      expect(
        (await react(OTHELLO, msg, { emoji_name: 'party_parrot', reaction_type: 'realm_emoji' }, 'delete')).status,
      ).toBe(200);
      expect(
        (await react(CORDELIA, msg, { emoji_code: parrot.id, reaction_type: 'realm_emoji' }, 'delete')).status,
      ).toBe(200);
      expect((await reactionsOf(msg)).length).toBe(0);
    });

    it('checks custom emoji as check_emoji_request does', async () => {
      const parrot = await byName('party_parrot');
      const learEmoji = await byName('lear_only', 'lear');
      const msg = await sendMessage();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ emoji_name: 'parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji' }, 'Invalid custom emoji name.'],
        [{ emoji_name: 'lear_only', emoji_code: learEmoji.id, reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
        [
          { emoji_name: 'x', emoji_code: '99999999999999999999', reaction_type: 'realm_emoji' },
          'Invalid custom emoji.',
        ],
        [{ emoji_name: 'lear_only' }, "Emoji 'lear_only' does not exist"],
        [{ emoji_name: 'del_1' }, "Emoji 'del_1' does not exist"],
      ];
      for (const [params, error] of cases) expectError(await react(OTHELLO, msg, params), 400, error);
    });

    it('a deactivated emoji: no new reactions, but votes for an existing one are allowed', async () => {
      await uploadOk(IAGO, 'short_lived');
      const emoji = await byName('short_lived');
      const msg = await sendMessage();
      const params = { emoji_name: 'short_lived', emoji_code: emoji.id, reaction_type: 'realm_emoji' };
      expect((await react(OTHELLO, msg, params)).status).toBe(200);
      expect((await remove(IAGO, 'short_lived')).status).toBe(200);
      // A vote for the existing reaction.
      expect((await react(CORDELIA, msg, params)).status).toBe(200);
      // A new reaction on another message.
      const other = await sendMessage();
      expectError(await react(CORDELIA, other, params), 400, 'This custom emoji has been deactivated.');
      expectError(
        await react(CORDELIA, other, { emoji_name: 'short_lived' }),
        400,
        "Emoji 'short_lived' does not exist",
      );
      // Removing by code still works.
      expect((await react(OTHELLO, msg, { emoji_code: emoji.id, reaction_type: 'realm_emoji' }, 'delete')).status).toBe(
        200,
      );
      expect((await reactionsOf(msg)).map((r) => [r.emoji_name, r.user_id])).toEqual([
        ['short_lived', await userId(t, CORDELIA)],
      ]);
    });

    async function sendMessage(): Promise<number> {
      const res = await call(t, 'post', '/messages', HAMLET, {
        type: 'channel',
        to: 'Verona',
        topic: 'reactions',
        content: 'react to me',
      });
      expect(res.status).toBe(200);
      return (res.body as { id: number }).id;
    }

    async function reactionsOf(id: number): Promise<Array<Record<string, unknown>>> {
      const res = await call(t, 'get', `/messages/${id}`, HAMLET);
      return (res.body as { message: { reactions: Array<Record<string, unknown>> } }).message.reactions;
    }
  });
});
