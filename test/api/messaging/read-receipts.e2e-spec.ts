import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  AARON,
  BOT,
  call,
  CORDELIA,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  sendChannel,
  sendDirect,
  setRealm,
  setUser,
  userId,
} from './helpers';

describe('GET /messages/{message_id}/read_receipts', () => {
  let t: TestApp;
  const receipts = (email: string, id: number | string) => call(t, 'get', `/messages/${id}/read_receipts`, email);
  const markRead = async (email: string, id: number) => {
    const res = await call(t, 'post', '/messages/flags', email, { messages: [id], op: 'add', flag: 'read' });
    expect(res.status).toBe(200);
  };
  async function readers(email: string, id: number): Promise<number[]> {
    const res = await receipts(email, id);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/messages/{message_id}/read_receipts', 200, res.body);
    return (res.body as { user_ids: number[] }).user_ids;
  }

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("lists who read the message, never the sender, honouring each user's send_read_receipts", async () => {
    const id = await sendChannel(t, OTHELLO, 'Verona', 'read receipts', 'hello');
    expect(await readers(AARON, id)).toEqual([]);
    await markRead(HAMLET, id);
    await markRead(CORDELIA, id);
    await markRead(OTHELLO, id); // the sender's own row is read anyway
    const [hamlet, cordelia] = [await userId(t, HAMLET), await userId(t, CORDELIA)];
    expect(await readers(AARON, id)).toEqual([hamlet, cordelia].sort((a, b) => a - b));

    await setUser(t, CORDELIA, { send_read_receipts: false });
    try {
      expect(await readers(AARON, id)).toEqual([hamlet]);
    } finally {
      await setUser(t, CORDELIA, { send_read_receipts: true });
    }
    // Marking unread removes the receipt.
    await call(t, 'post', '/messages/flags', HAMLET, { messages: [id], op: 'remove', flag: 'read' });
    expect(await readers(AARON, id)).toEqual([cordelia]);
  });

  it('counts bots and historical rows, and leaves out deactivated users', async () => {
    const id = await sendChannel(t, IAGO, 'Denmark', 'receipts more', 'x');
    // Cordelia is not subscribed to Denmark: starring creates a read historical row.
    await call(t, 'post', '/messages/flags', CORDELIA, { messages: [id], op: 'add', flag: 'starred' });
    const bot = await userId(t, BOT);
    const dm = await sendDirect(t, HAMLET, [bot, await userId(t, OTHELLO)], 'to a bot');
    await markRead(BOT, dm);
    await markRead(OTHELLO, dm);
    expect(await readers(HAMLET, id)).toEqual([await userId(t, CORDELIA)]);
    expect(await readers(HAMLET, dm)).toEqual([await userId(t, OTHELLO), bot].sort((a, b) => a - b));
    await setUser(t, OTHELLO, { is_active: false });
    try {
      expect(await readers(HAMLET, dm)).toEqual([bot]);
      // A bot may ask too.
      expect(await readers(BOT, dm)).toEqual([bot]);
    } finally {
      await setUser(t, OTHELLO, { is_active: true });
    }
  });

  it('refuses inaccessible messages first, then a realm without read receipts', async () => {
    const core = await sendChannel(t, IAGO, 'core team', 'secret', 'x');
    const pub = await sendChannel(t, IAGO, 'Denmark', 'receipts guest', 'x');
    const dm = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'private');
    for (const [email, id] of [
      [CORDELIA, core],
      [PROSPERO, dm],
      [POLONIUS, pub], // a guest and public history
      [HAMLET, 2_000_000_000],
      [HAMLET, 99_999_999_999],
    ] as Array<[string, number]>) {
      const res = await receipts(email, id);
      expectError(res, 400, 'Invalid message(s)');
      expectMatchesOpenApi('get', '/messages/{message_id}/read_receipts', 400, res.body);
    }
    expect((await receipts(HAMLET, 'abc')).status).toBe(404);

    await setRealm(t, { enable_read_receipts: false });
    try {
      expectError(await receipts(CORDELIA, core), 400, 'Invalid message(s)');
      expectError(await receipts(HAMLET, pub), 400, 'Read receipts are disabled in this organization.');
    } finally {
      await setRealm(t, { enable_read_receipts: true });
    }

    // A user of another realm gets the nonexistent-message answer.
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'learreceipts', name: 'Lear receipts' });
    await t.app.get(UsersService).createUser(lear, { email: 'edmund@lear.example', fullName: 'Edmund' });
    await t.dataSource.query(`UPDATE realm SET enable_read_receipts = true WHERE id = $1`, [lear.id]);
    t.app.get(RealmService).invalidate();
    const res = await t
      .http()
      .get(`/api/v1/messages/${pub}/read_receipts`)
      .set('Host', 'learreceipts.zulip.testserver')
      .auth(...(await t.auth('edmund@lear.example', 'learreceipts')));
    expectError(res, 400, 'Invalid message(s)');
  });
});
