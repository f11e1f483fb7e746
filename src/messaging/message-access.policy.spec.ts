import {
  canAccessChannelHistory,
  type ChannelAccessFields,
  hasChannelContentAccess,
  hasMessageAccess,
  messageAccessNeedsGroups,
} from './message-access.policy';

const MEMBER = { id: 1, realmId: 1, role: 400 };
const GUEST = { id: 2, realmId: 1, role: 600 };
const ADMIN = { id: 3, realmId: 1, role: 200 };
const OTHER_REALM = { id: 4, realmId: 2, role: 400 };

function channel(overrides: Partial<ChannelAccessFields> = {}): ChannelAccessFields {
  return {
    id: 10,
    realmId: 1,
    name: 'c',
    recipientId: 20,
    inviteOnly: false,
    isWebPublic: false,
    historyPublicToSubscribers: true,
    deactivated: false,
    canSubscribeGroup: 100,
    canAddSubscribersGroup: 101,
    ...overrides,
  };
}

const msg = (c: ChannelAccessFields | null, hasUserMessage: boolean, subscribed: boolean) => ({
  isChannelMessage: c !== null,
  realmId: 1,
  channel: c,
  hasUserMessage,
  subscribed,
});

describe('message access (Zulip has_message_access)', () => {
  const none = new Set<number>();
  it('direct messages: only with a UserMessage row', () => {
    expect(hasMessageAccess(MEMBER, msg(null, true, false), none, false)).toBe(true);
    expect(hasMessageAccess(ADMIN, msg(null, false, false), none, false)).toBe(false);
  });

  it('public channels: every non-guest; guests when subscribed', () => {
    const pub = channel();
    expect(hasMessageAccess(MEMBER, msg(pub, false, false), none, false)).toBe(true);
    expect(hasMessageAccess(GUEST, msg(pub, false, false), none, false)).toBe(false);
    expect(hasMessageAccess(GUEST, msg(pub, true, false), none, false)).toBe(false);
    expect(hasMessageAccess(GUEST, msg(pub, false, true), none, false)).toBe(true);
    // Web-public history still needs a subscription for guests.
    expect(hasMessageAccess(GUEST, msg(channel({ isWebPublic: true }), false, false), none, false)).toBe(false);
  });

  it('private channels with shared history: subscribers and content-access group members', () => {
    const priv = channel({ inviteOnly: true });
    expect(hasMessageAccess(MEMBER, msg(priv, false, true), none, false)).toBe(true);
    expect(hasMessageAccess(MEMBER, msg(priv, true, false), none, false)).toBe(false);
    expect(hasMessageAccess(ADMIN, msg(priv, false, false), none, false)).toBe(false);
    expect(hasMessageAccess(MEMBER, msg(priv, false, false), new Set([100]), false)).toBe(true);
    expect(hasMessageAccess(MEMBER, msg(priv, false, false), new Set([101]), false)).toBe(true);
    expect(hasMessageAccess(GUEST, msg(priv, false, false), new Set([100]), false)).toBe(false);
  });

  it('private channels with protected history: received and still subscribed', () => {
    const prot = channel({ inviteOnly: true, historyPublicToSubscribers: false });
    expect(hasMessageAccess(MEMBER, msg(prot, true, true), none, false)).toBe(true);
    expect(hasMessageAccess(MEMBER, msg(prot, false, true), none, false)).toBe(false);
    expect(hasMessageAccess(MEMBER, msg(prot, true, false), none, false)).toBe(false);
    expect(hasMessageAccess(MEMBER, msg(prot, true, false), new Set([100]), false)).toBe(true);
  });

  it('other realms never; archived channels not for modifications', () => {
    expect(hasMessageAccess(OTHER_REALM, msg(channel(), true, true), none, false)).toBe(false);
    expect(hasMessageAccess(MEMBER, msg(channel({ realmId: 2 }), true, true), none, false)).toBe(false);
    expect(hasMessageAccess(MEMBER, msg(channel({ deactivated: true }), true, true), none, false)).toBe(true);
    expect(hasMessageAccess(MEMBER, msg(channel({ deactivated: true }), true, true), none, true)).toBe(false);
  });

  it('needs groups only for unsubscribed non-guests in private channels', () => {
    expect(messageAccessNeedsGroups(MEMBER, msg(channel({ inviteOnly: true }), false, false))).toBe(true);
    expect(messageAccessNeedsGroups(MEMBER, msg(channel({ inviteOnly: true }), false, true))).toBe(false);
    expect(messageAccessNeedsGroups(GUEST, msg(channel({ inviteOnly: true }), false, false))).toBe(false);
    expect(messageAccessNeedsGroups(MEMBER, msg(channel(), false, false))).toBe(false);
  });

  it('channel history and content access', () => {
    expect(canAccessChannelHistory(MEMBER, channel(), false, null)).toBe(true);
    expect(canAccessChannelHistory(GUEST, channel(), false, null)).toBe(false);
    expect(canAccessChannelHistory(GUEST, channel(), true, null)).toBe(true);
    expect(canAccessChannelHistory(GUEST, channel({ isWebPublic: true }), false, null)).toBe(true);
    expect(canAccessChannelHistory(MEMBER, channel({ inviteOnly: true }), true, null)).toBe(true);
    expect(
      canAccessChannelHistory(MEMBER, channel({ inviteOnly: true, historyPublicToSubscribers: false }), true, null),
    ).toBe(false);
    expect(canAccessChannelHistory(OTHER_REALM, channel(), true, null)).toBe(false);
    expect(hasChannelContentAccess(MEMBER, channel({ inviteOnly: true }), false, new Set([101]))).toBe(true);
    expect(hasChannelContentAccess(MEMBER, channel({ inviteOnly: true }), false, null)).toBe(false);
    expect(hasChannelContentAccess(GUEST, channel(), false, null)).toBe(false);
  });
});
