import { escapeHtml, html, raw, safeUrl } from './html';
import { EmailTemplate, renderEmail } from './layout';

describe('html tag', () => {
  it('escapes interpolated text, keeps SafeHtml, flattens arrays, drops empty values', () => {
    const name = `<img src=x onerror="alert('x')"> & co`;
    const items = ['a<b', 'c'].map((i) => html`<li>${i}</li>`);
    // Prettier would format the markup inside the tag:
    // prettier-ignore
    const out = html`<p title="${name}">${name}</p><ul>${items}</ul>${null}${undefined}${false}${0}${raw('<hr>')}`;
    expect(out.value).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; co">' +
        '&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; co</p>' +
        '<ul><li>a&lt;b</li><li>c</li></ul>0<hr>',
    );
    expect(escapeHtml('"\'<>&')).toBe('&quot;&#39;&lt;&gt;&amp;');
  });

  it('lets only http(s) and mailto URLs be links', () => {
    expect(safeUrl('https://chat.example.com/#narrow')).toBe('https://chat.example.com/#narrow');
    expect(safeUrl('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(safeUrl('javascript:alert(1)')).toBe('#');
    expect(safeUrl(' data:text/html,x')).toBe('#');
  });
});

describe('email layout', () => {
  const template: EmailTemplate<{ who: string }> = {
    subject: (c) => `Hello\r\n  ${c.who}`,
    text: (c) => `Hi ${c.who},\n\nbody\n\n`,
    html: (c) => html`<p>Hi ${c.who}</p>`,
    footer: (c) => `Footer for ${c.who}`,
  };

  it('keeps the subject on one line and wraps both bodies with the footer', () => {
    const out = renderEmail(template, { who: '<Ann>' });
    expect(out.subject).toBe('Hello <Ann>');
    expect(out.text).toBe('Hi <Ann>,\n\nbody\n\n-- \nFooter for <Ann>\n');
    expect(out.html).toMatch(/^<!DOCTYPE html>/);
    expect(out.html).toContain('<title>Hello &lt;Ann&gt;</title>');
    expect(out.html).toContain('<p>Hi &lt;Ann&gt;</p>');
    expect(out.html).toContain('<div class="footer">Footer for &lt;Ann&gt;</div>');
  });

  it('leaves the footer out when the template has none', () => {
    const out = renderEmail({ ...template, footer: undefined }, { who: 'Ann' });
    expect(out.text).toBe('Hi Ann,\n\nbody\n');
    expect(out.html).not.toContain('class="footer"');
  });
});
