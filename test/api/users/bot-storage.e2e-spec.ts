/**
 * GET/PUT/DELETE /bot_storage (Zulip's views/storage.py, lib/bot_storage.py): the state store of
 * Zulip's bot framework (zulip_bots StateHandler: update_storage({storage: {key: json}}),
 * get_storage({keys: [key]})).
 */
import { Limits } from '../../../src/common/limits';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { api, DEFAULT_BOT, expectError, expectSuccess, HAMLET } from './helpers';

const PATH = '/bot_storage';

describe('bot storage', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await t.dataSource.query('DELETE FROM bot_storage_data');
  });

  const put = (storage: unknown, as = DEFAULT_BOT) => api(t, 'put', PATH, as, { storage });
  const get = (keys?: unknown, as = DEFAULT_BOT) => api(t, 'get', PATH, as, keys === undefined ? {} : { keys });
  const del = (keys?: unknown, as = DEFAULT_BOT) => api(t, 'delete', PATH, as, keys === undefined ? {} : { keys });

  it('stores, reads and removes keys, as the bot framework does', async () => {
    expectSuccess(await put({ 'entry 1': 'value 1', 'entry 2': 'value 2', 'entry 3': '"json"' }), 'put', PATH);
    expect((await get(['entry 1', 'entry 3'])).body).toEqual({
      result: 'success',
      msg: '',
      storage: { 'entry 1': 'value 1', 'entry 3': '"json"' },
    });
    expect((await get()).body.storage).toEqual({ 'entry 1': 'value 1', 'entry 2': 'value 2', 'entry 3': '"json"' });
    // Overwrite, and an empty value.
    expectSuccess(await put({ 'entry 1': 'new', 'entry 2': '' }), 'put', PATH);
    expect((await get(['entry 1', 'entry 2'])).body.storage).toEqual({ 'entry 1': 'new', 'entry 2': '' });

    expectSuccess(await del(['entry 1']), 'delete', PATH);
    expect(Object.keys((await get()).body.storage as object)).toEqual(['entry 2', 'entry 3']);
    expectSuccess(await del(), 'delete', PATH);
    expect((await get()).body.storage).toEqual({});
  });

  it('an unknown key is an error, and a partly unknown delete removes nothing', async () => {
    await put({ a: '1' });
    expectError(await get(['a', 'b']), 'get', PATH, 'Key does not exist.');
    expectError(await del(['a', 'b']), 'delete', PATH, 'Key does not exist.');
    expect((await get()).body.storage).toEqual({ a: '1' });
  });

  it('keeps each bot’s store to itself', async () => {
    await put({ shared: 'mine' });
    // A second generic bot (no API creates bots yet).
    const realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
    const other = 'storage-bot@zulip.com';
    await t.app.get(UsersService).createUser(realm, { email: other, fullName: 'Storage Bot', isBot: true, botType: 1 });
    expectError(await get(['shared'], other), 'get', PATH, 'Key does not exist.');
    expect((await get(undefined, other)).body.storage).toEqual({});
    expectSuccess(await put({ shared: 'theirs' }, other), 'put', PATH);
    expect((await get(['shared'])).body.storage).toEqual({ shared: 'mine' });
    expectSuccess(await del(undefined, other), 'delete', PATH);
    expect((await get(['shared'])).body.storage).toEqual({ shared: 'mine' });
  });

  it('bounds the store at the size limit, counting characters, all or nothing', async () => {
    const limit = Limits.BOT_STORAGE_SIZE_LIMIT;
    // Fill the store but 10 characters (more than one request body may carry, so in SQL).
    const bot = (await api(t, 'get', '/users/me', DEFAULT_BOT)).body.user_id as number;
    await t.dataSource.query(
      `INSERT INTO bot_storage_data (bot_profile_id, key, value) VALUES ($1, 'k', repeat('x', $2))`,
      [bot, limit - 1 - 10],
    );
    // 10 characters left: "ab" + 8 fills it; a new key "c" (2) and one more in "ab" are 3 over.
    expectSuccess(await put({ ab: '12345678' }), 'put', PATH);
    expectError(
      await put({ c: '1', ab: '123456789' }),
      'put',
      PATH,
      `Request exceeds storage limit by 3 characters. The limit is ${limit} characters.`,
    );
    expect((await get(['ab'])).body.storage).toEqual({ ab: '12345678' });
    // Replacing a value counts only the difference; emoji count as one character.
    expectSuccess(await put({ ab: '😀😀😀😀😀😀😀😀' }), 'put', PATH);
  });

  it('takes long keys and refuses NUL characters without a 500', async () => {
    const long = 'k'.repeat(20_000);
    expectSuccess(await put({ [long]: 'v' }), 'put', PATH);
    expectSuccess(await put({ [long]: 'w' }), 'put', PATH);
    expect((await get([long])).body.storage).toEqual({ [long]: 'w' });
    expectError(await put({ 'a\u0000b': 'v' }), 'put', PATH, 'Invalid character in bot storage, at position 2.');
    expectError(await put({ a: 'v\u0000' }), 'put', PATH, 'Invalid character in bot storage, at position 2.');
    expectError(await get(['\u0000']), 'get', PATH, 'Key does not exist.');
  });

  it.each([
    [{ storage: '[1]' }, 'storage is not a dict'],
    [{ storage: '{"a": 1}' }, 'storage["a"] is not a string'],
    [{ storage: 'nope' }, 'storage is not valid JSON'],
    [{}, "Missing 'storage' argument"],
  ])('PUT %j → %s', async (params, msg) => {
    const code = msg.startsWith('Missing') ? 'REQUEST_VARIABLE_MISSING' : 'BAD_REQUEST';
    expectError(await api(t, 'put', PATH, DEFAULT_BOT, params), 'put', PATH, msg, code);
  });

  it.each([
    [{ keys: '"a"' }, 'keys is not a list'],
    [{ keys: '[1]' }, 'keys is not a string'],
  ])('GET %j → %s', async (params, msg) => {
    expectError(await api(t, 'get', PATH, DEFAULT_BOT, params), 'get', PATH, msg);
  });

  it('is for bots only (incoming-webhook bots have no API at all)', async () => {
    const webhook = await put({ a: '1' }, 'webhook-bot@zulip.com');
    expect(webhook.status).toBe(401);
    for (const res of [await put({ a: '1' }, HAMLET), await get(undefined, HAMLET), await del(undefined, HAMLET)]) {
      expect(res.body).toMatchObject({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'This endpoint is only available to bots.',
      });
    }
  });
});
