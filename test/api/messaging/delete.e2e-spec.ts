import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Clock } from '../../../src/messaging/clock';
import {
  call,
  channelId,
  CORDELIA,
  expectError,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  sendChannel,
  sendDirect,
  setChannel,
  setRealm,
  SHIVA,
  systemGroupId,
  takeEvents,
  userId,
} from './helpers';

describe('DELETE /messages/{message_id}', () => {
  let t: TestApp;
  const del = (email: string, id: number) => call(t, 'delete', `/messages/${id}`, email);
  const exists = async (id: number) =>
    (await t.dataSource.query<unknown[]>(`SELECT 1 FROM message WHERE id = $1`, [id])).length > 0;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.app.get(Clock).reset());
  afterAll(() => t.close());

  it('the sender deletes their message: rows, reactions gone; events (bulk and legacy)', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'delete me', 'bye');
    await call(t, 'post', `/messages/${id}/reactions`, OTHELLO, { emoji_name: 'octopus' });
    const bulk = await openQueue(t, OTHELLO, ['delete_message'], {
      client_capabilities: { bulk_message_deletion: true },
    });
    const legacy = await openQueue(t, HAMLET, ['delete_message']);
    const res = await del(HAMLET, id);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('delete', '/messages/{message_id}', 200, res.body);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await exists(id)).toBe(false);
    const left = await t.dataSource.query<unknown[]>(
      `SELECT 1 FROM user_message WHERE message_id = $1 UNION ALL SELECT 1 FROM reaction WHERE message_id = $1`,
      [id],
    );
    expect(left).toHaveLength(0);
    const verona = await channelId(t, 'Verona');
    expect(await takeEvents(t, bulk)).toEqual([
      { type: 'delete_message', message_ids: [id], message_type: 'stream', stream_id: verona, topic: 'delete me' },
    ]);
    expect(await takeEvents(t, legacy)).toEqual([
      { type: 'delete_message', message_id: id, message_type: 'stream', stream_id: verona, topic: 'delete me' },
    ]);
    // Deleting again: the message is gone.
    expectError(await del(HAMLET, id), 400, 'Invalid message(s)');
  });

  it('permissions: others refused, administrators allowed, moderators by channel setting', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'perm', 'x');
    const res = await del(OTHELLO, id);
    expectError(res, 400, "You don't have permission to delete this message");
    expectMatchesOpenApi('delete', '/messages/{message_id}', 400, res.body);
    expectError(await del(SHIVA, id), 400, "You don't have permission to delete this message");
    await setChannel(t, 'Verona', { can_delete_any_message_group: await systemGroupId(t, 'role:moderators') });
    expect((await del(SHIVA, id)).status).toBe(200);
    await setChannel(t, 'Verona', { can_delete_any_message_group: await systemGroupId(t, 'role:nobody') });
    const id2 = await sendChannel(t, HAMLET, 'Verona', 'perm', 'y');
    expect((await del(IAGO, id2)).status).toBe(200);
  });

  it('own-message permission: realm group, then the channel group', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'own', 'x');
    await setRealm(t, { can_delete_own_message_group: await systemGroupId(t, 'role:administrators') });
    expectError(await del(HAMLET, id), 400, "You don't have permission to delete this message");
    await setChannel(t, 'Verona', { can_delete_own_message_group: await systemGroupId(t, 'role:members') });
    expect((await del(HAMLET, id)).status).toBe(200);
    const dm = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'dm');
    expectError(await del(HAMLET, dm), 400, "You don't have permission to delete this message");
    await setRealm(t, { can_delete_own_message_group: await systemGroupId(t, 'role:everyone') });
    await setChannel(t, 'Verona', { can_delete_own_message_group: await systemGroupId(t, 'role:nobody') });
    const q = await openQueue(t, OTHELLO, ['delete_message'], { client_capabilities: { bulk_message_deletion: true } });
    expect((await del(HAMLET, dm)).status).toBe(200);
    expect(await takeEvents(t, q)).toEqual([{ type: 'delete_message', message_ids: [dm], message_type: 'private' }]);
  });

  it('time limit without grace; administrators are not bound by it', async () => {
    const id = await sendChannel(t, HAMLET, 'Verona', 'late', 'x');
    t.app.get(Clock).advance(601 * 1000);
    expectError(await del(HAMLET, id), 400, 'The time limit for deleting this message has passed');
    expect((await del(IAGO, id)).status).toBe(200);
  });

  it('no access looks like no message; first_message_id stays right', async () => {
    const create = await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'secret delete' }],
      invite_only: true,
    });
    expect(create.status).toBe(200);
    const sid = await channelId(t, 'secret delete');
    const ids = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT m.id FROM message m JOIN stream s ON s.recipient_id = m.recipient_id WHERE s.id = $1 ORDER BY m.id`,
      [sid],
    );
    const secret = await sendChannel(t, IAGO, 'secret delete', 'x', 'hidden');
    expectError(await del(HAMLET, secret), 400, 'Invalid message(s)');
    expectError(await del(HAMLET, 999999999), 400, 'Invalid message(s)');
    expect(await exists(secret)).toBe(true);
    for (const { id } of ids) expect((await del(IAGO, id)).status).toBe(200);
    let first = await t.dataSource.query<Array<{ first_message_id: number | null }>>(
      `SELECT first_message_id FROM stream WHERE id = $1`,
      [sid],
    );
    expect(first[0].first_message_id).toBe(secret);
    expect((await del(IAGO, secret)).status).toBe(200);
    first = await t.dataSource.query(`SELECT first_message_id FROM stream WHERE id = $1`, [sid]);
    expect(first[0].first_message_id).toBeNull();
    void CORDELIA;
  });
});
