import { html, safeUrl } from './html';
import { EmailTemplate } from './layout';

/** Sent to the new address of PATCH /settings `email` (Zulip's confirm_new_email). */
export interface ConfirmNewEmailContext {
  realmName: string;
  realmUrl: string;
  fullName: string;
  oldEmail: string;
  newEmail: string;
  /** The confirmation link. */
  activateUrl: string;
}

export const confirmNewEmail: EmailTemplate<ConfirmNewEmailContext> = {
  subject: (c) => `Verify your new email address for ${c.realmName}`,
  text: (c) =>
    `Hi ${c.fullName},\n\n` +
    `Someone asked to change the email address of your account in ${c.realmName} (${c.realmUrl}) ` +
    `from ${c.oldEmail} to ${c.newEmail}.\n\n` +
    `To confirm the change, open this link:\n${c.activateUrl}\n\n` +
    `The link works once and for a day. If you did not ask for this, ignore this email: nothing changes ` +
    `until the link is opened.`,
  html: (c) =>
    html`<p>Hi ${c.fullName},</p>
      <p>
        Someone asked to change the email address of your account in
        <a href="${safeUrl(c.realmUrl)}">${c.realmName}</a> from <b>${c.oldEmail}</b> to <b>${c.newEmail}</b>.
      </p>
      <p><a href="${safeUrl(c.activateUrl)}">Confirm the email change</a></p>
      <p>
        The link works once and for a day. If you did not ask for this, ignore this email: nothing changes until the
        link is opened.
      </p>`,
  footer: (c) => `You get this email because an email change was requested for an account in ${c.realmName}.`,
};

/** Sent to the old address once a change is confirmed (Zulip's notify_change_in_email). */
export interface NotifyChangeInEmailContext {
  realmName: string;
  realmUrl: string;
  newEmail: string;
}

export const notifyChangeInEmail: EmailTemplate<NotifyChangeInEmailContext> = {
  subject: (c) => `Email address changed for ${c.realmName}`,
  text: (c) =>
    `The email address of your account in ${c.realmName} (${c.realmUrl}) was changed to ${c.newEmail}.\n\n` +
    `If you did not make this change, contact the organization's administrators at once.`,
  html: (c) =>
    html`<p>
        The email address of your account in <a href="${safeUrl(c.realmUrl)}">${c.realmName}</a> was changed to
        <b>${c.newEmail}</b>.
      </p>
      <p>If you did not make this change, contact the organization's administrators at once.</p>`,
  footer: (c) => `Sent to the former address of an account in ${c.realmName}.`,
};
