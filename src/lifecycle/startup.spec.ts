import { explainDatabaseError, explainListenError, maskUrl } from './startup';

describe('start-up failures in one sentence', () => {
  const url = 'postgres://zulip:s3cret@db.example:5432/zulip';

  it('masks the password of a URL', () => {
    expect(maskUrl(url)).toBe('postgres://zulip:****@db.example:5432/zulip');
    expect(maskUrl('postgres://zulip@db/zulip')).toBe('postgres://zulip@db/zulip');
    expect(maskUrl('not a url')).toBe('(an invalid URL)');
  });

  it.each([
    [
      'ECONNREFUSED',
      /^Cannot reach PostgreSQL at postgres:\/\/zulip:\*\*\*\*@db\.example:5432\/zulip \(connection refused\)\. Start PostgreSQL/,
    ],
    ['ENOTFOUND', /\(unknown host\)/],
    ['28P01', /refused the credentials of user "zulip"\. Correct the user name and password in DATABASE_URL\.$/],
    ['3D000', /has no database "zulip"\. Create it \(createdb zulip\)/],
  ])('explains %s without the password', (code, expected) => {
    const err = explainDatabaseError(Object.assign(new Error('x'), { code }), url);
    expect(err?.message).toMatch(expected);
    expect(err?.message).not.toContain('s3cret');
    expect(err?.message.split('. ').length).toBeLessThanOrEqual(3);
  });

  it('leaves unknown errors alone', () => {
    expect(explainDatabaseError(new Error('syntax error'), url)).toBeUndefined();
  });

  it('explains a port in use and a forbidden port', () => {
    expect(explainListenError({ code: 'EADDRINUSE' }, '127.0.0.1', 9991)?.message).toBe(
      'Port 9991 on 127.0.0.1 is already in use. Stop the program using it, or set PORT to a free port.',
    );
    expect(explainListenError({ code: 'EACCES' }, '0.0.0.0', 80)?.message).toMatch(/^Not allowed to listen on port 80/);
    expect(explainListenError({ code: 'EOTHER' }, '0.0.0.0', 80)).toBeUndefined();
  });
});
