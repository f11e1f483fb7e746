/**
 * "Does it exist?" then INSERT can race: two identical requests at once must give one success
 * and Zulip's duplicate error, never a 500 (the unique index decides).
 */
import { call, HAMLET, IAGO } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('concurrent duplicate creations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function race(make: () => Promise<{ status: number; body: Record<string, unknown> }>, n = 6) {
    const results = await Promise.all(Array.from({ length: n }, make));
    expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    return results.filter((r) => r.status === 400).map((r) => r.body.msg);
  }

  it('user groups', async () => {
    const errors = await race(() =>
      call(t, 'post', '/user_groups/create', IAGO, { name: 'racers', description: 'x', members: [] }),
    );
    expect(new Set(errors)).toEqual(new Set(["User group 'racers' already exists."]));
  });

  it('custom profile fields', async () => {
    const errors = await race(() =>
      call(t, 'post', '/realm/profile_fields', IAGO, { name: 'Racing number', field_type: 1 }),
    );
    expect(new Set(errors)).toEqual(new Set(['A field with that label already exists.']));
  });

  it('navigation views', async () => {
    const errors = await race(() =>
      call(t, 'post', '/navigation_views', HAMLET, {
        fragment: 'narrow/channel/racing',
        is_pinned: true,
        name: 'Racing',
      }),
    );
    expect(new Set(errors)).toEqual(new Set(['Navigation view already exists.']));
  });

  it('users', async () => {
    const errors = await race(() =>
      call(t, 'post', '/users', IAGO, { email: 'racer@zulip.com', password: 'racing-car-42', full_name: 'Racer' }),
    );
    expect(errors.length).toBeGreaterThan(0);
    for (const msg of errors) expect(msg).toMatch(/already in use/);
  });
});
