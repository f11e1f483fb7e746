import { html, safeUrl } from './html';
import { EmailTemplate } from './layout';

/** Sent to check that outgoing email works (the pipeline's first template). */
export interface TestEmailContext {
  /** The server's address, e.g. https://chat.example.com. */
  serverUrl: string;
  /** Who asked for it (shown in the body). */
  requestedBy: string;
}

export const testEmail: EmailTemplate<TestEmailContext> = {
  subject: () => 'Zulip test email',
  text: (c) =>
    `This is a test email from the Zulip server at ${c.serverUrl}, sent at the request of ${c.requestedBy}.\n\n` +
    `If you are reading it, the server's outgoing email works.`,
  html: (c) =>
    html`<p>
        This is a test email from the Zulip server at <a href="${safeUrl(c.serverUrl)}">${c.serverUrl}</a>, sent at the
        request of <b>${c.requestedBy}</b>.
      </p>
      <p>If you are reading it, the server's outgoing email works.</p>`,
  footer: (c) => `Sent by the Zulip server at ${c.serverUrl}.`,
};
