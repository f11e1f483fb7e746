import type { EmailTemplate } from './templates/layout';
import { confirmNewEmail, notifyChangeInEmail } from './templates/email-change';
import { invitation } from './templates/invitation';
import { missedMessage } from './templates/missed-message';
import { testEmail } from './templates/test-email';

/**
 * Every email template, by the name jobs carry (an email job stores the name and the context and
 * is rendered when sent). Add new templates here; see docs/DEVELOPING.md "Email".
 */
export const EMAIL_TEMPLATES = {
  test: testEmail,
  confirm_new_email: confirmNewEmail,
  notify_change_in_email: notifyChangeInEmail,
  invitation,
  missed_message: missedMessage,
} satisfies Record<string, EmailTemplate<never>>;

export type EmailTemplateName = keyof typeof EMAIL_TEMPLATES;

/** The context type a template takes. */
export type EmailContext<N extends EmailTemplateName> =
  (typeof EMAIL_TEMPLATES)[N] extends EmailTemplate<infer C> ? C : never;
