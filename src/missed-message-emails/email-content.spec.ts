import { renderEmail } from '../email/templates/layout';
import { missedMessage } from '../email/templates/missed-message';
import {
  absoluteLinks,
  buildMissedMessageEmail,
  directMessageUrl,
  EmailedMessage,
  namesForGroup,
} from './email-content';

const realm = { name: 'Zulip Dev', url: 'https://zulip.example' };
const names: Record<number, string> = { 1: 'Me', 2: 'Othello', 3: 'Iago', 4: 'Cordelia' };
const nameOf = (id: number) => names[id];

function dm(id: number, senderId: number, participants: number[], content = `m${id}`): EmailedMessage {
  return {
    id,
    senderId,
    isChannelMessage: false,
    streamId: null,
    streamName: null,
    subject: '',
    content,
    renderedContent: `<p>${content}</p>`,
    dmUserIds: participants,
  };
}

function channel(id: number, senderId: number, topic: string): EmailedMessage {
  return {
    id,
    senderId,
    isChannelMessage: true,
    streamId: 5,
    streamName: 'Verona hall',
    subject: topic,
    content: `c${id}`,
    renderedContent: `<p><a href="/user_uploads/2/ab/x.png">x</a></p>`,
    dmUserIds: null,
  };
}

describe('missed-message email content', () => {
  it('one direct conversation: one block per run of a sender, Zulip subject', () => {
    const built = buildMissedMessageEmail(1, realm, [dm(1, 2, [1, 2]), dm(2, 2, [1, 2])], nameOf);
    expect(built.subject).toBe('DMs with Othello');
    expect(built.conversations).toHaveLength(1);
    expect(built.conversations[0].header).toBe('You and Othello');
    expect(built.conversations[0].url).toBe('https://zulip.example/#narrow/dm/2-dm');
    expect(built.conversations[0].senders).toEqual([
      {
        name: 'Othello',
        messages: [
          { text: 'm1', html: '<p>m1</p>' },
          { text: 'm2', html: '<p>m2</p>' },
        ],
      },
    ]);
  });

  it('group conversations and channel topics', () => {
    expect(buildMissedMessageEmail(1, realm, [dm(1, 2, [1, 2, 3])], nameOf).subject).toBe(
      'Group DMs with Othello and Iago',
    );
    const built = buildMissedMessageEmail(1, realm, [channel(3, 2, 'Lunch'), channel(4, 3, 'lunch')], nameOf);
    expect(built.subject).toBe('#Verona hall > Lunch');
    expect(built.conversations).toHaveLength(1);
    expect(built.conversations[0].url).toBe('https://zulip.example/#narrow/channel/5-Verona-hall/topic/Lunch');
    expect(built.conversations[0].senders.map((s) => s.name)).toEqual(['Othello', 'Iago']);
    expect(built.conversations[0].senders[0].messages[0].html).toContain(
      'href="https://zulip.example/user_uploads/2/ab/x.png"',
    );
  });

  it('several conversations: ordered by their latest message, a general subject', () => {
    const built = buildMissedMessageEmail(1, realm, [dm(1, 2, [1, 2]), channel(2, 3, 'a'), dm(3, 2, [1, 2])], nameOf);
    expect(built.subject).toBe('New messages in Zulip Dev');
    expect(built.conversations.map((c) => c.header)).toEqual(['#Verona hall > a', 'You and Othello']);
  });

  it('helpers', () => {
    expect(namesForGroup(['A', 'B', 'C'])).toBe('A, B, and C');
    expect(namesForGroup(['A', 'B', 'C', 'D', 'E'])).toBe('A, B, and 3 others');
    expect(directMessageUrl('u', 1, [1])).toBe('u/#narrow/dm/1-dm');
    expect(directMessageUrl('u', 1, [3, 1, 2])).toBe('u/#narrow/dm/2,3-group');
    expect(absoluteLinks('<a href="//evil">x</a><img src="/a.png">', 'https://r')).toBe(
      '<a href="//evil">x</a><img src="https://r/a.png">',
    );
  });

  it('renders names and topics escaped, message HTML as rendered, and hides content when asked', () => {
    const built = buildMissedMessageEmail(1, realm, [dm(1, 4, [1, 4], '<b>hi</b>')], (id) =>
      id === 4 ? '<Cordelia>' : 'Me',
    );
    const context = {
      realmName: 'Zulip Dev',
      realmUrl: realm.url,
      fullName: 'Me',
      subject: built.subject,
      showContent: true,
      contentDisabledByUser: false,
      contentDisabledByRealm: false,
      messageCount: 1,
      conversations: built.conversations,
      settingsUrl: `${realm.url}/#settings/notifications`,
      unsubscribeUrl: `${realm.url}/accounts/unsubscribe/missed_messages/x`,
    };
    const shown = renderEmail(missedMessage, context);
    expect(shown.subject).toBe('DMs with <Cordelia>');
    expect(shown.html).toContain('&lt;Cordelia&gt;');
    expect(shown.html).toContain('<p><b>hi</b></p>');
    expect(shown.text).toContain('<Cordelia>:\n<b>hi</b>');
    expect(shown.text).toContain('Unsubscribe from missed-message emails: https://zulip.example/accounts/unsubscribe/');
    const hidden = renderEmail(missedMessage, { ...context, showContent: false, contentDisabledByUser: true });
    expect(hidden.subject).toBe('New messages');
    expect(hidden.text).not.toContain('<b>hi</b>');
    expect(hidden.html).not.toContain('Cordelia');
    expect(hidden.text).toContain('you have disabled message content');
  });
});
