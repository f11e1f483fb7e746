import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, expectError, HAMLET, IAGO, OTHELLO, sendChannel, sendDirect, setRealm, userId } from './helpers';

describe('POST /messages/{message_id}/report', () => {
  let t: TestApp;
  const report = (email: string, id: number, params: Record<string, unknown>) =>
    call(t, 'post', `/messages/${id}/report`, email, params);
  const lastInCoreTeam = async () =>
    (
      await t.dataSource.query<Array<{ content: string; subject: string; sender: string }>>(
        `SELECT m.content, m.subject, u.full_name AS sender FROM message m JOIN stream s ON s.recipient_id = m.recipient_id
           JOIN user_profile u ON u.id = m.sender_id WHERE s.name = 'core team' ORDER BY m.id DESC LIMIT 1`,
      )
    )[0];

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reports a channel message to the moderation channel', async () => {
    const id = await sendChannel(t, OTHELLO, 'Verona', 'bad', 'buy now');
    const res = await report(HAMLET, id, { report_type: 'spam', description: 'ads' });
    expect(res.status).toBe(200);
    expectMatchesOpenApi('post', '/messages/{message_id}/report', 200, res.body);
    const notice = await lastInCoreTeam();
    expect(notice.sender).toBe('Notification Bot');
    expect(notice.subject).toBe('Othello, the Moor of Venice moderation');
    const hamlet = await userId(t, HAMLET);
    const othello = await userId(t, OTHELLO);
    expect(notice.content).toMatch(
      new RegExp(
        `^@_\\*\\*King Hamlet\\|${hamlet}\\*\\* reported a message sent by @_\\*\\*Othello, the Moor of Venice\\|${othello}\\*\\* at <time:[^>]+>\\.\\n` +
          '```quote\\n\\*\\*Spam\\*\\*\\. ads\\n```\\n\\n``` spoiler Original message at #\\*\\*Verona>bad@' +
          id +
          '\\*\\*\\nbuy now\\n```$',
      ),
    );
  });

  it('reports a direct message', async () => {
    const id = await sendDirect(t, OTHELLO, [await userId(t, HAMLET)], 'rude');
    expect((await report(HAMLET, id, { report_type: 'harassment' })).status).toBe(200);
    expect((await lastInCoreTeam()).content).toMatch(
      /reported a direct message sent by .* at <time:.*\*\*Harassment\*\*\. \n```\n\n``` spoiler \[Original message\]\(http.*#narrow\/dm\//s,
    );
  });

  it('refuses in Zulip order', async () => {
    const id = await sendChannel(t, OTHELLO, 'Verona', 'bad', 'x');
    const bad = await report(HAMLET, id, { report_type: 'nope' });
    expectError(bad, 400, 'Invalid report_type: Value error, Not in the list of possible values');
    expectMatchesOpenApi('post', '/messages/{message_id}/report', 400, bad.body);
    expectError(await report(HAMLET, id, { report_type: 'other' }), 400, 'An explanation is required.');
    expectError(
      await report(HAMLET, id, { report_type: 'other', description: '  ' }),
      400,
      'An explanation is required.',
    );
    expectError(
      await report(HAMLET, id, { report_type: 'spam', description: 'x'.repeat(1001) }),
      400,
      'description is too long (limit: 1000 characters)',
    );
    expectError(await report(HAMLET, id, {}), 400, "Missing 'report_type' argument", 'REQUEST_VARIABLE_MISSING');
    // No access and no message look the same.
    const dm = await sendDirect(t, OTHELLO, [await userId(t, IAGO)], 'private');
    expectError(await report(HAMLET, dm, { report_type: 'spam' }), 400, 'Invalid message(s)');
    expectError(await report(HAMLET, 999999999, { report_type: 'spam' }), 400, 'Invalid message(s)');
    // Reporting disabled is checked before message access.
    await setRealm(t, { moderation_request_channel_id: null });
    expectError(
      await report(HAMLET, 999999999, { report_type: 'spam' }),
      400,
      'Message reporting is not enabled in this organization.',
    );
  });
});
