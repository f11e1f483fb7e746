import { startTestApp, TestApp } from '../../helpers/test-app';
import { api, events, expectError, expectSuccess, HAMLET, OTHELLO, POLONIUS, queue } from './helpers';

const LIST = '/navigation_views';
const ONE = '/navigation_views/{fragment}';

describe('navigation views', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function list(email = HAMLET) {
    return expectSuccess(await api(t, 'get', LIST, email), 'get', LIST).navigation_views as Array<
      Record<string, unknown>
    >;
  }

  it('starts empty', async () => {
    expect(await list()).toEqual([]);
  });

  it('POST adds built-in and custom views, with navigation_view add events to the user only', async () => {
    const mine = await queue(t, HAMLET, ['navigation_view']);
    const theirs = await queue(t, OTHELLO, ['navigation_view']);
    expectSuccess(await api(t, 'post', LIST, HAMLET, { fragment: 'inbox', is_pinned: false }), 'post', LIST);
    expectSuccess(
      await api(t, 'post', LIST, HAMLET, { fragment: ' narrow/is/alerted ', is_pinned: true, name: ' Alert Words ' }),
      'post',
      LIST,
    );
    expect(await list()).toEqual([
      { fragment: 'inbox', is_pinned: false, name: null },
      { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Words' },
    ]);
    expect(await events(t, mine)).toEqual([
      { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'inbox', is_pinned: false, name: null } },
      {
        type: 'navigation_view',
        op: 'add',
        navigation_view: { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Words' },
      },
    ]);
    expect(await events(t, theirs)).toEqual([]);
    expect(await list(OTHELLO)).toEqual([]);
    // Guests have navigation views too.
    expectSuccess(await api(t, 'post', LIST, POLONIUS, { fragment: 'recent', is_pinned: true }), 'post', LIST);
  });

  it('POST checks built-in names, custom names, duplicates and blanks', async () => {
    const err = (params: Record<string, unknown>, msg: string) =>
      api(t, 'post', LIST, HAMLET, params).then((res) => expectError(res, 'post', LIST, msg));
    await err({ fragment: 'recent', is_pinned: true, name: 'foo' }, 'Built-in views cannot have a custom name.');
    await err({ fragment: 'narrow/view', is_pinned: true }, 'Custom views must have a valid name.');
    await err({ fragment: 'inbox', is_pinned: true }, 'Navigation view already exists.');
    await err({ fragment: 'narrow/other', is_pinned: true, name: 'Alert Words' }, 'Navigation view already exists.');
    await err({ fragment: '', is_pinned: true }, 'fragment cannot be blank');
    await err({ fragment: '   ', is_pinned: true }, 'fragment cannot be blank');
    await err({ fragment: 'narrow/x', is_pinned: true, name: '  ' }, 'name cannot be blank');
    await err({ fragment: 'narrow/x', is_pinned: 'maybe', name: 'x' }, 'is_pinned is not valid JSON');
    const missing = await api(t, 'post', LIST, HAMLET, { fragment: 'narrow/x' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'is_pinned' argument" });
  });

  it('PATCH updates views addressed by fragments with slashes', async () => {
    const q = await queue(t, HAMLET, ['navigation_view']);
    const res = await api(t, 'patch', '/navigation_views/narrow/is/alerted', HAMLET, {
      is_pinned: false,
      name: 'Alerts',
    });
    expectSuccess(res, 'patch', ONE);
    expectSuccess(await api(t, 'patch', '/navigation_views/inbox', HAMLET, { is_pinned: true }), 'patch', ONE);
    expect(await list()).toEqual([
      { fragment: 'inbox', is_pinned: true, name: null },
      { fragment: 'narrow/is/alerted', is_pinned: false, name: 'Alerts' },
    ]);
    expect(await events(t, q)).toEqual([
      {
        type: 'navigation_view',
        op: 'update',
        fragment: 'narrow/is/alerted',
        data: { name: 'Alerts', is_pinned: false },
      },
      { type: 'navigation_view', op: 'update', fragment: 'inbox', data: { is_pinned: true } },
    ]);
    // An encoded slash means the same fragment.
    expectSuccess(
      await api(t, 'patch', '/navigation_views/narrow%2Fis%2Falerted', HAMLET, { is_pinned: true }),
      'patch',
      ONE,
    );
    expect((await list())[1].is_pinned).toBe(true);
  });

  it('PATCH errors: built-in names, taken names, unknown views (404 NOT_FOUND)', async () => {
    expectError(
      await api(t, 'patch', '/navigation_views/inbox', HAMLET, { name: 'My inbox' }),
      'patch',
      ONE,
      'Built-in views cannot have a custom name.',
    );
    expectError(
      await api(t, 'patch', '/navigation_views/narrow/is/alerted', HAMLET, { name: 'Alerts' }),
      'patch',
      ONE,
      'Navigation view already exists.',
    );
    expectError(
      await api(t, 'patch', '/navigation_views/narrow/is/nothing', HAMLET, { is_pinned: true }),
      'patch',
      ONE,
      'Navigation view does not exist.',
      'NOT_FOUND',
      404,
    );
    expectError(
      await api(t, 'patch', '/navigation_views/recent', HAMLET, { is_pinned: true }),
      'patch',
      ONE,
      'Navigation view does not exist.',
      'NOT_FOUND',
      404,
    );
    expectError(
      await api(t, 'patch', '/navigation_views/inbox', OTHELLO, { is_pinned: true }),
      'patch',
      ONE,
      'Navigation view does not exist.',
      'NOT_FOUND',
      404,
    );
    expectError(
      await api(t, 'patch', '/navigation_views/inbox', HAMLET, { is_pinned: 'x' }),
      'patch',
      ONE,
      'is_pinned is not valid JSON',
    );
  });

  it('DELETE removes a view with a remove event', async () => {
    const q = await queue(t, HAMLET, ['navigation_view']);
    expectSuccess(await api(t, 'delete', '/navigation_views/narrow/is/alerted', HAMLET), 'delete', ONE);
    expect(await list()).toEqual([{ fragment: 'inbox', is_pinned: true, name: null }]);
    expect(await events(t, q)).toEqual([{ type: 'navigation_view', op: 'remove', fragment: 'narrow/is/alerted' }]);
    expectError(
      await api(t, 'delete', '/navigation_views/narrow/is/alerted', HAMLET),
      'delete',
      ONE,
      'Navigation view does not exist.',
      'NOT_FOUND',
      404,
    );
  });

  it('appears in POST /register', async () => {
    const res = await api(t, 'post', '/register', HAMLET, { fetch_event_types: ['navigation_views'] });
    expect(res.body.navigation_views).toEqual([{ fragment: 'inbox', is_pinned: true, name: null }]);
  });
});
