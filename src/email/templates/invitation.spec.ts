import { invitation } from './invitation';
import { renderEmail } from './layout';

describe('invitation email', () => {
  const context = {
    realmName: 'Lear & Co',
    realmUrl: 'https://lear.example.com',
    referrerName: '<b>King</b> Lear',
    referrerEmail: 'king@lear.test',
    activateUrl: 'https://lear.example.com/join/abcdefghijklmnopqrstuvwx/',
    validity: 'for 10 days',
  };

  it('names the referrer and the organization, and links to the registration page', () => {
    const out = renderEmail(invitation, context);
    expect(out.subject).toBe('<b>King</b> Lear invited you to join Lear & Co');
    expect(out.text).toContain('https://lear.example.com/join/abcdefghijklmnopqrstuvwx/');
    expect(out.text).toContain('The link works once, for 10 days.');
    expect(out.html).toContain('href="https://lear.example.com/join/abcdefghijklmnopqrstuvwx/"');
  });

  it('escapes every value in the HTML part', () => {
    const out = renderEmail(invitation, context);
    expect(out.html).toContain('&lt;b&gt;King&lt;/b&gt; Lear');
    expect(out.html).not.toContain('<b>King</b>');
    expect(out.html).toContain('Lear &amp; Co');
  });

  it('never links to something that is not http(s)', () => {
    const out = renderEmail(invitation, { ...context, activateUrl: 'javascript:alert(1)' });
    expect(out.html).not.toContain('href="javascript:');
  });
});
