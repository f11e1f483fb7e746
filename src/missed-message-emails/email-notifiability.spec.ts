import { emailTrigger, EmailRecipient } from './email-notifiability';

const settings = {
  enable_offline_email_notifications: true,
  enable_stream_email_notifications: false,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  wildcard_mentions_notify: true,
};

function recipient(over: Partial<EmailRecipient> = {}, flags: string[] = []): EmailRecipient {
  return {
    userId: 2,
    isBot: false,
    settings,
    flags: new Set(flags),
    subscription: { isMuted: false, emailNotifications: null, wildcardMentionsNotify: null },
    topicVisibility: 0,
    senderMuted: false,
    idle: true,
    ...over,
  };
}
const dm = { senderId: 1, isDirectMessage: true };
const channel = { senderId: 1, isDirectMessage: false };

describe('emailTrigger', () => {
  it('emails direct messages unless offline email is off', () => {
    expect(emailTrigger(recipient({ subscription: undefined }), dm)).toBe('private_message');
    expect(
      emailTrigger(
        recipient({ subscription: undefined, settings: { ...settings, enable_offline_email_notifications: false } }),
        dm,
      ),
    ).toBeNull();
  });

  it('never emails online users, bots, the sender, muted senders or read messages', () => {
    expect(emailTrigger(recipient({ idle: false }), dm)).toBeNull();
    expect(emailTrigger(recipient({ isBot: true }), dm)).toBeNull();
    expect(emailTrigger(recipient({ userId: 1 }), dm)).toBeNull();
    expect(emailTrigger(recipient({ senderMuted: true }), dm)).toBeNull();
    expect(emailTrigger(recipient({}, ['read']), dm)).toBeNull();
  });

  it('emails mentions, and wildcard mentions per wildcard_mentions_notify', () => {
    expect(emailTrigger(recipient({}, ['mentioned']), channel)).toBe('mentioned');
    expect(emailTrigger(recipient({}, ['stream_wildcard_mentioned']), channel)).toBe('stream_wildcard_mentioned');
    expect(emailTrigger(recipient({}, ['topic_wildcard_mentioned']), channel)).toBe('topic_wildcard_mentioned');
    const off = { ...settings, wildcard_mentions_notify: false };
    expect(emailTrigger(recipient({ settings: off }, ['stream_wildcard_mentioned']), channel)).toBeNull();
    const overridden = { isMuted: false, emailNotifications: null, wildcardMentionsNotify: true };
    expect(
      emailTrigger(recipient({ settings: off, subscription: overridden }, ['stream_wildcard_mentioned']), channel),
    ).toBe('stream_wildcard_mentioned');
  });

  it('emails followed topics and wildcard mentions in them', () => {
    expect(emailTrigger(recipient({ topicVisibility: 3 }), channel)).toBe('followed_topic_email_notify');
    expect(emailTrigger(recipient({ topicVisibility: 3 }, ['topic_wildcard_mentioned']), channel)).toBe(
      'topic_wildcard_mentioned_in_followed_topic',
    );
    const off = { ...settings, enable_followed_topic_email_notifications: false };
    expect(emailTrigger(recipient({ topicVisibility: 3, settings: off }), channel)).toBeNull();
  });

  it('emails channel messages per the channel setting, its override first, never in muted places', () => {
    expect(emailTrigger(recipient(), channel)).toBeNull();
    const on = { ...settings, enable_stream_email_notifications: true };
    expect(emailTrigger(recipient({ settings: on }), channel)).toBe('stream_email_notify');
    const sub = { isMuted: false, emailNotifications: true, wildcardMentionsNotify: null };
    expect(emailTrigger(recipient({ subscription: sub }), channel)).toBe('stream_email_notify');
    expect(emailTrigger(recipient({ subscription: { ...sub, isMuted: true } }), channel)).toBeNull();
    expect(emailTrigger(recipient({ subscription: sub, topicVisibility: 1 }), channel)).toBeNull();
    expect(
      emailTrigger(recipient({ subscription: { ...sub, emailNotifications: false }, settings: on }), channel),
    ).toBeNull();
  });
});
