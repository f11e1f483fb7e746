/**
 * Changing one's own email (PATCH /settings `email`; Zulip's do_start_email_change_process and
 * confirm_email_change; test_email_change.py): the confirmation email goes through the job queue
 * to a real SMTP server, its link changes the address once, and the old address is told.
 */
import { ParsedMail } from 'mailparser';
import { RealmService } from '../../../src/realm/realm.service';
import { SmtpInbox, startTestAppWithInbox } from '../../helpers/smtp-inbox';
import type { TestApp } from '../../helpers/test-app';
import { api, events, expectError, expectSuccess, IAGO, queue, userId } from './helpers';

const PATH = '/settings';

describe('email change through a confirmation link', () => {
  jest.setTimeout(60_000);
  let smtp: SmtpInbox;
  let t: TestApp;

  beforeAll(async () => ({ t, smtp } = await startTestAppWithInbox()));
  afterAll(() => t?.close());

  const mailTo = (address: string) => smtp.takeMailTo(address);
  const linkIn = (mail: ParsedMail) => {
    const match = /http:\/\/zulip\.testserver(\/accounts\/confirm_new_email\/[a-z0-9]{24}\/)/.exec(mail.text ?? '');
    expect(match).not.toBeNull();
    return match![1];
  };

  it('mails a link to the new address; the link changes it once and tells the old address', async () => {
    const othello = await userId(t, 'othello@zulip.com');
    const res = await api(t, 'patch', PATH, 'othello@zulip.com', { email: ' othello-new@example.org ' });
    expect(expectSuccess(res, 'patch', PATH)).toEqual({ result: 'success', msg: '' });
    // Nothing changes before the link is opened.
    expect((await api(t, 'get', '/users/me', 'othello@zulip.com')).body.delivery_email).toBe('othello@zulip.com');

    const mail = await mailTo('othello-new@example.org');
    expect(mail.subject).toBe('Verify your new email address for Zulip Dev');
    expect(mail.text).toContain('from othello@zulip.com to othello-new@example.org');
    const link = linkIn(mail);

    const q = await queue(t, IAGO, ['realm_user']);
    const page = await t.http().get(link);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('othello-new@example.org');
    expect(await events(t, q)).toContainEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: othello, delivery_email: 'othello-new@example.org' },
    });
    const notice = await mailTo('othello@zulip.com');
    expect(notice.subject).toBe('Email address changed for Zulip Dev');
    expect(notice.text).toContain('othello-new@example.org');

    // The API key still works with the new address, and the link works once.
    const me = await t
      .http()
      .get('/api/v1/users/me')
      .auth('othello-new@example.org', await t.apiKey('othello@zulip.com'));
    expect(me.body.delivery_email).toBe('othello-new@example.org');
    const again = await t.http().get(link);
    expect(again.status).toBe(404);
    expect(again.text).toContain('Link not valid');
  });

  it('a newer request revokes the older link', async () => {
    await api(t, 'patch', PATH, 'cordelia@zulip.com', { email: 'cordelia-1@example.org' });
    const first = linkIn(await mailTo('cordelia-1@example.org'));
    await api(t, 'patch', PATH, 'cordelia@zulip.com', { email: 'cordelia-2@example.org' });
    const second = linkIn(await mailTo('cordelia-2@example.org'));
    expect((await t.http().get(first)).status).toBe(404);
    expect((await t.http().get(second)).status).toBe(200);
  });

  it('refuses a bad or taken address, and changes when the organization disables them', async () => {
    expectError(
      await api(t, 'patch', PATH, 'hamlet@zulip.com', { email: 'not-an-address' }),
      'patch',
      PATH,
      'Invalid address.',
    );
    expectError(
      await api(t, 'patch', PATH, 'hamlet@zulip.com', { email: 'IAGO@zulip.com' }),
      'patch',
      PATH,
      'Email is already in use.',
    );
    await t.dataSource.query('UPDATE realm SET email_changes_disabled = true');
    t.app.get(RealmService).invalidate();
    try {
      expectError(
        await api(t, 'patch', PATH, 'hamlet@zulip.com', { email: 'hamlet2@example.org' }),
        'patch',
        PATH,
        'Email address changes are disabled in this organization.',
      );
      // Administrators still may.
      expectSuccess(await api(t, 'patch', PATH, IAGO, { email: 'iago2@example.org' }), 'patch', PATH);
      await mailTo('iago2@example.org');
    } finally {
      await t.dataSource.query('UPDATE realm SET email_changes_disabled = false');
      t.app.get(RealmService).invalidate();
    }
    // The same address is no change at all: no email.
    expectSuccess(await api(t, 'patch', PATH, 'hamlet@zulip.com', { email: 'hamlet@zulip.com' }), 'patch', PATH);
  });

  it('checks again when the link is opened: an address taken meanwhile is refused', async () => {
    await api(t, 'patch', PATH, 'prospero@zulip.com', { email: 'contested@example.org' });
    const link = linkIn(await mailTo('contested@example.org'));
    // Someone else gets the address before the link is opened.
    await t.dataSource.query('UPDATE user_profile SET delivery_email = $1 WHERE id = $2', [
      'contested@example.org',
      await userId(t, 'aaron@zulip.com'),
    ]);
    const page = await t.http().get(link);
    expect(page.status).toBe(400);
    expect(page.text).toContain('Email is already in use.');
    expect((await api(t, 'get', '/users/me', 'prospero@zulip.com')).body.delivery_email).toBe('prospero@zulip.com');
  });

  it('answers unknown, malformed and expired links with the not-valid page', async () => {
    for (const key of ['abcdefghijklmnopqrstuvwx', 'NOT-A-KEY', 'x'.repeat(200)]) {
      const res = await t.http().get(`/accounts/confirm_new_email/${key}/`);
      expect(res.status).toBe(404);
    }
    await api(t, 'patch', PATH, 'ZOE@zulip.com', { email: 'zoe-late@example.org' });
    const link = linkIn(await mailTo('zoe-late@example.org'));
    await t.dataSource.query(`UPDATE email_change_status SET expires_at = now() - interval '1 second'`);
    expect((await t.http().get(link)).status).toBe(404);
  });
});
