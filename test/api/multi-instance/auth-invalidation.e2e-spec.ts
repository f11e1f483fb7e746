/**
 * Changes to who may do what take effect on every instance at once: two app instances on one
 * PostgreSQL database (and one Redis, when the test run has one), each with its own in-process
 * authentication cache; a change made through A is refused on B's first request after B hears of
 * it (PostgreSQL delivers the NOTIFY a few milliseconds after the commit; under load a client can
 * occasionally get A's answer and reach B before that, so each test waits for it). The admin CLI,
 * a separate process, reaches a running server the same way.
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CacheInvalidation } from '../../../src/database/cache-invalidation';
import { LinkifierService } from '../../../src/linkifiers/linkifier.service';
import { RealmEmojiService } from '../../../src/realm-emoji/realm-emoji.service';
import { MutedUsersService } from '../../../src/users/muted-users.service';
import { UsersService } from '../../../src/users/users.service';
import { expectError } from '../../helpers/api';
import { countQueries } from '../../helpers/query-counter';
import { TEST_SECRET } from '../../helpers/test-db';
import { startTwoInstances, type TwoInstances } from './helpers';

const root = join(__dirname, '..', '..', '..');
const IAGO = 'iago@zulip.com'; // administrator
const DESDEMONA = 'desdemona@zulip.com'; // owner
const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const CORDELIA = 'cordelia@zulip.com';
const PROSPERO = 'prospero@zulip.com';

describe('authentication cache invalidation across processes', () => {
  jest.setTimeout(120_000);
  let two: TwoInstances;
  let a: INestApplication;
  let b: INestApplication;
  let realmId: number;
  let userId: TwoInstances['userId'];
  let heardOnB: TwoInstances['heardOnB'];

  beforeAll(async () => {
    two = await startTwoInstances('zulip-test-authinval');
    ({ a, b, realmId, userId, heardOnB } = two);
  });
  afterAll(() => two?.close());

  const keyOf = async (email: string): Promise<string> => {
    const users = a.get(UsersService);
    const user = (await users.findByIdInRealm(realmId, await userId(email)))!;
    return users.apiKeyOf(user);
  };
  const on = (app: INestApplication) => ({
    get: async (path: string, email: string, key?: string) =>
      request(app.getHttpServer())
        .get(`/api/v1${path}`)
        .auth(email, key ?? (await keyOf(email))),
    send: async (method: 'post' | 'patch' | 'delete', path: string, email: string, form: Record<string, string> = {}) =>
      request(app.getHttpServer())
        [method](`/api/v1${path}`)
        .auth(email, await keyOf(email))
        .type('form')
        .send(form),
  });

  it('an authenticated request served from the cache costs no SQL statement', async () => {
    const key = await keyOf(CORDELIA);
    expect((await on(b).get('/users/me', CORDELIA, key)).status).toBe(200);
    // GET /events with a bad queue id: the answer needs only the authenticated user.
    const { count, result } = await countQueries(() => on(b).get('/events?queue_id=nope', CORDELIA, key));
    expect(result.status).toBe(400);
    expect(count).toBe(0);
  });

  it('without the channel, B would keep serving a stale row (the cache is real)', async () => {
    const key = await keyOf(PROSPERO);
    expect((await on(b).get('/users/me', PROSPERO, key)).status).toBe(200);
    // A change behind the app's back (no invalidation): B still trusts its cached row.
    await a.get(DataSource).query('UPDATE user_profile SET is_active = false WHERE id = $1', [await userId(PROSPERO)]);
    try {
      expect((await on(b).get('/users/me', PROSPERO, key)).status).toBe(200);
    } finally {
      await a.get(DataSource).query('UPDATE user_profile SET is_active = true WHERE id = $1', [await userId(PROSPERO)]);
    }
  });

  it('a user deactivated on A is refused on B at the next request', async () => {
    const key = await keyOf(HAMLET);
    expect((await on(b).get('/users/me', HAMLET, key)).status).toBe(200); // cached on B
    await heardOnB(async () =>
      expect((await on(a).send('delete', `/users/${await userId(HAMLET)}`, IAGO)).status).toBe(200),
    );
    expectError(await on(b).get('/users/me', HAMLET, key), 401, 'Account is deactivated', 'UNAUTHORIZED');
  });

  it('an API key regenerated on A: the old key is refused on B, the new one works', async () => {
    const oldKey = await keyOf(OTHELLO);
    expect((await on(b).get('/users/me', OTHELLO, oldKey)).status).toBe(200);
    let newKey = '';
    await heardOnB(async () => (newKey = await a.get(UsersService).regenerateApiKey(await userId(OTHELLO))));
    expectError(await on(b).get('/users/me', OTHELLO, oldKey), 401, 'Invalid API key', 'UNAUTHORIZED');
    expect((await on(b).get('/users/me', OTHELLO, newKey)).status).toBe(200);
  });

  it('an administrator demoted on A is refused admin-only endpoints on B', async () => {
    const key = await keyOf(IAGO);
    // Admin-only, and harmless: an invalid role is refused after the role check.
    const adminOnly = async () =>
      request(b.getHttpServer())
        .post('/api/v1/users')
        .auth(IAGO, key)
        .type('form')
        .send({ email: 'x', password: 'x', full_name: 'x' });
    const before = await adminOnly();
    expect(before.body.code).not.toBe('UNAUTHORIZED_PRINCIPAL'); // allowed past the role check, cached on B
    const target = `/users/${await userId(IAGO)}`;
    await heardOnB(async () =>
      expect((await on(a).send('patch', target, DESDEMONA, { role: '400' })).status).toBe(200),
    );
    expectError(await adminOnly(), 400, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  });

  it('the admin CLI (another process, no Redis) reaches a running server', async () => {
    const email = DESDEMONA;
    const key = await keyOf(email);
    expect((await on(b).get('/users/me', email, key)).status).toBe(200);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        join(root, 'test', 'helpers', 'ts-register.js'),
        join(root, 'src', 'cli.ts'),
        'regenerate-api-key',
        '--realm',
        'zulip',
        '--email',
        email,
      ],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: two.databaseUrl,
          SECRET_KEY: TEST_SECRET,
          SERVER_MODE: 'development',
          LOG_LEVEL: 'error',
        },
      },
    );
    const newKey = stdout.trim().split('\n').pop()!;
    expect(newKey).toMatch(/^[A-Za-z0-9]{32}$/);
    expectError(await on(b).get('/users/me', email, key), 401, 'Invalid API key', 'UNAUTHORIZED');
    expect((await on(b).get('/users/me', email, newKey)).status).toBe(200);
  });

  it('the muted-users and linkifier caches ride on the same channel', async () => {
    const mutes = b.get(MutedUsersService);
    const cordelia = await userId(CORDELIA);
    const iago = await userId(IAGO);
    expect(await mutes.mutersOf(realmId, iago, [cordelia])).toEqual(new Set()); // cached on B
    // B's caches are read directly here (no request to B), so wait for B to have heard.
    await heardOnB(async () =>
      expect((await on(a).send('post', `/users/me/muted_users/${iago}`, CORDELIA)).status).toBe(200),
    );
    const { count, result } = await countQueries(() => mutes.mutersOf(realmId, iago, [cordelia]));
    expect(result).toEqual(new Set([cordelia]));
    expect(count).toBe(1); // reloaded once, then cached again
    expect((await countQueries(() => mutes.mutersOf(realmId, iago, [cordelia]))).count).toBe(0);

    const linkifiers = b.get(LinkifierService);
    expect((await linkifiers.forRendering(realmId)).compiled).toHaveLength(0);
    await heardOnB(async () => {
      const added = await on(a).send('post', '/realm/filters', DESDEMONA, {
        pattern: '#(?P<id>[0-9]+)',
        url_template: 'https://example.com/{id}',
      });
      expect(added.status).toBe(200);
    });
    expect((await linkifiers.forRendering(realmId)).compiled).toHaveLength(1);
  });

  it('the custom emoji cache rides on it too: an emoji removed on A stops rendering on B', async () => {
    await a
      .get(DataSource)
      .query(
        `INSERT INTO realm_emoji (realm_id, name, author_id, file_name) VALUES ($1, 'cached_tick', $2, 'cached_tick.png')`,
        [realmId, await userId(DESDEMONA)],
      );
    const emoji = b.get(RealmEmojiService);
    expect((await emoji.forRendering(realmId, ['cached_tick'])).map((e) => e.name)).toEqual(['cached_tick']);
    // Cached on B: rendering another name of the realm reads nothing.
    expect((await countQueries(() => emoji.forRendering(realmId, ['smile', 'cached_tick']))).count).toBe(0);
    await heardOnB(async () =>
      expect((await on(a).send('delete', '/realm/emoji/cached_tick', DESDEMONA)).status).toBe(200),
    );
    expect(await emoji.forRendering(realmId, ['cached_tick'])).toEqual([]);
  });

  it('while the listener is down nothing is cached; after it reconnects everything is dropped', async () => {
    const bus = b.get(CacheInvalidation);
    expect(bus.canCache).toBe(true);
    const key = await keyOf(CORDELIA);
    expect((await on(b).get('/users/me', CORDELIA, key)).status).toBe(200);
    await a
      .get(DataSource)
      .query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'zulip-ts-server-invalidation' AND datname = current_database()`,
      );
    for (let i = 0; i < 100 && bus.canCache; i++) await new Promise((r) => setTimeout(r, 20));
    expect(bus.canCache).toBe(false);
    // A change no one hears about while B is deaf: B read nothing stale, because it dropped its cache.
    await a.get(DataSource).query('UPDATE user_profile SET is_active = false WHERE id = $1', [await userId(CORDELIA)]);
    expectError(await on(b).get('/users/me', CORDELIA, key), 401, 'Account is deactivated', 'UNAUTHORIZED');
    for (let i = 0; i < 250 && !bus.canCache; i++) await new Promise((r) => setTimeout(r, 20));
    expect(bus.canCache).toBe(true);
    await a.get(DataSource).query('UPDATE user_profile SET is_active = true WHERE id = $1', [await userId(CORDELIA)]);
    expect((await on(b).get('/users/me', CORDELIA, key)).status).toBe(200);
  });
});
