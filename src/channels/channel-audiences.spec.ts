import { Role } from '../common/roles';
import {
  AudienceData,
  AudienceStream,
  creationAudience,
  metadataAudience,
  peerEvents,
  privatePeers,
} from './channel-audiences';
import type { RealmUserRow } from './channels.repository';

const user = (id: number, role: number): RealmUserRow => ({
  id,
  role,
  isBot: false,
  botOwnerId: null,
  isActive: true,
  deliveryEmail: `u${id}@example.com`,
  fullName: `U${id}`,
  emailAddressVisibility: 1,
});

// 1 owner, 2 admin, 3 moderator, 4 and 5 members, 6 guest.
const USERS = [
  user(1, Role.OWNER),
  user(2, Role.ADMINISTRATOR),
  user(3, Role.MODERATOR),
  user(4, Role.MEMBER),
  user(5, Role.MEMBER),
  user(6, Role.GUEST),
];

const stream = (
  id: number,
  kind: 'public' | 'web' | 'private',
  groups: Partial<AudienceStream> = {},
): AudienceStream => ({
  id,
  recipientId: id * 10,
  inviteOnly: kind === 'private',
  isWebPublic: kind === 'web',
  canAdministerChannelGroup: 900,
  canAddSubscribersGroup: 901,
  canSubscribeGroup: 902,
  ...groups,
});

function data(subscribers: Record<number, number[]>, groupMembers: Record<number, number[]> = {}): AudienceData {
  return {
    users: USERS,
    subscribers: new Map(Object.entries(subscribers).map(([k, v]) => [Number(k), v])),
    groupMembers: new Map(Object.entries(groupMembers).map(([k, v]) => [Number(k), new Set(v)])),
  };
}

const sorted = (s: Iterable<number>) => [...s].sort((a, b) => a - b);

describe('metadataAudience', () => {
  it('public: every non-guest, plus guests who are subscribed', () => {
    expect(sorted(metadataAudience(stream(1, 'public'), data({ 10: [4] })))).toEqual([1, 2, 3, 4, 5]);
    expect(sorted(metadataAudience(stream(1, 'public'), data({ 10: [6] })))).toEqual([1, 2, 3, 4, 5, 6]);
  });
  it('private: subscribers, administrators, members of the metadata groups', () => {
    expect(sorted(metadataAudience(stream(1, 'private'), data({ 10: [4] }, { 902: [5] })))).toEqual([1, 2, 4, 5]);
    expect(sorted(metadataAudience(stream(1, 'private'), data({ 10: [6] })))).toEqual([1, 2, 6]);
  });
});

describe('creationAudience', () => {
  it('public → non-guests; web-public → everyone; private → administrators and group members', () => {
    expect(sorted(creationAudience(stream(1, 'public'), data({})))).toEqual([1, 2, 3, 4, 5]);
    expect(sorted(creationAudience(stream(1, 'web'), data({})))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sorted(creationAudience(stream(1, 'private'), data({}, { 900: [4] })))).toEqual([1, 2, 4]);
  });
});

describe('peerEvents', () => {
  it('private channels: one event each, to peers other than the changed users', () => {
    const s = stream(1, 'private');
    const d = data({ 10: [4, 5] }, { 901: [3] });
    expect(sorted(privatePeers(s, d))).toEqual([1, 2, 3, 4, 5]);
    expect(peerEvents([s], new Map([[1, new Set([5])]]), d)).toEqual([
      { streamIds: [1], userIds: [5], recipients: new Set([1, 2, 3, 4]) },
    ]);
  });

  it('public channels without guest subscribers share one event per set of changed users', () => {
    const a = stream(1, 'public');
    const b = stream(2, 'public');
    const events = peerEvents(
      [a, b],
      new Map([
        [1, new Set([4])],
        [2, new Set([4])],
      ]),
      data({ 10: [4], 20: [4, 5] }),
    );
    expect(events).toEqual([{ streamIds: [1, 2], userIds: [4], recipients: new Set([1, 2, 3, 5]) }]);
  });

  it('a public channel with a guest subscriber gets its own event, including the guest', () => {
    const a = stream(1, 'public');
    const events = peerEvents([a], new Map([[1, new Set([4])]]), data({ 10: [4, 6] }));
    expect(events).toEqual([{ streamIds: [1], userIds: [4], recipients: new Set([1, 2, 3, 5, 6]) }]);
  });

  it('web-public channels go to everyone', () => {
    const w = stream(3, 'web');
    const events = peerEvents([w], new Map([[3, new Set([5, 4])]]), data({ 30: [4, 5] }));
    expect(events).toEqual([{ streamIds: [3], userIds: [4, 5], recipients: new Set([1, 2, 3, 6]) }]);
  });

  it('drops events nobody would receive', () => {
    const s = stream(1, 'private');
    expect(peerEvents([s], new Map([[1, new Set([1, 2])]]), data({ 10: [1, 2] }))).toEqual([]);
  });
});
