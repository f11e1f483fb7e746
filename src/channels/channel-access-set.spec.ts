import { Role } from '../common/roles';
import {
  AccessibleChannel,
  canAccessChannelContent,
  canAccessChannelMetadata,
  ChannelActor,
  firstRefusedChannel,
} from './channels.policy';

const ADMINISTER = 101;
const ADD = 102;
const SUBSCRIBE = 103;
const ROLES = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];
const KINDS = ['public', 'web-public', 'private'] as const;
const MEMBERSHIPS = [[], [ADMINISTER], [ADD], [SUBSCRIBE]];

function channel(id: number, kind: (typeof KINDS)[number], deactivated = false): AccessibleChannel {
  return {
    id,
    recipientId: id + 1000,
    deactivated,
    inviteOnly: kind === 'private',
    isWebPublic: kind === 'web-public',
    canAdministerChannelGroup: ADMINISTER,
    canAddSubscribersGroup: ADD,
    canSubscribeGroup: SUBSCRIBE,
    canRemoveSubscribersGroup: 104,
  };
}

const actor = (role: number, groups: number[]): ChannelActor => ({ id: 1, role, groupIds: new Set(groups) });
const byId = (channels: AccessibleChannel[]) => new Map(channels.map((c) => [c.id, c]));

describe('firstRefusedChannel (set-based channel access)', () => {
  const cases = ROLES.flatMap((role) =>
    KINDS.flatMap((kind) =>
      MEMBERSHIPS.flatMap((groups) =>
        [true, false].flatMap((subscribed) =>
          [true, false].flatMap((deactivated) =>
            (['content', 'metadata'] as const).map((level) => ({ role, kind, groups, subscribed, deactivated, level })),
          ),
        ),
      ),
    ),
  );

  it.each(cases)('one channel agrees with the single-channel rules: %o', (c) => {
    const ch = channel(7, c.kind, c.deactivated);
    const a = actor(c.role, c.groups);
    const subs = new Set(c.subscribed ? [ch.recipientId!] : []);
    const rule = c.level === 'content' ? canAccessChannelContent : canAccessChannelMetadata;
    for (const requireActive of [true, false]) {
      const expected = (requireActive && c.deactivated) || !rule(a, ch, c.subscribed) ? 7 : undefined;
      expect(firstRefusedChannel(a, [7], byId([ch]), subs, c.level, requireActive)).toBe(expected);
    }
  });

  it('answers for the whole set: the first refused id in the caller’s order', () => {
    const channels = [channel(1, 'public'), channel(2, 'private'), channel(3, 'private'), channel(4, 'web-public')];
    const member = actor(Role.MEMBER, []);
    expect(firstRefusedChannel(member, [1, 4], byId(channels), new Set(), 'content', true)).toBeUndefined();
    expect(firstRefusedChannel(member, [1, 3, 2], byId(channels), new Set(), 'content', true)).toBe(3);
    expect(firstRefusedChannel(member, [1, 3, 2], byId(channels), new Set([1003]), 'content', true)).toBe(2);
    expect(firstRefusedChannel(member, [2, 3], byId(channels), new Set([1002, 1003]), 'content', true)).toBeUndefined();
  });

  it('a channel that was not found (other realm, unknown id) is refused like an inaccessible one', () => {
    const channels = [channel(1, 'public')];
    expect(firstRefusedChannel(actor(Role.OWNER, []), [1, 99], byId(channels), new Set(), 'metadata', true)).toBe(99);
  });

  it('an empty request is allowed', () => {
    expect(firstRefusedChannel(actor(Role.GUEST, []), [], new Map(), new Set(), 'content', true)).toBeUndefined();
  });

  it('guests need a subscription unless the channel is web-public', () => {
    const channels = [channel(1, 'public'), channel(2, 'web-public')];
    const guest = actor(Role.GUEST, [SUBSCRIBE, ADD, ADMINISTER]);
    expect(firstRefusedChannel(guest, [2, 1], byId(channels), new Set(), 'content', true)).toBe(1);
    expect(firstRefusedChannel(guest, [2, 1], byId(channels), new Set([1001]), 'content', true)).toBeUndefined();
  });
});
