import { RealmService } from '../../../src/realm/realm.service';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, expectError, expectSuccess, openQueue, takeEvents } from './helpers';

const IAGO = 'iago@zulip.com';
const HAMLET = 'hamlet@zulip.com';
const POLONIUS = 'polonius@zulip.com';

describe('PATCH /channel_folders (reorder)', () => {
  let t: TestApp;
  const ids: number[] = [];

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    for (const name of ['alpha', 'beta', 'gamma']) {
      const res = await call(t, 'post', '/channel_folders/create', IAGO, { name, description: '' });
      expectSuccess(res);
      ids.push((res.body as { channel_folder_id: number }).channel_folder_id);
    }
    // An archived folder is part of the order too.
    expectSuccess(await call(t, 'patch', `/channel_folders/${ids[2]}`, IAGO, { is_archived: true }));
  });
  afterAll(() => t.close());

  const reorder = async (email: string, order: unknown) => {
    const res = await call(t, 'patch', '/channel_folders', email, { order });
    expectMatchesOpenApi('patch', '/channel_folders', res.status, res.body);
    return res;
  };
  const listed = async () => {
    const res = await call(t, 'get', '/channel_folders', HAMLET, { include_archived: true });
    return (res.body as { channel_folders: Array<{ id: number; order: number }> }).channel_folders;
  };

  it('sets every folder’s order; the list follows it and everyone hears of it', async () => {
    const queue = await openQueue(t, POLONIUS, ['channel_folder']);
    const order = [ids[2], ids[0], ids[1]];
    expect((await reorder(IAGO, order)).body).toEqual({ result: 'success', msg: '' });
    const folders = await listed();
    expect(folders.map((f) => f.id)).toEqual(order);
    expect(folders.map((f) => f.order)).toEqual([0, 1, 2]);
    expect(await takeEvents(t, queue)).toEqual([{ type: 'channel_folder', op: 'reorder', order }]);
  });

  it('refuses anything but every folder once, and non-administrators', async () => {
    const before = await listed();
    const message = 'Invalid order mapping.';
    expectError(await reorder(IAGO, [ids[0], ids[1]]), 400, message);
    expectError(await reorder(IAGO, [ids[0], ids[1], ids[1]]), 400, message);
    expectError(await reorder(IAGO, [ids[0], ids[1], ids[2], 999_999]), 400, message);
    expectError(await reorder(IAGO, [ids[0], ids[1], 999_999]), 400, message);
    expectError(await reorder(IAGO, 'x'), 400, 'order is not valid JSON');
    expectError(
      await reorder(HAMLET, [...ids].reverse()),
      400,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expect(await listed()).toEqual(before);
  });

  it("another realm's folders are not this realm's", async () => {
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.dataSource.query(`INSERT INTO channel_folder (realm_id, name, "order") VALUES ($1, 'heath', 0)`, [lear.id]);
    const [{ id: foreign }] = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM channel_folder WHERE realm_id = $1`,
      [lear.id],
    );
    expectError(await reorder(IAGO, [ids[0], ids[1], foreign]), 400, 'Invalid order mapping.');
  });
});
