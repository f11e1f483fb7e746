import { html, SafeHtml } from './html';

/** One email template: a subject and a body in plain text and in HTML, from a typed context. */
export interface EmailTemplate<C> {
  subject(context: C): string;
  /** Plain-text body; the layout adds the footer. */
  text(context: C): string;
  /** HTML body (built with the `html` tag); the layout wraps it in the page. */
  html(context: C): SafeHtml;
  /** Why the person gets this email (plain text, under both bodies). */
  footer?(context: C): string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const STYLE = `body{margin:0;padding:0;background:#f5f5f5;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#222}
.box{max-width:600px;margin:24px auto;padding:24px;background:#fff;border-radius:6px;line-height:1.5}
.footer{max-width:600px;margin:0 auto 24px;padding:0 24px;color:#777;font-size:12px}
a{color:#2f63ad}`;

/** The base layout every email shares. */
export function renderEmail<C>(template: EmailTemplate<C>, context: C): RenderedEmail {
  // A subject is one header line.
  const subject = template.subject(context).replace(/\s+/g, ' ').trim();
  const footer = template.footer?.(context);
  const text = template.text(context).trimEnd() + (footer ? `\n\n-- \n${footer}\n` : '\n');
  const page = html`<!DOCTYPE html>
    <html>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${subject}</title>
        <style>
          ${STYLE}
        </style>
      </head>
      <body>
        <div class="box">${template.html(context)}</div>
        ${footer ? html`<div class="footer">${footer}</div>` : ''}
      </body>
    </html> `;
  return { subject, text, html: page.value };
}
