import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, expectSuccess, openQueue, takeEvents, userId } from './helpers';

const IAGO = 'iago@zulip.com';
const HAMLET = 'hamlet@zulip.com';
const POLONIUS = 'polonius@zulip.com';

type Folder = Record<string, unknown> & { id: number; name: string };

describe('channel folders', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
  });
  afterAll(() => t.close());

  const create = async (email: string, params: Record<string, unknown>) => {
    const res = await call(t, 'post', '/channel_folders/create', email, params);
    if ((res.body as { code?: string }).code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi('post', '/channel_folders/create', res.status, res.body);
    }
    return res;
  };
  const update = async (email: string, id: number, params: Record<string, unknown>) => {
    const res = await call(t, 'patch', `/channel_folders/${id}`, email, params);
    expectMatchesOpenApi('patch', '/channel_folders/{channel_folder_id}', res.status, res.body);
    return res;
  };
  const list = async (email: string, params: Record<string, unknown> = {}): Promise<Folder[]> => {
    const res = await call(t, 'get', '/channel_folders', email, params);
    expectSuccess(res);
    expectMatchesOpenApi('get', '/channel_folders', 200, res.body);
    return (res.body as { channel_folders: Folder[] }).channel_folders;
  };

  let frontend: number;

  it('administrators create folders; everyone hears about it', async () => {
    const guestQ = await openQueue(t, POLONIUS, ['channel_folder']);
    const res = await create(IAGO, { name: 'Frontend', description: 'Channels for **frontend** work' });
    expectSuccess(res);
    frontend = (res.body as { channel_folder_id: number }).channel_folder_id;
    expect(res.body).toEqual({ result: 'success', msg: '', channel_folder_id: frontend });
    const folder = {
      id: frontend,
      name: 'Frontend',
      description: 'Channels for **frontend** work',
      rendered_description: expect.stringContaining('frontend') as unknown,
      order: 0,
      creator_id: await userId(t, IAGO),
      date_created: expect.any(Number) as unknown,
      is_archived: false,
    };
    expect(await takeEvents(t, guestQ)).toEqual([{ type: 'channel_folder', op: 'add', channel_folder: folder }]);
    expect(await list(HAMLET)).toEqual([folder]);
  });

  it('orders folders by creation', async () => {
    expectSuccess(await create(IAGO, { name: 'Backend', description: '' }));
    expect((await list(HAMLET)).map((f) => [f.name, f.order])).toEqual([
      ['Frontend', 0],
      ['Backend', 1],
    ]);
  });

  it.each([
    [{ description: 'd' }, "Missing 'name' argument", 'REQUEST_VARIABLE_MISSING'],
    [{ name: 'n' }, "Missing 'description' argument", 'REQUEST_VARIABLE_MISSING'],
    [{ name: 'x'.repeat(61), description: '' }, 'name is too long (limit: 60 characters)', 'BAD_REQUEST'],
    [{ name: 'ok', description: 'x'.repeat(1025) }, 'description is too long (limit: 1024 characters)', 'BAD_REQUEST'],
    [{ name: '', description: '' }, "Channel folder name can't be empty.", 'BAD_REQUEST'],
    [{ name: 'abc\0', description: '' }, 'Invalid character in channel folder name, at position 4.', 'BAD_REQUEST'],
    [{ name: 'frontend', description: '' }, 'Channel folder name already in use', 'BAD_REQUEST'],
  ])('create %j → %s', async (params, msg, code) => {
    expectError(await create(IAGO, params), 400, msg, code);
  });

  it('only administrators create and update, checked before the parameters', async () => {
    expectError(await create(HAMLET, {}), 400, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    expectError(
      await update(HAMLET, frontend, { name: 'x' }),
      400,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
  });

  it('updates name and description, with events', async () => {
    const q = await openQueue(t, HAMLET, ['channel_folder']);
    expectSuccess(await update(IAGO, frontend, { name: 'Web', description: 'All things web' }));
    expect(await takeEvents(t, q)).toEqual([
      { type: 'channel_folder', op: 'update', channel_folder_id: frontend, data: { name: 'Web' } },
      {
        type: 'channel_folder',
        op: 'update',
        channel_folder_id: frontend,
        data: { description: 'All things web', rendered_description: '<p>All things web</p>' },
      },
    ]);
    // Unchanged values: nothing to send.
    expectSuccess(await update(IAGO, frontend, { name: 'Web', description: 'All things web' }));
    expect(await takeEvents(t, q)).toEqual([]);
  });

  it.each([
    [{ name: '' }, "Channel folder name can't be empty."],
    [{ name: 'BACKEND' }, 'Channel folder name already in use'],
    [{ name: 'WEB' }, 'Channel folder name already in use'],
    [{ name: 'x'.repeat(61) }, 'name is too long (limit: 60 characters)'],
    [{ is_archived: 'yes' }, 'is_archived is not valid JSON'],
  ])('update %j → %s', async (params, msg) => {
    expectError(await update(IAGO, frontend, params), 400, msg);
  });

  it('unknown folders', async () => {
    expectError(await update(IAGO, 999999, { name: 'x' }), 400, 'Invalid channel folder ID');
  });

  it('archives only empty folders, and unarchives', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name: 'in a folder' }],
        folder_id: frontend,
      }),
    );
    expectError(
      await update(IAGO, frontend, { is_archived: true }),
      400,
      'You need to remove all the channels from this folder to archive it.',
    );
    expectSuccess(await call(t, 'patch', `/streams/${await channelId(t, 'in a folder')}`, IAGO, { folder_id: null }));
    const q = await openQueue(t, HAMLET, ['channel_folder']);
    expectSuccess(await update(IAGO, frontend, { is_archived: true }));
    expect(await takeEvents(t, q)).toEqual([
      { type: 'channel_folder', op: 'update', channel_folder_id: frontend, data: { is_archived: true } },
    ]);
    expect((await list(HAMLET)).map((f) => f.name)).toEqual(['Backend']);
    expect((await list(HAMLET, { include_archived: true })).map((f) => [f.name, f.is_archived])).toEqual([
      ['Web', true],
      ['Backend', false],
    ]);
    expectSuccess(await update(IAGO, frontend, { is_archived: false }));
    expect((await list(HAMLET)).map((f) => f.name)).toEqual(['Web', 'Backend']);
  });

  it('names of archived folders stay taken (Zulip checks all folders)', async () => {
    expectSuccess(await update(IAGO, frontend, { is_archived: true }));
    expectError(await create(IAGO, { name: 'web', description: '' }), 400, 'Channel folder name already in use');
    expectSuccess(await update(IAGO, frontend, { is_archived: false }));
  });

  it('concurrent creations of one name: one folder, the rest refused cleanly', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => create(IAGO, { name: 'Race', description: '' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 400, 'Channel folder name already in use');
  });
});
