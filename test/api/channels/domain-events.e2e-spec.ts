import {
  type AnyChannelChangedEvent,
  CHANNEL_CHANGED_EVENTS,
  ChannelsCreatedEvent,
  EmptyTopicOnlyRequestedEvent,
  SubscribedByOthersEvent,
  UsersLeftChannelsEvent,
} from '../../../src/channels/channels.domain-events';
import { DomainEventBus } from '../../../src/events/domain-event-bus';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, expectSuccess, userId } from './helpers';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const IAGO = 'iago@zulip.com';
const DESDEMONA = 'desdemona@zulip.com';

/**
 * Records what channels publish for the messaging module (which subscribes too and posts the
 * real notices). Subscribed inside the transaction, like messaging.
 */
class Recorder {
  created: ChannelsCreatedEvent[] = [];
  subscribed: SubscribedByOthersEvent[] = [];
  removed: UsersLeftChannelsEvent[] = [];
  notices: AnyChannelChangedEvent[] = [];
  namedTopics = false;
  subscribeTo(bus: DomainEventBus) {
    bus.subscribeInTransaction(ChannelsCreatedEvent, (e) => void this.created.push(e));
    bus.subscribeInTransaction(SubscribedByOthersEvent, (e) => void this.subscribed.push(e));
    bus.subscribeInTransaction(UsersLeftChannelsEvent, (e) => void this.removed.push(e));
    for (const type of CHANNEL_CHANGED_EVENTS) {
      bus.subscribeInTransaction(type, (e: AnyChannelChangedEvent) => void this.notices.push(e));
    }
    // Stands in for messaging's answer: "the channel has messages in named topics".
    bus.subscribeInTransaction(EmptyTopicOnlyRequestedEvent, (e) => {
      if (this.namedTopics) e.namedTopicsFound = true;
    });
  }
  reset() {
    this.created = [];
    this.subscribed = [];
    this.removed = [];
    this.notices = [];
  }
}

describe('channel domain events (for the messaging module)', () => {
  let t: TestApp;
  const recorder = new Recorder();
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    recorder.subscribeTo(t.app.get(DomainEventBus));
    ids = {};
    for (const e of [HAMLET, OTHELLO, IAGO, DESDEMONA, 'default-bot@zulip.com']) ids[e] = await userId(t, e);
  });
  beforeEach(() => recorder.reset());
  afterAll(() => t.close());

  it('announce: created channels, the announcement channel and the realm setting', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, {
        subscriptions: [{ name: 'announced', description: 'Hello' }, { name: 'announced too' }],
        announce: true,
      }),
    );
    expect(recorder.created).toEqual([
      {
        realmId: expect.any(Number) as unknown,
        actor: { id: ids[HAMLET], fullName: 'King Hamlet' },
        channels: [
          expect.objectContaining({
            name: 'announced',
            description: 'Hello',
            inviteOnly: false,
            topicsPolicy: 'inherit',
          }),
          expect.objectContaining({ name: 'announced too', description: '' }),
        ],
        announce: true,
        announcementChannelId: await channelId(t, 'Verona'),
        sendChannelEventsMessages: true,
      },
    ]);
    expect(recorder.created[0].channels[0].recipientId).toEqual(expect.any(Number));
  });

  it('no creation hook when nothing is created', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'Verona' }], announce: true }),
    );
    expect(recorder.created).toEqual([]);
  });

  it('users subscribed by someone else to existing channels (not the actor, not bots, not new channels)', async () => {
    const res = await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'Scotland' }, { name: 'Rome' }, { name: 'brand new' }],
      principals: [ids[IAGO], ids[OTHELLO], ids['default-bot@zulip.com']],
    });
    expect(res.body).toMatchObject({ new_subscription_messages_sent: true });
    expect(recorder.subscribed).toEqual([
      {
        realmId: expect.any(Number) as unknown,
        actor: { id: ids[IAGO], fullName: 'Iago' },
        notifications: [{ userId: ids[OTHELLO], channelNames: ['Rome'] }],
      },
    ]);
  });

  it('send_new_subscription_messages=false sends none', async () => {
    const res = await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'Venice' }],
      principals: [ids[HAMLET]],
      send_new_subscription_messages: false,
    });
    expect(res.body).not.toHaveProperty('new_subscription_messages_sent');
    expect(recorder.subscribed).toEqual([]);
  });

  it('unsubscribing tells messaging which recipients each user left', async () => {
    expectSuccess(await call(t, 'delete', '/users/me/subscriptions', OTHELLO, { subscriptions: ['Rome', 'Verona'] }));
    expect(recorder.removed).toEqual([
      {
        realmId: expect.any(Number) as unknown,
        removed: [{ userId: ids[OTHELLO], recipientIds: [expect.any(Number), expect.any(Number)] as unknown }],
      },
    ]);
  });

  it('channel notices for renames, descriptions, permissions, retention, posting, topics policy, archiving', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', DESDEMONA, { subscriptions: [{ name: 'noticed' }] }),
    );
    const id = await channelId(t, 'noticed');
    const admins = (
      await t.dataSource.query<Array<{ id: number }>>(
        `SELECT g.id FROM user_group g JOIN realm r ON r.id = g.realm_id WHERE r.string_id = 'zulip' AND g.name = 'role:administrators'`,
      )
    )[0].id;
    for (const params of [
      { new_name: 'noticed!' },
      { description: 'New words' },
      { is_private: true },
      { message_retention_days: 10 },
      { can_send_message_group: { new: admins } },
      { topics_policy: 'disable_empty_topic' },
    ]) {
      expectSuccess(await call(t, 'patch', `/streams/${id}`, DESDEMONA, params));
    }
    expectSuccess(await call(t, 'delete', `/streams/${id}`, DESDEMONA));
    expectSuccess(await call(t, 'patch', `/streams/${id}`, DESDEMONA, { is_archived: false }));
    expect(recorder.notices.map((n) => n.notice)).toEqual([
      { kind: 'renamed', oldName: 'noticed', newName: 'noticed!' },
      { kind: 'description_changed', oldDescription: '', newDescription: 'New words' },
      { kind: 'permission_changed', oldPolicyName: 'Public', newPolicyName: 'Private, protected history' },
      { kind: 'message_retention_changed', oldDays: null, newDays: 10, realmDays: -1 },
      { kind: 'posting_permission_changed', oldValue: expect.any(Number) as unknown, newValue: admins },
      { kind: 'topics_policy_changed', oldPolicy: 'inherit', newPolicy: 'disable_empty_topic' },
      { kind: 'archived' },
      { kind: 'unarchived' },
    ]);
    expect(recorder.notices[0]).toMatchObject({ actor: { id: ids[DESDEMONA] }, channel: { id, name: 'noticed!' } });
  });

  it('asks messaging before allowing empty_topic_only', async () => {
    recorder.namedTopics = true;
    try {
      const res = await call(t, 'patch', `/streams/${await channelId(t, 'Zulip')}`, IAGO, {
        topics_policy: 'empty_topic_only',
      });
      expectError(
        res,
        400,
        'To enable this configuration, all messages in this channel must be in the "general chat" topic. Consider renaming or deleting other topics.',
      );
    } finally {
      recorder.namedTopics = false;
    }
  });
});
