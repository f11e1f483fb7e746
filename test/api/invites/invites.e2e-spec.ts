/**
 * Invitations (zerver/views/invite.py, zerver/actions/invites.py; test_invite.py): POST /invites,
 * POST /invites/multiuse, GET /invites, DELETE /invites/{id}, DELETE /invites/multiuse/{id},
 * POST /invites/{id}/resend, the invitation email through a real SMTP server, and accepting an
 * invitation on its registration page (/join/{key}/).
 */
import { ParsedMail } from 'mailparser';
import { INVITES_DAILY_MAX } from '../../../src/invites/invites.service';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { channelId } from '../../helpers/api';
import { SmtpInbox, startTestAppWithInbox } from '../../helpers/smtp-inbox';
import type { TestApp } from '../../helpers/test-app';
import {
  api,
  DEFAULT_BOT,
  DESDEMONA,
  events,
  expectError,
  expectSuccess,
  groupId,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  queue,
  SHIVA,
  userId,
} from '../users/helpers';

const INVITES = '/invites';
const MULTIUSE = '/invites/multiuse';
const ONE = '/invites/{invite_id}';
const ONE_MULTIUSE = '/invites/multiuse/{invite_id}';
const RESEND = '/invites/{invite_id}/resend';
const PASSWORD = 'a-strong-passphrase-42';

describe('invitations', () => {
  jest.setTimeout(90_000);
  let smtp: SmtpInbox;
  let t: TestApp;

  beforeAll(async () => ({ t, smtp } = await startTestAppWithInbox()));
  afterAll(() => t?.close());

  const mailTo = (address: string) => smtp.takeMailTo(address);
  const linkIn = (mail: ParsedMail) => {
    const match = /http:\/\/zulip\.testserver(\/join\/[a-z0-9]{24}\/)/.exec(mail.text ?? '');
    expect(match).not.toBeNull();
    expect(mail.html).toContain(`href="http://zulip.testserver${match![1]}"`);
    return match![1];
  };
  const invitationRows = () => t.dataSource.query<Array<Record<string, unknown>>>(`SELECT * FROM invitation`);
  const inviteIdOf = async (email: string) =>
    (
      await t.dataSource.query<Array<{ id: number }>>(
        `SELECT id FROM invitation WHERE email = $1 ORDER BY id DESC LIMIT 1`,
        [email],
      )
    )[0].id;
  const register = (link: string, fields: Record<string, string>) => t.http().post(link).type('form').send(fields);
  const fetchApiKey = (email: string, password: string) =>
    t.http().post('/api/v1/fetch_api_key').type('form').send({ username: email, password });
  const subscribedNames = async (email: string) =>
    (
      await t.dataSource.query<Array<{ name: string }>>(
        `SELECT s.name FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id
          JOIN user_profile u ON u.id = sub.user_profile_id
         WHERE lower(u.delivery_email) = lower($1) AND sub.active ORDER BY s.name`,
        [email],
      )
    )
      .map((r) => r.name)
      .sort();

  it('round trip: invite → email → registration page → account with the invited role, channels and groups', async () => {
    const verona = await channelId(t, 'Verona');
    const denmark = await channelId(t, 'Denmark');
    const group = await groupId(t, 'hamletcharacters');
    const adminQueue = await queue(t, IAGO, ['invites_changed', 'realm_user', 'user_group']);
    const hamletQueue = await queue(t, HAMLET, ['invites_changed']);
    const othelloQueue = await queue(t, OTHELLO, ['invites_changed']);

    const res = await api(t, 'post', INVITES, DESDEMONA, {
      invitee_emails: 'New Person <newbie@example.org>',
      stream_ids: [verona, denmark],
      group_ids: [group],
      invite_as: 300,
      invite_expires_in_minutes: 60 * 24,
    });
    expect(expectSuccess(res, 'post', INVITES)).toEqual({ result: 'success', msg: '' });
    expect(await events(t, adminQueue)).toEqual([{ type: 'invites_changed' }]);
    expect(await events(t, hamletQueue)).toEqual([]);
    expect(await events(t, othelloQueue)).toEqual([]);

    const mail = await mailTo('newbie@example.org');
    expect(mail.subject).toBe('Desdemona invited you to join Zulip Dev');
    expect(mail.text).toContain('desdemona@zulip.com');
    const link = linkIn(mail);

    // The invitation is listed for administrators with Zulip's shape.
    const list = expectSuccess(await api(t, 'get', INVITES, IAGO), 'get', INVITES).invites as Array<
      Record<string, unknown>
    >;
    const mine = list.find((i) => i.email === 'newbie@example.org')!;
    expect(mine).toEqual({
      email: 'newbie@example.org',
      invited_by_user_id: await userId(t, DESDEMONA),
      invited: expect.any(Number),
      expiry_date: (mine.invited as number) + 24 * 3600,
      id: expect.any(Number),
      invited_as: 300,
      is_multiuse: false,
      notify_referrer_on_join: true,
    });

    const form = await t.http().get(link);
    expect(form.status).toBe(200);
    expect(form.headers['content-type']).toMatch(/^text\/html/);
    expect(form.text).toContain('newbie@example.org');
    expect(form.text).toContain('name="password"');

    // A weak password is refused on the page and creates nothing.
    const weak = await register(link, { full_name: 'New Person', password: '' });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('The password is too weak.');

    const done = await register(link, { full_name: 'New Person', password: PASSWORD });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Account created');

    const key = await fetchApiKey('newbie@example.org', PASSWORD);
    expect(key.status).toBe(200);
    const newId = key.body.user_id as number;
    const me = await t
      .http()
      .get('/api/v1/users/me')
      .auth('newbie@example.org', key.body.api_key as string);
    expect(me.body).toMatchObject({ role: 300, full_name: 'New Person', email: 'newbie@example.org' });
    expect(await subscribedNames('newbie@example.org')).toEqual(['Denmark', 'Verona']);
    const members = await t.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM user_group_membership WHERE user_group_id = $1 AND user_profile_id = $2`,
      [group, newId],
    );
    expect(members[0].n).toBe(1);
    // notify_referrer_on_join: Notification Bot tells Desdemona.
    const [notice] = await t.dataSource.query<Array<{ content: string }>>(
      `SELECT content FROM message ORDER BY id DESC LIMIT 1`,
    );
    expect(notice.content).toBe(`@_**New Person|${newId}** accepted your invitation to join Zulip!`);

    const evs = await events(t, adminQueue);
    expect(evs).toContainEqual(expect.objectContaining({ type: 'realm_user', op: 'add' }));
    expect(evs).toContainEqual({ type: 'user_group', op: 'add_members', group_id: group, user_ids: [newId] });
    expect(evs).toContainEqual({ type: 'invites_changed' });

    // Used: the link is spent, the invitation no longer listed.
    expect((await t.http().get(link)).status).toBe(404);
    expect((await register(link, { full_name: 'Again', password: PASSWORD })).status).toBe(404);
    const after = (await api(t, 'get', INVITES, IAGO)).body.invites as Array<Record<string, unknown>>;
    expect(after.find((i) => i.email === 'newbie@example.org')).toBeUndefined();
  });

  it('multiuse links: created by administrators, ask for the email, work until revoked', async () => {
    const denmark = await channelId(t, 'Denmark');
    const defaults = (
      await t.dataSource.query<Array<{ name: string }>>(
        `SELECT s.name FROM default_stream d JOIN stream s ON s.id = d.stream_id`,
      )
    ).map((r) => r.name);
    expect(defaults.length).toBeGreaterThan(0);
    expect(defaults).not.toContain('Denmark');
    const expected = ['Denmark', ...defaults].sort();
    const res = await api(t, 'post', MULTIUSE, IAGO, {
      stream_ids: [denmark],
      include_realm_default_subscriptions: true,
      invite_as: 600,
    });
    const body = expectSuccess(res, 'post', MULTIUSE);
    const url = body.invite_link as string;
    expect(url).toMatch(/^http:\/\/zulip\.testserver\/join\/[a-z0-9]{24}\/$/);
    const link = new URL(url).pathname;

    const form = await t.http().get(link);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="email"');
    const bad = await register(link, { email: 'nope', full_name: 'Xavier', password: PASSWORD });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a valid email address.');
    const taken = await register(link, { email: 'hamlet@zulip.com', full_name: 'Xavier', password: PASSWORD });
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('already in use');

    for (const email of ['guest1@example.org', 'guest2@example.org']) {
      expect((await register(link, { email, full_name: 'Guest', password: PASSWORD })).status).toBe(200);
      const key = await fetchApiKey(email, PASSWORD);
      expect(key.status).toBe(200);
      expect(await subscribedNames(email)).toEqual(expected);
      const me = await t
        .http()
        .get('/api/v1/users/me')
        .auth(email, key.body.api_key as string);
      expect(me.body.role).toBe(600);
    }

    const list = (await api(t, 'get', INVITES, IAGO)).body.invites as Array<Record<string, unknown>>;
    const entry = list.find((i) => i.link_url === url)!;
    expect(entry).toMatchObject({ is_multiuse: true, invited_as: 600, invited_by_user_id: await userId(t, IAGO) });
    expectSuccess(await api(t, 'get', INVITES, IAGO), 'get', INVITES);

    // Revoked: refused at registration, not listed, and a second revoke says so.
    const id = entry.id as number;
    expectError(await api(t, 'delete', `/invites/${id}`, IAGO), 'delete', ONE, 'No such invitation');
    expectSuccess(await api(t, 'delete', `/invites/multiuse/${id}`, IAGO), 'delete', ONE_MULTIUSE);
    expect((await t.http().get(link)).status).toBe(404);
    expect((await register(link, { email: 'late@example.org', full_name: 'L', password: PASSWORD })).status).toBe(404);
    expectError(
      await api(t, 'delete', `/invites/multiuse/${id}`, IAGO),
      'delete',
      ONE_MULTIUSE,
      'Invitation has already been revoked',
    );
  });

  it('permissions by role: guests, bots, members, moderators, administrators, owners', async () => {
    const emailsFor = (n: string) => ({ invitee_emails: `${n}@example.org`, stream_ids: [] });
    expectError(
      await api(t, 'post', INVITES, POLONIUS, emailsFor('g')),
      'post',
      INVITES,
      'Not allowed for guest users',
    );
    expectError(
      await api(t, 'post', INVITES, DEFAULT_BOT, emailsFor('b')),
      'post',
      INVITES,
      'This endpoint does not accept bot requests.',
    );
    expectError(await api(t, 'get', INVITES, POLONIUS), 'get', INVITES, 'Not allowed for guest users');
    expectError(await api(t, 'post', MULTIUSE, POLONIUS, {}), 'post', MULTIUSE, 'Not allowed for guest users');

    // Members may invite members and guests, not staff.
    expectSuccess(await api(t, 'post', INVITES, HAMLET, { ...emailsFor('m1'), invite_as: 600 }), 'post', INVITES);
    expectError(
      await api(t, 'post', INVITES, HAMLET, { ...emailsFor('m2'), invite_as: 300 }),
      'post',
      INVITES,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectError(
      await api(t, 'post', INVITES, SHIVA, { ...emailsFor('m3'), invite_as: 200 }),
      'post',
      INVITES,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    // Owners are invited by owners only.
    expectError(
      await api(t, 'post', INVITES, IAGO, { ...emailsFor('o1'), invite_as: 100 }),
      'post',
      INVITES,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectSuccess(await api(t, 'post', INVITES, IAGO, { ...emailsFor('a1'), invite_as: 200 }), 'post', INVITES);
    expectSuccess(await api(t, 'post', INVITES, DESDEMONA, { ...emailsFor('o2'), invite_as: 100 }), 'post', INVITES);
    expectError(
      await api(t, 'post', INVITES, IAGO, { ...emailsFor('x'), invite_as: 500 }),
      'post',
      INVITES,
      'Invalid invite_as',
    );

    // Multiuse links: administrators by default (create_multiuse_invite_group).
    expectError(await api(t, 'post', MULTIUSE, HAMLET, {}), 'post', MULTIUSE, 'Insufficient permission');
    expectError(await api(t, 'post', MULTIUSE, SHIVA, {}), 'post', MULTIUSE, 'Insufficient permission');
    expectError(
      await api(t, 'post', MULTIUSE, IAGO, { invite_as: 100 }),
      'post',
      MULTIUSE,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );

    // can_invite_users_group set to administrators: members are refused.
    const admins = await groupId(t, 'role:administrators');
    await t.dataSource.query(`UPDATE realm SET can_invite_users_group = $1 WHERE string_id = 'zulip'`, [admins]);
    t.app.get(RealmService).invalidate();
    try {
      expectError(await api(t, 'post', INVITES, HAMLET, emailsFor('m4')), 'post', INVITES, 'Insufficient permission');
      expectSuccess(await api(t, 'post', INVITES, IAGO, emailsFor('a2')), 'post', INVITES);
    } finally {
      const members = await groupId(t, 'role:members');
      await t.dataSource.query(`UPDATE realm SET can_invite_users_group = $1 WHERE string_id = 'zulip'`, [members]);
      t.app.get(RealmService).invalidate();
    }

    // GET: members see their own invitations, administrators everyone's.
    const hamletList = (await api(t, 'get', INVITES, HAMLET)).body.invites as Array<Record<string, unknown>>;
    expect(hamletList.map((i) => i.email)).toEqual(['m1@example.org']);
    const shivaList = (await api(t, 'get', INVITES, SHIVA)).body.invites as Array<Record<string, unknown>>;
    expect(shivaList).toEqual([]);
    const iagoList = (await api(t, 'get', INVITES, IAGO)).body.invites as Array<Record<string, unknown>>;
    expect(iagoList.map((i) => i.email)).toEqual(
      expect.arrayContaining(['m1@example.org', 'a1@example.org', 'o2@example.org', 'a2@example.org']),
    );

    // Revoking others' invitations: administrators, owners for owners' invitations.
    const m1 = await inviteIdOf('m1@example.org');
    const o2 = await inviteIdOf('o2@example.org');
    expectError(
      await api(t, 'delete', `/invites/${m1}`, OTHELLO),
      'delete',
      ONE,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectError(
      await api(t, 'delete', `/invites/${o2}`, IAGO),
      'delete',
      ONE,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectError(
      await api(t, 'post', `/invites/${o2}/resend`, IAGO),
      'post',
      RESEND,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectError(await api(t, 'delete', `/invites/${m1}`, POLONIUS), 'delete', ONE, 'Not allowed for guest users');
    expectSuccess(await api(t, 'delete', `/invites/${o2}`, DESDEMONA), 'delete', ONE);
    expectError(await api(t, 'delete', `/invites/${o2}`, DESDEMONA), 'delete', ONE, 'No such invitation');
    const q = await queue(t, HAMLET, ['invites_changed']);
    expectSuccess(await api(t, 'delete', `/invites/${m1}`, HAMLET), 'delete', ONE);
    expect(await events(t, q)).toEqual([{ type: 'invites_changed' }]);
    for (const email of ['m1', 'o2']) {
      const rows = await t.dataSource.query<Array<{ status: number }>>(
        `SELECT status FROM invitation WHERE email = $1`,
        [`${email}@example.org`],
      );
      expect(rows.map((r) => r.status)).toEqual([2]);
    }
  });

  it('channel and group permissions of the inviter; multiuse links when the setting allows members', async () => {
    const denmark = await channelId(t, 'Denmark');
    const [defaultChannel] = await t.dataSource.query<Array<{ stream_id: number }>>(
      `SELECT stream_id FROM default_stream ORDER BY stream_id LIMIT 1`,
    );
    const admins = await groupId(t, 'role:administrators');
    const members = await groupId(t, 'role:members');
    const before = await invitationRows();
    await t.dataSource.query(`UPDATE realm SET can_add_subscribers_group = $1 WHERE string_id = 'zulip'`, [admins]);
    t.app.get(RealmService).invalidate();
    try {
      expectError(
        await api(t, 'post', INVITES, HAMLET, { invitee_emails: 'ch@example.org', stream_ids: [denmark] }),
        'post',
        INVITES,
        'You do not have permission to subscribe other users to channels.',
      );
      expect(await invitationRows()).toEqual(before);
      // Default channels are always allowed; administrators may use any channel.
      expectSuccess(
        await api(t, 'post', INVITES, HAMLET, {
          invitee_emails: 'ch1@example.org',
          stream_ids: [defaultChannel.stream_id],
        }),
        'post',
        INVITES,
      );
      expectSuccess(
        await api(t, 'post', INVITES, IAGO, { invitee_emails: 'ch2@example.org', stream_ids: [denmark] }),
        'post',
        INVITES,
      );
    } finally {
      await t.dataSource.query(`UPDATE realm SET can_add_subscribers_group = $1 WHERE string_id = 'zulip'`, [members]);
      t.app.get(RealmService).invalidate();
    }

    // Groups: the inviter must be able to add members; system groups never.
    const system = await groupId(t, 'role:members');
    expectError(
      await api(t, 'post', INVITES, IAGO, { invitee_emails: 'gr@example.org', stream_ids: [], group_ids: [system] }),
      'post',
      INVITES,
      'Insufficient permission',
    );
    const characters = await groupId(t, 'hamletcharacters');
    await t.dataSource.query(`UPDATE user_group SET can_add_members_group = $1 WHERE id = $2`, [admins, characters]);
    await t.dataSource.query(`UPDATE user_group SET can_manage_group = $1 WHERE id = $2`, [admins, characters]);
    expectError(
      await api(t, 'post', INVITES, OTHELLO, {
        invitee_emails: 'gr@example.org',
        stream_ids: [],
        group_ids: [characters],
      }),
      'post',
      INVITES,
      'Insufficient permission',
    );
    expectError(await api(t, 'post', MULTIUSE, IAGO, { group_ids: [999999] }), 'post', MULTIUSE, 'Invalid user group');
    expectError(
      await api(t, 'post', MULTIUSE, IAGO, { stream_ids: [999999] }),
      'post',
      MULTIUSE,
      'Invalid channel ID 999999. No invites were sent.',
    );
    expectError(
      await api(t, 'post', MULTIUSE, IAGO, { invite_expires_in_minutes: 0 }),
      'post',
      MULTIUSE,
      'Invalid invite_expires_in_minutes',
    );

    // create_multiuse_invite_group set to members: Hamlet may create links, and only sees his own.
    await t.dataSource.query(`UPDATE realm SET create_multiuse_invite_group = $1 WHERE string_id = 'zulip'`, [members]);
    t.app.get(RealmService).invalidate();
    try {
      const q = await queue(t, HAMLET, ['invites_changed']);
      const adminQ = await queue(t, IAGO, ['invites_changed']);
      const othelloQ = await queue(t, OTHELLO, ['invites_changed']);
      const link = expectSuccess(
        await api(t, 'post', MULTIUSE, HAMLET, { invite_expires_in_minutes: null }),
        'post',
        MULTIUSE,
      ).invite_link as string;
      expect(await events(t, q)).toEqual([{ type: 'invites_changed' }]);
      expect(await events(t, adminQ)).toEqual([{ type: 'invites_changed' }]);
      expect(await events(t, othelloQ)).toEqual([]);
      const mine = (await api(t, 'get', INVITES, HAMLET)).body.invites as Array<Record<string, unknown>>;
      const entry = mine.find((i) => i.link_url === link)!;
      expect(entry).toMatchObject({ is_multiuse: true, expiry_date: null, invited_as: 400 });
      expect(mine.every((i) => i.invited_by_user_id === entry.invited_by_user_id)).toBe(true);
      expectError(
        await api(t, 'post', MULTIUSE, HAMLET, { invite_as: 200 }),
        'post',
        MULTIUSE,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      // Othello cannot revoke Hamlet's link; Hamlet can.
      expectError(
        await api(t, 'delete', `/invites/multiuse/${entry.id as number}`, OTHELLO),
        'delete',
        ONE_MULTIUSE,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectSuccess(await api(t, 'delete', `/invites/multiuse/${entry.id as number}`, HAMLET), 'delete', ONE_MULTIUSE);
      expect(await events(t, adminQ)).toEqual([{ type: 'invites_changed' }]);
    } finally {
      await t.dataSource.query(`UPDATE realm SET create_multiuse_invite_group = $1 WHERE string_id = 'zulip'`, [
        admins,
      ]);
      t.app.get(RealmService).invalidate();
    }
  });

  it('resend mails the invitation again; revoked and expired invitations are refused at registration', async () => {
    expectSuccess(
      await api(t, 'post', INVITES, OTHELLO, { invitee_emails: 'resend@example.org', stream_ids: [] }),
      'post',
      INVITES,
    );
    const first = linkIn(await mailTo('resend@example.org'));
    const id = await inviteIdOf('resend@example.org');
    const res = await api(t, 'post', `/invites/${id}/resend`, OTHELLO);
    expect(expectSuccess(res, 'post', RESEND)).toEqual({ result: 'success', msg: '' });
    const second = linkIn(await mailTo('resend@example.org'));
    expect(second).toBe(first);
    expectError(await api(t, 'post', '/invites/999999/resend', OTHELLO), 'post', RESEND, 'No such invitation');
    expectError(
      await api(t, 'post', `/invites/${id}/resend`, HAMLET),
      'post',
      RESEND,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectSuccess(await api(t, 'post', `/invites/${id}/resend`, IAGO), 'post', RESEND);
    await mailTo('resend@example.org');

    // Revoked: the page and the registration refuse the link.
    expectSuccess(await api(t, 'delete', `/invites/${id}`, OTHELLO), 'delete', ONE);
    expect((await t.http().get(first)).status).toBe(404);
    expect((await register(first, { full_name: 'R', password: PASSWORD })).status).toBe(404);
    expectError(await api(t, 'post', `/invites/${id}/resend`, OTHELLO), 'post', RESEND, 'No such invitation');

    // Expired.
    expectSuccess(
      await api(t, 'post', INVITES, OTHELLO, {
        invitee_emails: 'expired@example.org',
        stream_ids: [],
        invite_expires_in_minutes: 5,
      }),
      'post',
      INVITES,
    );
    const expired = linkIn(await mailTo('expired@example.org'));
    expect((await t.http().get(expired)).status).toBe(200);
    await t.dataSource.query(
      `UPDATE invitation SET expires_at = now() - interval '1 second' WHERE email = 'expired@example.org'`,
    );
    expect((await t.http().get(expired)).status).toBe(404);
    const page = await register(expired, { full_name: 'E', password: PASSWORD });
    expect(page.status).toBe(404);
    expect(page.text).toContain('expired');
    expect((await fetchApiKey('expired@example.org', PASSWORD)).status).toBe(401);
    const listed = (await api(t, 'get', INVITES, OTHELLO)).body.invites as Array<Record<string, unknown>>;
    expect(listed).toEqual([]);

    // Never expires: expiry_date null.
    expectSuccess(
      await api(t, 'post', INVITES, OTHELLO, {
        invitee_emails: 'forever@example.org',
        stream_ids: [],
        invite_expires_in_minutes: null,
      }),
      'post',
      INVITES,
    );
    await mailTo('forever@example.org');
    const forever = (await api(t, 'get', INVITES, OTHELLO)).body.invites as Array<Record<string, unknown>>;
    expect(forever).toEqual([expect.objectContaining({ email: 'forever@example.org', expiry_date: null })]);
    expectSuccess(await api(t, 'get', INVITES, OTHELLO), 'get', INVITES);

    // Malformed and unknown keys.
    for (const key of ['abcdefghijklmnopqrstuvwx', 'NOT-A-KEY', 'x'.repeat(200)]) {
      expect((await t.http().get(`/join/${key}/`)).status).toBe(404);
      expect((await register(`/join/${key}/`, { full_name: 'K', password: PASSWORD })).status).toBe(404);
    }
  });

  it('bad input gets Zulip errors and writes nothing', async () => {
    const before = await invitationRows();
    const verona = await channelId(t, 'Verona');
    const post = (params: Record<string, unknown>) => api(t, 'post', INVITES, HAMLET, params);

    expectError(
      await post({ invitee_emails: '', stream_ids: [] }),
      'post',
      INVITES,
      'You must specify at least one email address.',
    );
    // Zulip's document lists no REQUEST_VARIABLE_MISSING body for this route (it has var_name).
    for (const [params, name] of [
      [{ stream_ids: [] }, 'invitee_emails'],
      [{ invitee_emails: 'a@example.org' }, 'stream_ids'],
    ] as const) {
      const res = await post(params);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { result: 'error', msg: `Missing '${name}' argument`, code: 'REQUEST_VARIABLE_MISSING', var_name: name },
      });
    }
    expectError(
      await post({ invitee_emails: 'a@example.org', stream_ids: 'nope' }),
      'post',
      INVITES,
      'stream_ids is not valid JSON',
    );
    expectError(
      await post({ invitee_emails: 'a@example.org', stream_ids: [999999] }),
      'post',
      INVITES,
      'Invalid channel ID 999999. No invites were sent.',
    );
    // A private channel Hamlet cannot see.
    const [priv] = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT s.id FROM stream s WHERE s.invite_only AND NOT EXISTS (
         SELECT 1 FROM subscription sub JOIN user_profile u ON u.id = sub.user_profile_id
          WHERE sub.recipient_id = s.recipient_id AND u.delivery_email = 'hamlet@zulip.com' AND sub.active)
       LIMIT 1`,
    );
    if (priv) {
      expectError(
        await post({ invitee_emails: 'a@example.org', stream_ids: [priv.id] }),
        'post',
        INVITES,
        `Invalid channel ID ${priv.id}. No invites were sent.`,
      );
    }
    for (const minutes of [0, -5, 10 ** 9]) {
      expectError(
        await post({ invitee_emails: 'a@example.org', stream_ids: [], invite_expires_in_minutes: minutes }),
        'post',
        INVITES,
        'Invalid invite_expires_in_minutes',
      );
    }
    expectError(
      await post({ invitee_emails: 'a@example.org', stream_ids: [], invite_expires_in_minutes: 'soon' }),
      'post',
      INVITES,
      'invite_expires_in_minutes is not valid JSON',
    );
    expectError(
      await post({ invitee_emails: 'a@example.org', stream_ids: [], group_ids: [999999] }),
      'post',
      INVITES,
      'Invalid user group',
    );

    // Malformed emails: nobody is invited, every refused address listed.
    const malformed = await post({
      invitee_emails: 'good@example.org, not-an-email\nhamlet@zulip.com',
      stream_ids: [verona],
    });
    expectError(
      malformed,
      'post',
      INVITES,
      "Some emails did not validate, so we didn't send any invitations.",
      'INVITATION_FAILED',
    );
    expect(malformed.body).toMatchObject({
      errors: [
        ['not-an-email', 'Invalid address.', false],
        ['hamlet@zulip.com', 'Already has an account.', false],
      ],
      sent_invitations: false,
      daily_limit_reached: false,
      license_limit_reached: false,
    });

    // Only existing users: nobody invited.
    const existing = await post({ invitee_emails: 'HAMLET@zulip.com,othello@zulip.com', stream_ids: [] });
    expectError(existing, 'post', INVITES, "We weren't able to invite anyone.", 'INVITATION_FAILED');
    expect(existing.body.errors).toEqual([
      ['HAMLET@zulip.com', 'Already has an account.', false],
      ['othello@zulip.com', 'Already has an account.', false],
    ]);

    // 10,000 invitees: the daily limit, nothing written, no email.
    const many = Array.from({ length: 10_000 }, (_, i) => `person${i}@example.org`).join(',');
    const huge = await post({ invitee_emails: many, stream_ids: [] });
    expectError(
      huge,
      'post',
      INVITES,
      'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.',
      'INVITATION_FAILED',
    );
    expect(huge.body).toMatchObject({ errors: [], sent_invitations: false, daily_limit_reached: true });

    expect(await invitationRows()).toEqual(before);

    // Some existing, some new: the new ones are invited, the error lists the others.
    const mixed = await post({ invitee_emails: 'fresh@example.org\nothello@zulip.com', stream_ids: [verona] });
    expectError(
      mixed,
      'post',
      INVITES,
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      'INVITATION_FAILED',
    );
    expect(mixed.body).toMatchObject({
      errors: [['othello@zulip.com', 'Already has an account.', false]],
      sent_invitations: true,
    });
    await mailTo('fresh@example.org');

    // A deactivated user's address.
    await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE delivery_email = 'prospero@zulip.com'`);
    const deact = await post({ invitee_emails: 'prospero@zulip.com', stream_ids: [] });
    expect(deact.body.errors).toEqual([['prospero@zulip.com', 'Account has been deactivated.', true]]);
    await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE delivery_email = 'prospero@zulip.com'`);

    // Bad ids on the other routes.
    for (const path of ['/invites/999999', '/invites/multiuse/999999']) {
      expectError(
        await api(t, 'delete', path, IAGO),
        'delete',
        path.includes('multi') ? ONE_MULTIUSE : ONE,
        'No such invitation',
      );
    }
    // Not a PostgreSQL integer: the route's pattern refuses it (JSON 404).
    expect((await api(t, 'delete', '/invites/99999999999999999999', IAGO)).status).toBe(404);
    expect((await api(t, 'delete', '/invites/abc', IAGO)).status).toBe(404);
  });

  it('one account per email invitation, even when the link is posted twice at once', async () => {
    expectSuccess(
      await api(t, 'post', INVITES, IAGO, { invitee_emails: 'race@example.org', stream_ids: [] }),
      'post',
      INVITES,
    );
    const link = linkIn(await mailTo('race@example.org'));
    const answers = await Promise.all([
      register(link, { full_name: 'Racer One', password: PASSWORD }),
      register(link, { full_name: 'Racer Two', password: PASSWORD }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    const rows = await t.dataSource.query<Array<{ full_name: string }>>(
      `SELECT full_name FROM user_profile WHERE delivery_email = 'race@example.org'`,
    );
    expect(rows).toHaveLength(1);
  });

  it('the daily limit counts every invitation of the realm in the last day', async () => {
    const [{ n }] = await t.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM invitation WHERE NOT is_multiuse AND invited_at > now() - interval '1 day'`,
    );
    const left = INVITES_DAILY_MAX - n;
    const emails = Array.from({ length: left + 1 }, (_, i) => `cap${i}@example.org`);
    const over = await api(t, 'post', INVITES, IAGO, { invitee_emails: emails.join('\n'), stream_ids: [] });
    expect(over.body.daily_limit_reached).toBe(true);
    // Earlier invitations no longer count after a day.
    await t.dataSource.query(`UPDATE invitation SET invited_at = invited_at - interval '2 days'`);
    expectSuccess(
      await api(t, 'post', INVITES, IAGO, { invitee_emails: emails.slice(0, 3).join(','), stream_ids: [] }),
      'post',
      INVITES,
    );
  });

  it('other realms: their invitations are invisible and their links create users there', async () => {
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: 'king@lear.test', fullName: 'King Lear', role: 100 });
    const auth = await t.auth('king@lear.test', 'lear');
    const res = await t
      .http()
      .post('/api/v1/invites')
      .set('Host', 'lear.zulip.testserver')
      .auth(...auth)
      .type('form')
      .send({ invitee_emails: 'fool@lear.test', stream_ids: '[]' });
    expect(res.status).toBe(200);
    const mail = await mailTo('fool@lear.test');
    const match = /http:\/\/lear\.zulip\.testserver(\/join\/[a-z0-9]{24}\/)/.exec(mail.text ?? '');
    expect(match).not.toBeNull();
    const learId = await inviteIdOf('fool@lear.test');
    expectError(await api(t, 'delete', `/invites/${learId}`, IAGO), 'delete', ONE, 'No such invitation');
    expectError(await api(t, 'post', `/invites/${learId}/resend`, IAGO), 'post', RESEND, 'No such invitation');
    const iagoList = (await api(t, 'get', INVITES, IAGO)).body.invites as Array<Record<string, unknown>>;
    expect(iagoList.find((i) => i.email === 'fool@lear.test')).toBeUndefined();
    const zulipChannel = await channelId(t, 'Verona');
    const cross = await t
      .http()
      .post('/api/v1/invites')
      .set('Host', 'lear.zulip.testserver')
      .auth(...auth)
      .type('form')
      .send({ invitee_emails: 'jester@lear.test', stream_ids: JSON.stringify([zulipChannel]) });
    expect(cross.body.msg).toBe(`Invalid channel ID ${zulipChannel}. No invites were sent.`);

    // The link works on Lear's host only, and creates the account in Lear's realm.
    expect((await t.http().get(match![1])).status).toBe(404);
    expect((await register(match![1], { full_name: 'The Fool', password: PASSWORD })).status).toBe(404);
    expect((await t.http().get(match![1]).set('Host', 'nowhere.zulip.testserver')).status).toBe(404);
    const learForm = await t.http().get(match![1]).set('Host', 'lear.zulip.testserver');
    expect(learForm.status).toBe(200);
    expect(learForm.text).toContain('Join Lear &amp; Co');
    const joined = await register(match![1], { full_name: 'The Fool', password: PASSWORD }).set(
      'Host',
      'lear.zulip.testserver',
    );
    expect(joined.status).toBe(200);
    const key = await t
      .http()
      .post('/api/v1/fetch_api_key')
      .set('Host', 'lear.zulip.testserver')
      .type('form')
      .send({ username: 'fool@lear.test', password: PASSWORD });
    expect(key.status).toBe(200);
    expect((await fetchApiKey('fool@lear.test', PASSWORD)).status).toBe(401);

    // A deactivated organization's links create nothing.
    const again = await t
      .http()
      .post('/api/v1/invites')
      .set('Host', 'lear.zulip.testserver')
      .auth(...auth)
      .type('form')
      .send({ invitee_emails: 'jester@lear.test', stream_ids: '[]' });
    expect(again.status).toBe(200);
    const jesterLink = /http:\/\/lear\.zulip\.testserver(\/join\/[a-z0-9]{24}\/)/.exec(
      (await mailTo('jester@lear.test')).text ?? '',
    )![1];
    await t.dataSource.query(`UPDATE realm SET deactivated = true WHERE string_id = 'lear'`);
    t.app.get(RealmService).invalidate();
    const refused = await register(jesterLink, { full_name: 'The Jester', password: PASSWORD }).set(
      'Host',
      'lear.zulip.testserver',
    );
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('This organization has been deactivated.');
    const [{ n }] = await t.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM user_profile WHERE delivery_email = 'jester@lear.test'`,
    );
    expect(n).toBe(0);
  });
});
