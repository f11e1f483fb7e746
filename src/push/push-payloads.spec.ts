import {
  apnsAlertSubtitle,
  apnsAlertTitle,
  fcmData,
  idsForRemoval,
  messageNotification,
  PayloadContext,
  PushMessage,
  PushRealm,
  PushRecipient,
  removeNotification,
} from './push-payloads';

const ctx: PayloadContext = { serverHost: 'zulip.testserver', emptyTopicName: 'general chat' };
const realm: PushRealm = { id: 2, name: 'Zulip Dev', url: 'http://zulip.testserver' };
const hamlet = { id: 10, email: 'hamlet@zulip.com', fullName: 'King Hamlet', avatarUrl: '/avatar/10' };
const dateSent = new Date('2024-05-01T12:00:00.500Z');
const time = Math.floor(dateSent.getTime() / 1000);

function channelMessage(over: Partial<PushMessage> = {}): PushMessage {
  return {
    id: 123,
    sender: hamlet,
    recipient: { type: 'channel', channelId: 3, channelName: 'Verona', topic: 'Test topic' },
    renderedContent: '<p>Test <strong>message</strong> <span class="emoji emoji-1f44d">:+1:</span></p>',
    dateSent,
    ...over,
  };
}
const participants = [
  { id: 10, fullName: 'King Hamlet' },
  { id: 11, fullName: 'Othello, the Moor of Venice' },
  { id: 12, fullName: 'Cordelia, Lear’s daughter' },
];
const dm = (n: number): PushMessage =>
  channelMessage({ recipient: { type: 'direct', participants: participants.slice(0, n) } });
const to = (trigger: PushRecipient['trigger'], over: Partial<PushRecipient> = {}): PushRecipient => ({
  userId: 11,
  trigger,
  ...over,
});

describe('message payloads', () => {
  it('builds Zulip’s APNs payload for a channel mention', () => {
    const { apns } = messageNotification(ctx, realm, channelMessage(), to('mentioned'));
    expect(apns).toEqual({
      body: {
        aps: {
          alert: { title: '#Verona > Test topic', subtitle: 'King Hamlet mentioned you:', body: 'Test message 👍' },
          sound: 'default',
          badge: 0,
        },
        zulip: {
          server: 'zulip.testserver',
          realm_id: 2,
          realm_uri: 'http://zulip.testserver',
          realm_url: 'http://zulip.testserver',
          realm_name: 'Zulip Dev',
          user_id: 11,
          sender_id: 10,
          sender_email: 'hamlet@zulip.com',
          time,
          recipient_type: 'stream',
          stream: 'Verona',
          stream_id: 3,
          topic: 'Test topic',
          message_ids: [123],
        },
      },
      priority: 10,
      timeToLiveSeconds: 86400,
    });
  });

  it('builds Zulip’s FCM data (all strings, Python’s str() for booleans) for a channel mention', () => {
    const { fcm } = messageNotification(ctx, realm, channelMessage(), to('mentioned'));
    expect(fcm).toEqual({
      priority: 'high',
      data: {
        server: 'zulip.testserver',
        realm_id: '2',
        realm_uri: 'http://zulip.testserver',
        realm_url: 'http://zulip.testserver',
        realm_name: 'Zulip Dev',
        user_id: '11',
        sender_id: '10',
        sender_email: 'hamlet@zulip.com',
        time: String(time),
        recipient_type: 'stream',
        stream: 'Verona',
        stream_id: '3',
        topic: 'Test topic',
        event: 'message',
        zulip_message_id: '123',
        content: 'Test message 👍',
        content_truncated: 'False',
        sender_full_name: 'King Hamlet',
        sender_avatar_url: 'http://zulip.testserver/avatar/10',
      },
    });
  });

  it('names one-to-one and group direct messages as Zulip does', () => {
    const one = messageNotification(ctx, realm, dm(2), to('direct_message'));
    expect(one.apns.body.aps.alert).toMatchObject({ title: 'King Hamlet', subtitle: '' });
    expect(one.apns.body.zulip).toMatchObject({ recipient_type: 'private' });
    expect(one.apns.body.zulip).not.toHaveProperty('pm_users');
    expect(one.apns.body.zulip).not.toHaveProperty('stream');

    const group = messageNotification(ctx, realm, dm(3), to('direct_message'));
    expect(group.apns.body.aps.alert).toMatchObject({
      title: 'Cordelia, Lear’s daughter, King Hamlet, Othello, the Moor of Venice',
      subtitle: 'King Hamlet:',
    });
    expect(group.apns.body.zulip).toMatchObject({ recipient_type: 'private', pm_users: '10,11,12' });
    expect(group.fcm.data).toMatchObject({ recipient_type: 'private', pm_users: '10,11,12' });
  });

  it.each([
    ['mentioned', 'King Hamlet mentioned you:'],
    ['stream_wildcard_mentioned', 'King Hamlet mentioned everyone:'],
    ['topic_wildcard_mentioned', 'King Hamlet mentioned everyone:'],
    ['stream_wildcard_mentioned_in_followed_topic', 'King Hamlet mentioned everyone:'],
    ['topic_wildcard_mentioned_in_followed_topic', 'King Hamlet mentioned everyone:'],
    ['followed_topic', 'King Hamlet:'],
    ['stream_push_notify', 'King Hamlet:'],
  ] as const)('subtitles a channel message pushed for %s', (trigger, subtitle) => {
    expect(apnsAlertSubtitle(channelMessage(), to(trigger), 'King Hamlet')).toBe(subtitle);
  });

  it('names the group a user was mentioned through', () => {
    const p = messageNotification(
      ctx,
      realm,
      channelMessage(),
      to('mentioned', { mentionedUserGroup: { id: 30, name: 'hamletcharacters' } }),
    );
    expect(p.apns.body.aps.alert).toMatchObject({ subtitle: 'King Hamlet mentioned @hamletcharacters:' });
    expect(p.apns.body.zulip).toMatchObject({
      mentioned_user_group_id: 30,
      mentioned_user_group_name: 'hamletcharacters',
    });
    expect(p.fcm.data).toMatchObject({ mentioned_user_group_id: '30', mentioned_user_group_name: 'hamletcharacters' });
  });

  it('shows the empty topic by its display name', () => {
    const m = channelMessage({ recipient: { type: 'channel', channelId: 3, channelName: 'Verona', topic: '' } });
    expect(apnsAlertTitle(m, ctx)).toBe('#Verona > general chat');
    expect(messageNotification(ctx, realm, m, to('mentioned')).fcm.data.topic).toBe('general chat');
  });

  it('hides a sender the recipient may not see', () => {
    const p = messageNotification(ctx, realm, channelMessage(), to('mentioned', { canAccessSender: false }));
    expect(p.apns.body.aps.alert).toMatchObject({ subtitle: 'Unknown user mentioned you:' });
    expect(p.fcm.data).toMatchObject({
      sender_email: 'user10@zulip.testserver',
      sender_full_name: 'Unknown user',
      sender_avatar_url: 'http://zulip.testserver/static/images/unknown-user-avatar.png',
      sender_id: '10',
    });
  });

  it('truncates the content to 200 characters', () => {
    const long = channelMessage({ renderedContent: `<p>${'x'.repeat(250)}</p>` });
    const p = messageNotification(ctx, realm, long, to('mentioned'));
    expect(p.fcm.data.content).toBe('x'.repeat(200) + '…');
    expect(p.fcm.data.content_truncated).toBe('True');
    expect((p.apns.body.aps.alert as { body: string }).body).toBe('x'.repeat(200) + '…');
  });

  it('uses plain content as given, and absolute avatar URLs unchanged', () => {
    const m = channelMessage({
      renderedContent: undefined,
      content: 'plain **text**',
      sender: { ...hamlet, avatarUrl: 'https://secure.gravatar.com/avatar/abc?d=identicon' },
      dateSent: 1700000000,
    });
    const p = messageNotification(ctx, realm, m, to('mentioned'));
    expect(p.fcm.data).toMatchObject({
      content: 'plain **text**',
      sender_avatar_url: 'https://secure.gravatar.com/avatar/abc?d=identicon',
      time: '1700000000',
    });
  });
});

describe('remove payloads', () => {
  it('are Zulip’s remove event for both platforms', () => {
    const p = removeNotification(ctx, realm, 11, [5, 3, 4]);
    expect(p.apns).toEqual({
      body: {
        aps: { badge: 0 },
        zulip: {
          server: 'zulip.testserver',
          realm_id: 2,
          realm_uri: 'http://zulip.testserver',
          realm_url: 'http://zulip.testserver',
          realm_name: 'Zulip Dev',
          user_id: 11,
          event: 'remove',
          zulip_message_ids: '3,4,5',
        },
      },
      priority: 10,
      timeToLiveSeconds: 86400,
    });
    expect(p.fcm).toEqual({
      priority: 'normal',
      data: {
        server: 'zulip.testserver',
        realm_id: '2',
        realm_uri: 'http://zulip.testserver',
        realm_url: 'http://zulip.testserver',
        realm_name: 'Zulip Dev',
        user_id: '11',
        event: 'remove',
        zulip_message_ids: '3,4,5',
        zulip_message_id: '3',
      },
    });
  });

  it('keep the newest 200 ids', () => {
    const ids = Array.from({ length: 250 }, (_, i) => 1000 - i);
    const kept = idsForRemoval(ids);
    expect(kept).toHaveLength(200);
    expect(kept[0]).toBe(801);
    expect(kept[199]).toBe(1000);
  });
});

describe('fcmData', () => {
  it('stringifies as Python’s str()', () => {
    expect(fcmData({ a: 1, b: true, c: false, d: 'x', e: undefined })).toEqual({
      a: '1',
      b: 'True',
      c: 'False',
      d: 'x',
    });
  });
});
