import { html, safeUrl } from './html';
import { EmailTemplate } from './layout';

/** Sent to each address of POST /invites (Zulip's zerver/emails/invitation). */
export interface InvitationContext {
  realmName: string;
  realmUrl: string;
  referrerName: string;
  referrerEmail: string;
  /** The registration link. */
  activateUrl: string;
  /** Human wording of the validity ("for 10 days", "until revoked"). */
  validity: string;
}

export const invitation: EmailTemplate<InvitationContext> = {
  subject: (c) => `${c.referrerName} invited you to join ${c.realmName}`,
  text: (c) =>
    `Hi,\n\n` +
    `${c.referrerName} (${c.referrerEmail}) invited you to join ${c.realmName}, a Zulip organization (${c.realmUrl}).\n\n` +
    `To create your account, open this link:\n${c.activateUrl}\n\n` +
    `The link works once, ${c.validity}.`,
  html: (c) =>
    html`<p>Hi,</p>
      <p>
        ${c.referrerName} (${c.referrerEmail}) invited you to join
        <a href="${safeUrl(c.realmUrl)}">${c.realmName}</a>, a Zulip organization.
      </p>
      <p><a href="${safeUrl(c.activateUrl)}">Create your account</a></p>
      <p>The link works once, ${c.validity}.</p>`,
  footer: (c) => `You get this email because ${c.referrerName} invited you to ${c.realmName}.`,
};
