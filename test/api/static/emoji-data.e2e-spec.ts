/**
 * The emoji data file `server_emoji_data_url` names (issue 12 item 8): zulip-flutter fetches it
 * without credentials (lib/api/route/realm.dart fetchServerEmojiData) and parses
 * `code_to_names`, canonical name first.
 */
import { allUnicodeEmoji, emojiByName } from '../../../src/markdown/emoji/emoji';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { HAMLET, register } from '../register/helpers';

describe('GET /static/generated/emoji/…: the emoji data file', () => {
  let t: TestApp;
  let url: URL;

  beforeAll(async () => {
    t = await startTestApp();
    const state = await register(t, HAMLET, { fetch_event_types: JSON.stringify(['realm']) });
    url = new URL(state.server_emoji_data_url as string);
  });
  afterAll(() => t.close());

  it('/register names an absolute, content-hashed URL on the realm', () => {
    expect(url.origin).toBe('http://zulip.testserver');
    expect(url.pathname).toMatch(/^\/static\/generated\/emoji\/emoji_api\.[0-9a-f]{8}\.json$/);
  });

  it('serves every Unicode emoji with its names, canonical first, without credentials', async () => {
    const res = await t.http().get(url.pathname).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const body = res.body as { code_to_names: Record<string, string[]> };
    expect(Object.keys(body)).toEqual(['code_to_names']);
    const expected = [...allUnicodeEmoji()].filter((e) => e.code !== 'zulip');
    expect(Object.keys(body.code_to_names)).toHaveLength(expected.length);
    const thumbs = emojiByName('+1')!;
    expect(body.code_to_names[thumbs.code][0]).toBe(thumbs.name);
    expect(body.code_to_names[thumbs.code]).toEqual([thumbs.name, ...thumbs.aliases]);
    expect(body.code_to_names['1f642']).toContain('smile');
    // As Zulip's file: lowercase codes without U+FE0F; :zulip: is the clients' own.
    for (const code of Object.keys(body.code_to_names)) expect(code).toMatch(/^[0-9a-f]{4,}(-[0-9a-f]{4,})*$/);
    expect(Object.keys(body.code_to_names).some((c) => c.split('-').includes('fe0f'))).toBe(false);
    expect(body.code_to_names.zulip).toBeUndefined();
  });

  it('answers 304 to a matching If-None-Match, and serves the unhashed name with revalidation', async () => {
    const first = await t.http().get(url.pathname).expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[0-9a-f]{8}"$/);
    await t.http().get(url.pathname).set('If-None-Match', etag).expect(304);
    await t.http().get(url.pathname).set('If-None-Match', `W/${etag}`).expect(304);
    await t.http().get(url.pathname).set('If-None-Match', '"00000000"').expect(200);

    const plain = await t.http().get('/static/generated/emoji/emoji_api.json').expect(200);
    expect(plain.headers['cache-control']).toBe('public, max-age=3600');
    expect(plain.headers.etag).toBe(etag);
    expect(plain.text).toBe(first.text);
  });

  it('ignores credentials, and any other name is a 404 with the error envelope', async () => {
    await t
      .http()
      .get(url.pathname)
      .auth(...(await t.auth(HAMLET)))
      .expect(200);
    for (const name of ['emoji_api.00000000.json', 'emoji_codes.json', '..%2F..%2Fpackage.json', 'x']) {
      const res = await t.http().get(`/static/generated/emoji/${name}`).expect(404);
      expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Not Found' });
    }
  });
});
