/**
 * Presence (zerver/tests/test_presence.py): POST /users/me/presence in both formats, GET
 * /realm/presence and /users/{id_or_email}/presence, /register's presences, presence events,
 * invisible mode, the offline threshold, and the batched writes (a ping that changes nothing
 * costs no query; many pings are one statement).
 */
import { EventsService } from '../../../src/events/events.service';
import { PresenceService } from '../../../src/presence/presence.service';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { AuthService } from '../../../src/users/auth.service';
import {
  AARON,
  call,
  CORDELIA,
  DEFAULT_BOT,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  userId,
} from '../../helpers/api';
import { drainEvents, registerQueue } from '../../helpers/events';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('presence', () => {
  let t: TestApp;
  let presence: PresenceService;
  let learUserId: number;

  beforeAll(async () => {
    // A long batch interval: the tests decide when pings are written.
    t = await startTestApp({ PRESENCE_FLUSH_MS: '3600000' });
    presence = t.app.get(PresenceService);
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    // Everyone joined long ago (a missing presence time reads as the date joined).
    await t.dataSource.query(`UPDATE user_profile SET date_joined = '2020-01-01T00:00:00Z'`);
    learUserId = (await t.app.get(UsersService).createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' }))
      .user.id;
  });
  afterAll(() => t.close());

  const ping = (email: string, params: Record<string, unknown> = {}) =>
    call(t, 'post', '/users/me/presence', email, { status: 'active', ...params });

  /** /register's answer without the specification's service_* keys (DECISIONS #2), for the validator. */
  function zulipKeys(body: Record<string, unknown>): Record<string, unknown> {
    const { service_version: _v, service_feature_level: _l, service_merge_base: _m, ...rest } = body;
    return rest;
  }

  /** Moves a user's stored presence into the past (seconds ago). */
  async function age(email: string, activeAgo: number | null, connectedAgo: number): Promise<void> {
    await t.dataSource.query(
      `UPDATE user_presence SET
         last_active_time = CASE WHEN $2::int IS NULL THEN NULL ELSE now() - make_interval(secs => $2) END,
         last_connected_time = now() - make_interval(secs => $3)
       WHERE user_profile_id = $1`,
      [await userId(t, email), activeAgo, connectedAgo],
    );
    // Forget what this process remembers, as another instance would.
    (presence as unknown as { known: Map<number, unknown> }).known.clear();
  }

  describe('POST /users/me/presence', () => {
    it('ping_only answers {}; the ping is written by the next batch', async () => {
      const res = await ping(HAMLET, { ping_only: true });
      expectMatchesOpenApi('post', '/users/me/presence', 200, res.body);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      await presence.flush();
      const rows = await t.dataSource.query<Array<{ last_active_time: Date; last_update_id: string }>>(
        `SELECT last_active_time, last_update_id FROM user_presence WHERE user_profile_id = $1`,
        [await userId(t, HAMLET)],
      );
      expect(rows).toHaveLength(1);
      expect(Date.now() - rows[0].last_active_time.getTime()).toBeLessThan(10_000);
      expect(Number(rows[0].last_update_id)).toBeGreaterThan(0);
    });

    it('answers the realm in the legacy format by default, keyed by email', async () => {
      const res = await ping(OTHELLO, { status: 'idle' });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/users/me/presence', 200, res.body);
      const body = res.body as { presences: Record<string, Record<string, Record<string, unknown>>> };
      expect(body.presences['hamlet@zulip.com'].aggregated).toEqual({
        client: 'website',
        status: 'active',
        timestamp: expect.any(Number),
      });
      expect(body.presences['hamlet@zulip.com'].website).toMatchObject({ client: 'website', pushable: false });
      // Othello's own ping is seen at once (before its batch), idle: never active.
      expect(body.presences['othello@zulip.com'].aggregated.status).toBe('idle');
      expect(res.body).toHaveProperty('presence_last_update_id');
      expect(res.body).toHaveProperty('server_timestamp');
    });

    it('slim_presence (or last_update_id) gives the modern format keyed by user id', async () => {
      const hamlet = await userId(t, HAMLET);
      for (const params of [{ slim_presence: true }, { last_update_id: -1 }]) {
        const res = await ping(CORDELIA, params);
        expect(res.status).toBe(200);
        expectMatchesOpenApi('post', '/users/me/presence', 200, res.body);
        const body = res.body as { presences: Record<string, Record<string, number>> };
        expect(body.presences[String(hamlet)]).toEqual({
          active_timestamp: expect.any(Number),
          idle_timestamp: expect.any(Number),
        });
      }
    });

    it('last_update_id returns only what changed since, and the newest id', async () => {
      await presence.flush();
      const first = (await ping(HAMLET, { last_update_id: -1 })).body as {
        presences: Record<string, unknown>;
        presence_last_update_id: number;
      };
      expect(first.presence_last_update_id).toBeGreaterThan(0);
      const again = (await ping(HAMLET, { last_update_id: first.presence_last_update_id })).body as typeof first;
      expect(again.presences).toEqual({});
      expect(again.presence_last_update_id).toBe(first.presence_last_update_id);
      await ping(AARON, { ping_only: true });
      await presence.flush();
      const next = (await ping(HAMLET, { last_update_id: first.presence_last_update_id })).body as typeof first;
      expect(Object.keys(next.presences)).toEqual([String(await userId(t, AARON))]);
      expect(next.presence_last_update_id).toBeGreaterThan(first.presence_last_update_id);
    });

    it('history_limit_days bounds what is returned; 0 returns nothing', async () => {
      await age(AARON, 3 * 86400, 3 * 86400);
      const none = (await ping(HAMLET, { slim_presence: true, history_limit_days: 0 })).body as {
        presences: Record<string, unknown>;
      };
      expect(none.presences).toEqual({});
      const aaron = String(await userId(t, AARON));
      const two = (await ping(HAMLET, { slim_presence: true, history_limit_days: 2 })).body as typeof none;
      expect(two.presences).not.toHaveProperty(aaron);
      const five = (await ping(HAMLET, { slim_presence: true, history_limit_days: 5 })).body as typeof none;
      expect(five.presences).toHaveProperty(aaron);
    });

    it('errors: status missing or invalid, bad booleans and integers, bots', async () => {
      expectError(
        await call(t, 'post', '/users/me/presence', HAMLET, {}),
        400,
        "Missing 'status' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      const invalid = await ping(HAMLET, { status: 'foo' });
      expectError(invalid, 400, 'Invalid status: foo');
      expectError(await ping(HAMLET, { ping_only: 'yes' }), 400, 'ping_only is not valid JSON');
      expectError(await ping(HAMLET, { last_update_id: '"x"' }), 400, 'last_update_id is not an integer');
      expectError(await ping(HAMLET, { new_user_input: 3 }), 400, 'new_user_input is not a boolean');
      expectError(await ping(DEFAULT_BOT), 400, 'This endpoint does not accept bot requests.');
    });

    it('guests ping and read presence like members', async () => {
      const res = await ping(POLONIUS, { slim_presence: true });
      expect(res.status).toBe(200);
      expect((res.body as { presences: Record<string, unknown> }).presences).toHaveProperty(
        String(await userId(t, HAMLET)),
      );
    });
  });

  describe('batched writes', () => {
    it('a ping that changes nothing costs no query; pings wait for one statement per realm', async () => {
      await ping(IAGO, { ping_only: true });
      await presence.flush();
      // Warm the authentication cache, then measure a repeat ping.
      await ping(IAGO, { ping_only: true });
      const repeat = await countQueries(() => ping(IAGO, { ping_only: true }));
      expect(repeat.result.status).toBe(200);
      expect(repeat.queries).toEqual([]);
      expect(presence.pendingCount()).toBe(0);

      // Three users' first pings: no query at request time, then one statement for the batch.
      for (const email of [CORDELIA, 'prospero@zulip.com', 'ZOE@zulip.com'])
        await ping(email, { status: 'idle', ping_only: true });
      const pings = await countQueries(async () => {
        for (const email of [CORDELIA, 'prospero@zulip.com', 'ZOE@zulip.com']) await ping(email, { ping_only: true });
      });
      expect(pings.queries).toEqual([]);
      const batch = await countQueries(() => presence.flush());
      // One statement writes the batch; the other finds who to tell that these users came online.
      expect(batch.queries.filter((q) => /user_presence/.test(q))).toHaveLength(1);
      expect(batch.count).toBe(2);
    });

    it('a ping a minute later moves the stored times forward', async () => {
      await age(IAGO, 60, 60);
      await ping(IAGO, { ping_only: true });
      expect(presence.pendingCount()).toBe(1);
      await presence.flush();
      const [row] = await t.dataSource.query<Array<{ age: number }>>(
        `SELECT extract(epoch FROM now() - last_active_time) AS age FROM user_presence WHERE user_profile_id = $1`,
        [await userId(t, IAGO)],
      );
      expect(Number(row.age)).toBeLessThan(10);
    });
  });

  describe('GET /realm/presence and GET /users/{user_id_or_email}/presence', () => {
    it('the realm in the legacy format, without presence_last_update_id', async () => {
      const res = await call(t, 'get', '/realm/presence', OTHELLO);
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/realm/presence', 200, res.body);
      expect(res.body).not.toHaveProperty('presence_last_update_id');
      expect(Object.keys((res.body as { presences: Record<string, unknown> }).presences)).toContain('hamlet@zulip.com');
    });

    it('one user by id or email, legacy or slim', async () => {
      const hamlet = await userId(t, HAMLET);
      for (const ref of [String(hamlet), 'hamlet@zulip.com']) {
        const res = await call(t, 'get', `/users/${ref}/presence`, OTHELLO);
        expect(res.status).toBe(200);
        expectMatchesOpenApi('get', '/users/{user_id_or_email}/presence', 200, res.body);
        expect(res.body.presence).toEqual({
          aggregated: { status: 'active', timestamp: expect.any(Number) },
          website: { status: 'active', timestamp: expect.any(Number) },
        });
      }
      const slim = await call(t, 'get', `/users/${hamlet}/presence`, OTHELLO, { slim_presence: true });
      expect(slim.body.presence).toEqual({ active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) });
    });

    it('reads "offline" past the offline threshold (200 s)', async () => {
      await age(CORDELIA, 250, 250);
      const res = await call(t, 'get', '/users/cordelia@zulip.com/presence', OTHELLO);
      expect(res.body.presence.aggregated.status).toBe('offline');
      expect(res.body.presence.website.status).toBe('active');
    });

    it('errors: no data, bots, deactivated users, unknown users, other realms', async () => {
      const shiva = 'shiva@zulip.com';
      expectError(await call(t, 'get', `/users/${shiva}/presence`, OTHELLO), 400, `No presence data for ${shiva}`);
      const shivaId = await userId(t, shiva);
      expectError(await call(t, 'get', `/users/${shivaId}/presence`, OTHELLO), 400, `No presence data for ${shivaId}`);
      expectError(
        await call(t, 'get', `/users/${DEFAULT_BOT}/presence`, OTHELLO),
        400,
        'Presence is not supported for bot users.',
      );
      expectError(await call(t, 'get', '/users/nobody@zulip.com/presence', OTHELLO), 400, 'No such user');
      expectError(await call(t, 'get', '/users/99999999999/presence', OTHELLO), 400, 'No such user');
      expectError(await call(t, 'get', `/users/${learUserId}/presence`, OTHELLO), 400, 'No such user');
      expectError(await call(t, 'get', '/users/king@lear.example/presence', OTHELLO), 400, 'No such user');
    });

    it('deactivated users: "No such user", and left out of the realm presence', async () => {
      await ping(AARON, { ping_only: true });
      await presence.flush();
      const aaron = await userId(t, AARON);
      await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [aaron]);
      t.app.get(AuthService).invalidateUser(aaron);
      try {
        expectError(await call(t, 'get', `/users/${aaron}/presence`, OTHELLO), 400, 'No such user');
        const realm = await call(t, 'get', '/realm/presence', OTHELLO);
        expect((realm.body as { presences: Record<string, unknown> }).presences).not.toHaveProperty(AARON);
        expect(Object.keys((realm.body as { presences: Record<string, unknown> }).presences)).not.toContain(
          'AARON@zulip.com',
        );
      } finally {
        await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE id = $1`, [aaron]);
        t.app.get(AuthService).invalidateUser(aaron);
      }
    });
  });

  describe('/register and events', () => {
    it('/register has presences in the requested format and presence_last_update_id', async () => {
      const hamlet = await userId(t, HAMLET);
      const slim = await call(t, 'post', '/register', OTHELLO, {
        fetch_event_types: ['presence'],
        slim_presence: true,
      });
      expect(slim.status).toBe(200);
      expectMatchesOpenApi('post', '/register', 200, zulipKeys(slim.body));
      expect(slim.body.presences[String(hamlet)]).toEqual({
        active_timestamp: expect.any(Number),
        idle_timestamp: expect.any(Number),
      });
      expect(slim.body.presence_last_update_id).toBeGreaterThan(0);
      const legacy = await call(t, 'post', '/register', OTHELLO, { fetch_event_types: ['presence'] });
      expectMatchesOpenApi('post', '/register', 200, zulipKeys(legacy.body));
      expect(legacy.body.presences['hamlet@zulip.com'].aggregated.status).toBe('active');
      const none = await call(t, 'post', '/register', OTHELLO, {
        fetch_event_types: ['presence'],
        presence_history_limit_days: 0,
      });
      expect(none.body.presences).toEqual({});
    });

    it('coming online sends a presence event to everyone: modern with simplified_presence_events', async () => {
      const modern = await call(t, 'post', '/register', HAMLET, {
        event_types: ['presence'],
        client_capabilities: { simplified_presence_events: true },
      });
      const legacyQueue = await registerQueue(t, HAMLET, ['presence']);
      const modernQueue = { email: HAMLET, queueId: modern.body.queue_id as string, lastEventId: -1 };
      await age(OTHELLO, 600, 600);
      await ping(OTHELLO, { ping_only: true });
      await presence.flush();
      await t.app.get(EventsService).flush();
      const othello = await userId(t, OTHELLO);
      const [legacyEvent] = await drainEvents(t, legacyQueue);
      expect(legacyEvent).toMatchObject({
        type: 'presence',
        user_id: othello,
        email: 'othello@zulip.com',
        presence: { website: { client: 'website', status: 'active', pushable: false } },
      });
      const [modernEvent] = await drainEvents(t, modernQueue);
      expect(modernEvent).toEqual({
        type: 'presence',
        id: expect.any(Number),
        presences: { [String(othello)]: { active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) } },
      });
      for (const e of [legacyEvent, modernEvent]) {
        expectMatchesOpenApi('get', '/events', 200, { result: 'success', msg: '', events: [e] });
      }
      // Pinging again while online: no event.
      await age(OTHELLO, 60, 60);
      await ping(OTHELLO, { ping_only: true });
      await presence.flush();
      expect(await drainEvents(t, legacyQueue)).toEqual([]);
    });
  });

  describe('invisible mode (presence_enabled)', () => {
    it('turning it off stores an offline presence, tells everyone, and ignores pings', async () => {
      const queue = await registerQueue(t, OTHELLO, ['presence']);
      const res = await call(t, 'post', '/users/me/status', HAMLET, { away: true });
      expect(res.status).toBe(200);
      await t.app.get(EventsService).flush();
      const hamlet = await userId(t, HAMLET);
      const [event] = await drainEvents(t, queue);
      expect(event).toMatchObject({ type: 'presence', user_id: hamlet, presence: { website: { status: 'idle' } } });
      const stored = await call(t, 'get', `/users/${hamlet}/presence`, OTHELLO);
      expect(stored.body.presence.aggregated.status).toBe('offline');
      // Pings while invisible write nothing.
      const pinged = await countQueries(() => ping(HAMLET, { ping_only: true }));
      expect(pinged.result.status).toBe(200);
      expect(presence.pendingCount()).toBe(0);
      expect((await call(t, 'get', `/users/${hamlet}/presence`, OTHELLO)).body.presence.aggregated.status).toBe(
        'offline',
      );

      await call(t, 'post', '/users/me/status', HAMLET, { away: false });
      await t.app.get(EventsService).flush();
      const [back] = await drainEvents(t, queue);
      expect(back).toMatchObject({ type: 'presence', user_id: hamlet, presence: { website: { status: 'active' } } });
      expect((await call(t, 'get', `/users/${hamlet}/presence`, OTHELLO)).body.presence.aggregated.status).toBe(
        'active',
      );
    });
  });

  it('PATCH /settings presence_enabled does the same (invisible mode from the settings screen)', async () => {
    const queue = await registerQueue(t, OTHELLO, ['presence']);
    const cordelia = await userId(t, CORDELIA);
    expect((await call(t, 'patch', '/settings', CORDELIA, { presence_enabled: false })).status).toBe(200);
    await t.app.get(EventsService).flush();
    const [event] = await drainEvents(t, queue);
    expect(event).toMatchObject({ type: 'presence', user_id: cordelia, presence: { website: { status: 'idle' } } });
    expect((await call(t, 'get', `/users/${cordelia}/presence`, OTHELLO)).body.presence.aggregated.status).toBe(
      'offline',
    );
    await ping(CORDELIA, { ping_only: true });
    expect(presence.pendingCount()).toBe(0);
    expect((await call(t, 'patch', '/settings', CORDELIA, { presence_enabled: true })).status).toBe(200);
    expect((await call(t, 'get', `/users/${cordelia}/presence`, OTHELLO)).body.presence.aggregated.status).toBe(
      'active',
    );
  });

  describe('idleness for push notifications', () => {
    it('recently active users are not idle; invisible and silent ones are', async () => {
      const [hamlet, cordelia, prospero] = await Promise.all([
        userId(t, HAMLET),
        userId(t, CORDELIA),
        userId(t, 'prospero@zulip.com'),
      ]);
      await ping(HAMLET, { ping_only: true });
      await age(CORDELIA, 300, 300);
      const active = await presence.recentlyActive([hamlet, cordelia, prospero]);
      expect(active.has(hamlet)).toBe(true);
      expect(active.has(cordelia)).toBe(false);
    });
  });
});
