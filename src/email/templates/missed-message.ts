import { html, raw, safeUrl } from './html';
import { EmailTemplate } from './layout';

/** One message of a missed-message email. */
export interface MissedMessageItem {
  /** The Markdown source, for the plain-text part. */
  text: string;
  /** The server's own rendering (absolute links), for the HTML part. */
  html: string;
}

/** A conversation of a missed-message email: a channel topic or a direct-message conversation. */
export interface MissedConversation {
  /** `Verona > lunch`, or `You and Othello, the Moor of Venice`. */
  header: string;
  /** The conversation in the web app. */
  url: string;
  /** Channel conversations: the channel's own link (the header shows channel and topic apart). */
  channel?: { name: string; url: string; topic: string };
  /** Consecutive messages of one sender are one block (Zulip's build_message_list). */
  senders: Array<{ name: string; messages: MissedMessageItem[] }>;
}

/**
 * The email telling a user who was away about messages they missed (Zulip's missed_message email,
 * handle_missedmessage_emails): every conversation of one batching period.
 */
export interface MissedMessageContext {
  realmName: string;
  realmUrl: string;
  fullName: string;
  /** The subject when the content is shown (computed from the conversations). */
  subject: string;
  /** False when the user or the organization keeps message content out of emails. */
  showContent: boolean;
  contentDisabledByUser: boolean;
  contentDisabledByRealm: boolean;
  messageCount: number;
  conversations: MissedConversation[];
  settingsUrl: string;
  unsubscribeUrl: string;
}

function disabledNotice(c: MissedMessageContext): string {
  const who = c.contentDisabledByRealm ? 'your organization has' : 'you have';
  return (
    `This email does not include message content because ${who} disabled message content in email ` + `notifications.`
  );
}

function countLine(c: MissedMessageContext): string {
  return c.messageCount === 1 ? 'You have 1 new message' : `You have ${c.messageCount} new messages`;
}

export const missedMessage: EmailTemplate<MissedMessageContext> = {
  subject: (c) => (c.showContent ? c.subject : 'New messages'),
  text: (c) => {
    const lines: string[] = [];
    if (c.showContent) {
      for (const conv of c.conversations) {
        lines.push(conv.header, '');
        for (const sender of conv.senders) {
          sender.messages.forEach((m, i) => {
            const body = m.text.replace(/\r\n/g, '\n');
            lines.push(i === 0 ? `${sender.name}:\n${body}` : body, '');
          });
        }
        lines.push(`View or reply in Zulip: ${conv.url}`, '', '');
      }
    } else {
      lines.push(`${countLine(c)} in ${c.realmName}.`, '', disabledNotice(c), '');
      for (const conv of c.conversations) lines.push(`View in Zulip: ${conv.url}`);
      lines.push('');
    }
    lines.push('Do not reply to this email: reply in Zulip instead.');
    lines.push(`Manage email preferences: ${c.settingsUrl}`);
    lines.push(`Unsubscribe from missed-message emails: ${c.unsubscribeUrl}`);
    return lines.join('\n');
  },
  html: (c) =>
    html`${
        c.showContent
          ? c.conversations.map(
              (conv) =>
                html`<div style="margin-bottom:20px">
                  <div style="background:#f0f4f8;padding:6px 10px;border-radius:4px;font-weight:bold">
                    ${
                      conv.channel
                        ? html`<a href="${safeUrl(conv.channel.url)}">${conv.channel.name}</a> &gt;
                            <a href="${safeUrl(conv.url)}">${conv.channel.topic}</a>`
                        : html`<a href="${safeUrl(conv.url)}">${conv.header}</a>`
                    }
                  </div>
                  ${conv.senders.map(
                    (sender) =>
                      html`<div style="padding:6px 10px">
                        <b>${sender.name}</b>
                        ${sender.messages.map((m) => html`<div>${raw(m.html)}</div>`)}
                      </div>`,
                  )}
                </div>`,
            )
          : html`<p>${countLine(c)} in <a href="${safeUrl(c.realmUrl)}">${c.realmName}</a>.</p>
              <p>${disabledNotice(c)}</p>
              ${c.conversations.map((conv) => html`<p><a href="${safeUrl(conv.url)}">View in Zulip</a></p>`)}`
      }
      <p>Do not reply to this email: reply in Zulip instead.</p>
      <p>
        <a href="${safeUrl(c.settingsUrl)}">Manage email preferences</a> |
        <a href="${safeUrl(c.unsubscribeUrl)}">Unsubscribe from missed-message emails</a>
      </p>`,
  footer: (c) =>
    `You get this email because you were away when messages for you arrived in ${c.realmName} ` + `(${c.realmUrl}).`,
};
