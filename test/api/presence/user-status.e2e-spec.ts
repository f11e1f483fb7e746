/**
 * User status (zerver/tests/test_user_status.py): POST /users/me/status, POST and GET
 * /users/{user_id}/status, user_status in /register, user_status events.
 */
import { EventsService } from '../../../src/events/events.service';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { AuthService } from '../../../src/users/auth.service';
import { call, DEFAULT_BOT, expectError, HAMLET, IAGO, OTHELLO, POLONIUS, userId } from '../../helpers/api';
import { drainEvents, registerQueue } from '../../helpers/events';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('user status', () => {
  let t: TestApp;
  let learUserId: number;

  beforeAll(async () => {
    t = await startTestApp();
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    learUserId = (await t.app.get(UsersService).createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' }))
      .user.id;
  });
  afterAll(() => t.close());

  const setStatus = (email: string, params: Record<string, unknown>) =>
    call(t, 'post', '/users/me/status', email, params);
  const getStatus = async (email: string, viewer = OTHELLO) =>
    call(t, 'get', `/users/${await userId(t, email)}/status`, viewer);
  const registerStatus = async (email: string) =>
    (await call(t, 'post', '/register', email, { fetch_event_types: ['user_status'] })).body.user_status as Record<
      string,
      unknown
    >;

  it('sets text and emoji (the code and type looked up from the name), and GET reads them', async () => {
    const res = await setStatus(HAMLET, { status_text: '  on vacation  ', emoji_name: 'car' });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('post', '/users/me/status', 200, res.body);
    const got = await getStatus(HAMLET);
    expect(got.status).toBe(200);
    expectMatchesOpenApi('get', '/users/{user_id}/status', 200, got.body);
    expect(got.body.status).toEqual({
      status_text: 'on vacation',
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
    const hamlet = await userId(t, HAMLET);
    expect((await registerStatus(OTHELLO))[String(hamlet)]).toEqual(got.body.status);
  });

  it('changes one field at a time; empty values clear', async () => {
    await setStatus(HAMLET, { status_text: 'in a meeting' });
    expect((await getStatus(HAMLET)).body.status).toMatchObject({ status_text: 'in a meeting', emoji_name: 'car' });
    await setStatus(HAMLET, { emoji_name: '' });
    expect((await getStatus(HAMLET)).body.status).toEqual({ status_text: 'in a meeting' });
    // What the mobile app sends to clear everything.
    await setStatus(HAMLET, { status_text: '', emoji_name: '', emoji_code: '', reaction_type: '' });
    expect((await getStatus(HAMLET)).body.status).toEqual({});
    expect(await registerStatus(OTHELLO)).not.toHaveProperty(String(await userId(t, HAMLET)));
  });

  it('explicit emoji code and type, and Zulip’s emoji errors', async () => {
    expect(
      (await setStatus(HAMLET, { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' })).status,
    ).toBe(200);
    expect((await getStatus(HAMLET)).body.status).toMatchObject({ emoji_name: 'octopus', emoji_code: '1f419' });
    const errors: Array<[Record<string, unknown>, string]> = [
      [{}, 'Client did not pass any new values.'],
      [{ status_text: 'x'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
      [{ emoji_code: '1f697' }, 'Client did not pass any new values.'],
      [
        { status_text: 'x', emoji_code: '1f697' },
        'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
      ],
      [
        { away: false, reaction_type: 'unicode_emoji' },
        'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
      ],
      [{ emoji_name: 'invalid' }, "Emoji 'invalid' does not exist"],
      [{ emoji_name: 'car', emoji_code: '1f604', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.'],
      [{ emoji_name: 'car', emoji_code: 'zzz', reaction_type: 'unicode_emoji' }, 'Invalid emoji code.'],
      [{ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
      [{ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'other' }, 'Invalid emoji type.'],
      [{ away: 'maybe' }, 'away is not valid JSON'],
    ];
    for (const [params, msg] of errors) {
      const res = await setStatus(HAMLET, params);
      expectError(res, 400, msg);
      expectMatchesOpenApi('post', '/users/me/status', 400, res.body);
    }
    // A 60-character text after stripping is fine.
    expect((await setStatus(HAMLET, { status_text: ` ${'y'.repeat(60)} ` })).status).toBe(200);
    expectError(
      await setStatus(DEFAULT_BOT, { status_text: 'beep' }),
      400,
      'This endpoint does not accept bot requests.',
    );
  });

  it('away sets presence_enabled: `away` in the status, user_settings events', async () => {
    const queue = await registerQueue(t, HAMLET, ['user_settings', 'update_global_notifications', 'user_status']);
    await setStatus(HAMLET, { away: true });
    expect((await getStatus(HAMLET)).body.status).toMatchObject({ away: true });
    const settings = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['user_settings'] });
    expect(settings.body.user_settings.presence_enabled).toBe(false);
    await t.app.get(EventsService).flush();
    const events = await drainEvents(t, queue);
    expect(events.map((e) => e.type)).toEqual(['user_settings', 'update_global_notifications', 'user_status']);
    expect(events[0]).toMatchObject({ op: 'update', property: 'presence_enabled', value: false });
    expect(events[1]).toMatchObject({
      user: 'hamlet@zulip.com',
      notification_name: 'presence_enabled',
      setting: false,
    });
    expect(events[2]).toEqual({
      type: 'user_status',
      id: expect.any(Number),
      user_id: await userId(t, HAMLET),
      away: true,
    });
    await setStatus(HAMLET, { away: false });
    expect((await getStatus(HAMLET)).body.status).not.toHaveProperty('away');
  });

  it('user_status events go to everyone in the realm with only the fields set', async () => {
    const othello = await registerQueue(t, OTHELLO, ['user_status']);
    const polonius = await registerQueue(t, POLONIUS, ['user_status']);
    await setStatus(HAMLET, { status_text: 'lunch', emoji_name: 'car' });
    await t.app.get(EventsService).flush();
    const hamlet = await userId(t, HAMLET);
    for (const q of [othello, polonius]) {
      const [event] = await drainEvents(t, q);
      expect(event).toEqual({
        type: 'user_status',
        id: expect.any(Number),
        user_id: hamlet,
        status_text: 'lunch',
        emoji_name: 'car',
        emoji_code: '1f697',
        reaction_type: 'unicode_emoji',
      });
      expectMatchesOpenApi('get', '/events', 200, { result: 'success', msg: '', events: [event] });
    }
  });

  it('guests set and read statuses', async () => {
    expect((await setStatus(POLONIUS, { status_text: 'guesting' })).status).toBe(200);
    expect((await getStatus(POLONIUS, HAMLET)).body.status).toEqual({ status_text: 'guesting' });
    expect((await getStatus(HAMLET, POLONIUS)).status).toBe(200);
  });

  it('GET errors: bots, deactivated users, other realms, unknown ids', async () => {
    expectError(await call(t, 'get', `/users/${await userId(t, DEFAULT_BOT)}/status`, OTHELLO), 400, 'No such user');
    expectError(await call(t, 'get', `/users/${learUserId}/status`, OTHELLO), 400, 'No such user');
    expectError(await call(t, 'get', '/users/99999999999/status', OTHELLO), 400, 'No such user');
    expect((await call(t, 'get', '/users/abc/status', OTHELLO)).status).toBe(404);
    const cordelia = await userId(t, 'cordelia@zulip.com');
    await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [cordelia]);
    t.app.get(AuthService).invalidateUser(cordelia);
    try {
      expectError(await call(t, 'get', `/users/${cordelia}/status`, OTHELLO), 400, 'User is deactivated');
    } finally {
      await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE id = $1`, [cordelia]);
    }
  });

  it('POST /users/{user_id}/status: administrators only, never `away`', async () => {
    const othello = await userId(t, OTHELLO);
    const res = await call(t, 'post', `/users/${othello}/status`, IAGO, { status_text: 'set by admin' });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('post', '/users/{user_id}/status', 200, res.body);
    expect((await getStatus(OTHELLO, HAMLET)).body.status).toEqual({ status_text: 'set by admin' });
    const denied = await call(t, 'post', `/users/${othello}/status`, HAMLET, { status_text: 'no' });
    expectError(denied, 400, 'Insufficient permission');
    expectMatchesOpenApi('post', '/users/{user_id}/status', 400, denied.body);
    expectError(
      await call(t, 'post', `/users/${othello}/status`, IAGO, { away: true }),
      400,
      'Client did not pass any new values.',
    );
    expectError(await call(t, 'post', `/users/${learUserId}/status`, IAGO, { status_text: 'x' }), 400, 'No such user');
  });
});
