/**
 * ChannelsRepository's subscriber queries on real SQL, without HTTP: who receives a channel
 * message (active subscribers who are active users), and the channel peers of many users at once
 * (can_access_all_users_group), each in one statement whatever the number of channels or users.
 */
import { ChannelsRepository } from '../../src/channels/channels.repository';
import type { Stream } from '../../src/channels/channel.entity';
import { SubscriptionsService } from '../../src/channels/subscriptions.service';
import { UserAdminService } from '../../src/users/user-admin.service';
import { assertQueryCount } from '../helpers/query-counter';
import { ServiceHarness, startServiceHarness } from './harness';

describe('ChannelsRepository subscriber queries (service tier)', () => {
  let h: ServiceHarness;
  let channels: ChannelsRepository;
  let red: Stream;
  let blue: Stream;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    h = await startServiceHarness();
    channels = h.get(ChannelsRepository);
    const realm = await h.realm();
    for (const name of ['ann', 'bob', 'cy', 'dee']) {
      ids[name] = (await h.createUser(realm, { email: `${name}-repo@zulip.com` })).id;
    }
    const user = (name: string) => ({ id: ids[name], realmId: realm.id });
    red = await h.createChannel('iago@zulip.com', 'repo red', { subscribers: [user('ann'), user('bob'), user('cy')] });
    blue = await h.createChannel('iago@zulip.com', 'repo blue', {
      inviteOnly: true,
      subscribers: [user('cy'), user('dee')],
    });
  });
  afterAll(() => h.close());

  it('lists the active subscribers of many channels in one statement, sorted', async () => {
    const byRecipient = await assertQueryCount(1, () => channels.subscriberIds([red.recipientId!, blue.recipientId!]));
    expect(byRecipient.get(red.recipientId!)).toEqual([ids.ann, ids.bob, ids.cy]);
    expect(byRecipient.get(blue.recipientId!)).toEqual([ids.cy, ids.dee]);
    expect(await assertQueryCount(0, () => channels.subscriberIds([]))).toEqual(new Map());
  });

  it('leaves out unsubscribed and deactivated users', async () => {
    await h
      .get(SubscriptionsService)
      .unsubscribe(await h.auth({ id: ids.ann, realmId: red.realmId }), [red.name], undefined);
    await h.get(UserAdminService).deactivateUser(await h.auth('iago@zulip.com'), ids.bob);
    const byRecipient = await channels.subscriberIds([red.recipientId!]);
    expect(byRecipient.get(red.recipientId!)).toEqual([ids.cy]);
  });

  it('finds the channel peers of several users in one statement', async () => {
    const pairs = await assertQueryCount(1, () =>
      channels.channelPeerPairs([ids.cy, ids.dee], [ids.cy, ids.dee, ids.ann]),
    );
    const sorted = pairs.map((p) => `${p.userId}-${p.peerId}`).sort();
    expect(sorted).toEqual(
      [`${ids.cy}-${ids.cy}`, `${ids.cy}-${ids.dee}`, `${ids.dee}-${ids.cy}`, `${ids.dee}-${ids.dee}`].sort(),
    );
    expect(await assertQueryCount(0, () => channels.channelPeerPairs([], [ids.cy]))).toEqual([]);
  });
});
