/**
 * POST /register stays cheap: the number of SQL statements it sends does not grow with the
 * number of channels, subscriptions or users (no N+1 queries).
 */
import { RegisterService } from '../../../src/register/register.service';
import { countQueriesDuring, MethodQueryCounter } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { HAMLET, IAGO, ok, register } from './helpers';

const FULL = { include_subscribers: 'true', client_gravatar: false, apply_markdown: true };
/** What zulip-flutter sends (README.md of src/register): everything, slim presence, its capabilities. */
const FLUTTER = {
  apply_markdown: true,
  slim_presence: true,
  client_gravatar: false,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: false,
    stream_typing_notifications: true,
    user_settings_object: true,
    include_deactivated_groups: true,
    empty_topic_name: true,
  },
};

describe('POST /register query count', () => {
  let t: TestApp;
  let counter: MethodQueryCounter;

  beforeAll(async () => {
    t = await startTestApp();
    // Count only the statements sent while RegisterService.register runs (authentication and
    // parameter parsing happen before it, and their caches would make counts timing-dependent).
    counter = countQueriesDuring(t.app.get(RegisterService), 'register', { detachedHandlers: true });
  });
  afterAll(async () => {
    counter.restore();
    await t.close();
  });

  async function countFor(email: string, params: Record<string, unknown> = FULL): Promise<number> {
    await register(t, email, params); // warm caches (system groups, auth)
    counter.reset();
    await register(t, email, params);
    return counter.statements.length;
  }

  async function createUser(email: string): Promise<void> {
    await ok(t, 'post', '/users', IAGO, { email, password: 'a-long-password', full_name: email.split('@')[0] });
  }

  async function subscribe(email: string, names: string[]): Promise<void> {
    await ok(t, 'post', '/users/me/subscriptions', email, { subscriptions: names.map((name) => ({ name })) });
  }

  it('is the same for a user with 3 subscriptions and a user with 30', async () => {
    await createUser('few@zulip.com');
    await createUser('many@zulip.com');
    await subscribe(
      'few@zulip.com',
      ['a', 'b', 'c'].map((c) => `few ${c}`),
    );
    await subscribe(
      'many@zulip.com',
      Array.from({ length: 30 }, (_, i) => `many ${i}`),
    );
    const few = await countFor('few@zulip.com');
    const many = await countFor('many@zulip.com');
    expect(many).toBe(few);
    // A fixed budget: every section together, whatever the realm's size.
    expect(few).toBeLessThanOrEqual(48);
  });

  it('does not grow with the number of users, channels and groups in the realm', async () => {
    const before = await countFor(HAMLET);
    for (let i = 0; i < 30; i++) await createUser(`crowd${i}@zulip.com`);
    await subscribe(
      'crowd0@zulip.com',
      Array.from({ length: 30 }, (_, i) => `crowd channel ${i}`),
    );
    for (let i = 0; i < 5; i++) {
      await ok(t, 'post', '/user_groups/create', IAGO, { name: `crowd group ${i}`, description: '', members: [] });
    }
    expect(await countFor(HAMLET)).toBe(before);
  });

  it("does not grow when the user's own channels, their subscribers and groups grow (issue 15, item 7)", async () => {
    await createUser('grower@zulip.com');
    const before = [await countFor('grower@zulip.com'), await countFor('grower@zulip.com', FLUTTER)];
    const peers = Array.from({ length: 20 }, (_, i) => `growerpeer${i}@zulip.com`);
    const ids: number[] = [];
    for (const email of peers) {
      const body = await ok(t, 'post', '/users', IAGO, {
        email,
        password: 'a-long-password',
        full_name: email.split('@')[0],
      });
      ids.push(body.user_id as number);
    }
    // 20 channels the registering user shares with the 20 new users (subscriber lists, peers).
    await ok(t, 'post', '/users/me/subscriptions', 'grower@zulip.com', {
      subscriptions: Array.from({ length: 20 }, (_, i) => ({ name: `grower channel ${i}` })),
      principals: ['grower@zulip.com', ...peers],
    });
    await ok(t, 'post', '/user_groups/create', IAGO, { name: 'grower peers', description: '', members: ids });
    const after = [await countFor('grower@zulip.com'), await countFor('grower@zulip.com', FLUTTER)];
    expect(after).toEqual(before);
  });

  it('is the same for an administrator (all bots, all channels) and for a guest', async () => {
    const admin = await countFor(IAGO);
    const guest = await countFor('polonius@zulip.com');
    expect(admin).toBeLessThanOrEqual(48);
    expect(guest).toBeLessThanOrEqual(48);
  });
});
