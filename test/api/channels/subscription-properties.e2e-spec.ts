import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, expectSuccess, openQueue, takeEvents } from './helpers';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';

type Sub = Record<string, unknown> & { stream_id: number };

describe('POST /users/me/subscriptions/properties', () => {
  let t: TestApp;
  let verona: number;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    verona = await channelId(t, 'Verona');
  });
  afterAll(() => t.close());

  const update = async (email: string, data: unknown) => {
    const res = await call(t, 'post', '/users/me/subscriptions/properties', email, { subscription_data: data });
    if ((res.body as { code?: string }).code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi('post', '/users/me/subscriptions/properties', res.status, res.body);
    }
    return res;
  };
  const subscription = async (email: string, streamId: number): Promise<Sub> => {
    const res = await call(t, 'get', '/users/me/subscriptions', email);
    return (res.body as { subscriptions: Sub[] }).subscriptions.find((s) => s.stream_id === streamId)!;
  };

  it.each([
    ['color', '#ff00aa'],
    ['color', '#abc'],
    ['pin_to_top', true],
    ['desktop_notifications', true],
    ['audible_notifications', false],
    ['push_notifications', true],
    ['email_notifications', false],
    ['wildcard_mentions_notify', true],
  ])('sets %s to %j, with one event', async (property, value) => {
    const q = await openQueue(t, HAMLET, ['subscription']);
    const res = await update(HAMLET, [{ stream_id: verona, property, value }]);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect((await subscription(HAMLET, verona))[property]).toEqual(value);
    expect(await takeEvents(t, q)).toEqual([
      { type: 'subscription', op: 'update', stream_id: verona, property, value },
    ]);
  });

  it('is_muted: two events, in_home_view first', async () => {
    const q = await openQueue(t, HAMLET, ['subscription']);
    expectSuccess(await update(HAMLET, [{ stream_id: verona, property: 'is_muted', value: true }]));
    expect(await subscription(HAMLET, verona)).toMatchObject({ is_muted: true, in_home_view: false });
    expect(await takeEvents(t, q)).toEqual([
      { type: 'subscription', op: 'update', stream_id: verona, property: 'in_home_view', value: false },
      { type: 'subscription', op: 'update', stream_id: verona, property: 'is_muted', value: true },
    ]);
  });

  it('in_home_view is the inverse of is_muted, also with two events', async () => {
    const q = await openQueue(t, HAMLET, ['subscription']);
    expectSuccess(await update(HAMLET, [{ stream_id: verona, property: 'in_home_view', value: true }]));
    expect(await subscription(HAMLET, verona)).toMatchObject({ is_muted: false, in_home_view: true });
    expect(await takeEvents(t, q)).toEqual([
      { type: 'subscription', op: 'update', stream_id: verona, property: 'in_home_view', value: true },
      { type: 'subscription', op: 'update', stream_id: verona, property: 'is_muted', value: false },
    ]);
  });

  it('several changes in one request', async () => {
    const denmark = await channelId(t, 'Denmark');
    expectSuccess(
      await update(HAMLET, [
        { stream_id: verona, property: 'pin_to_top', value: false },
        { stream_id: denmark, property: 'color', value: '#000000' },
      ]),
    );
    expect((await subscription(HAMLET, denmark)).color).toBe('#000000');
  });

  it('reports unsupported parameters', async () => {
    const res = await call(t, 'post', '/users/me/subscriptions/properties', HAMLET, {
      subscription_data: [{ stream_id: verona, property: 'pin_to_top', value: true }],
      invalid_parameter: 'x',
    });
    expect(res.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['invalid_parameter'] });
  });

  it.each([
    [
      [{ stream_id: 1, property: 'color', value: false }],
      'Invalid subscription_data[0]: Value error, color is not a valid hex color code',
    ],
    [
      [{ stream_id: 1, property: 'color', value: '#12345g' }],
      'Invalid subscription_data[0]: Value error, color is not a valid hex color code',
    ],
    [[{ stream_id: 1, property: 'is_muted', value: 'bad' }], 'is_muted is not a boolean'],
    [[{ stream_id: 1, property: 'in_home_view', value: 'bad' }], 'in_home_view is not a boolean'],
    [[{ stream_id: 1, property: 'bad', value: true }], 'Unknown subscription property: bad'],
    [[{ property: 'color', value: '#000' }], 'subscription_data[0]["stream_id"] field is missing: Field required'],
    [[{ stream_id: 1, value: '#000' }], 'subscription_data[0]["property"] field is missing: Field required'],
    [[{ stream_id: 1, property: 'color' }], 'subscription_data[0]["value"] field is missing: Field required'],
    [[{ stream_id: 'x', property: 'color', value: '#000' }], 'subscription_data[0]["stream_id"] is not an integer'],
    [
      ['x'],
      'Invalid subscription_data[0]: Input should be a valid dictionary or instance of SubscriptionPropertyChangeRequest',
    ],
    [{}, 'subscription_data is not a list'],
  ])('%j → %s', async (data, msg) => {
    expectError(await update(HAMLET, data), 400, msg);
  });

  it('needs subscription_data', async () => {
    expectError(
      await call(t, 'post', '/users/me/subscriptions/properties', HAMLET, {}),
      400,
      "Missing 'subscription_data' argument",
      'REQUEST_VARIABLE_MISSING',
    );
  });

  it('per-channel errors', async () => {
    expectError(
      await update(HAMLET, [{ stream_id: 999999, property: 'pin_to_top', value: true }]),
      400,
      'Invalid channel ID',
    );
    const scotland = await channelId(t, 'Scotland');
    expectError(
      await update(HAMLET, [{ stream_id: scotland, property: 'pin_to_top', value: true }]),
      400,
      `Not subscribed to channel ID ${scotland}`,
    );
    expectError(
      await update(OTHELLO, [{ stream_id: await channelId(t, 'core team'), property: 'pin_to_top', value: true }]),
      400,
      'Invalid channel ID',
    );
  });

  it('changes nothing when a later item fails (all or nothing; Zulip keeps the earlier items)', async () => {
    const before = await subscription(HAMLET, verona);
    const queue = await openQueue(t, HAMLET, ['subscription']);
    const res = await update(HAMLET, [
      { stream_id: verona, property: 'color', value: '#111111' },
      { stream_id: 999999, property: 'color', value: '#222222' },
    ]);
    expectError(res, 400, 'Invalid channel ID');
    const scotland = await channelId(t, 'Scotland');
    expectError(
      await update(HAMLET, [
        { stream_id: verona, property: 'pin_to_top', value: !before.pin_to_top },
        { stream_id: scotland, property: 'pin_to_top', value: true },
      ]),
      400,
      `Not subscribed to channel ID ${scotland}`,
    );
    expect(await subscription(HAMLET, verona)).toEqual(before);
    expect(await takeEvents(t, queue)).toEqual([]);
  });

  it('refuses archived channels', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'to archive' }] }),
    );
    const id = await channelId(t, 'to archive');
    expectSuccess(await call(t, 'delete', `/streams/${id}`, HAMLET));
    expectError(
      await update(HAMLET, [{ stream_id: id, property: 'pin_to_top', value: true }]),
      400,
      'Invalid channel ID',
    );
  });
});
