import { renderMarkdown, renderMarkdownWithAudit } from './render';
import { isSafeUrl, sanitizeHtml } from './sanitize';
import { demoRealmContext } from './testing/demo-realm';
import { DEFAULT_LIMITS } from './limits';

const HOSTILE_INPUTS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](java\nscript:alert(1))',
  '[x]( javascript:alert(1))',
  '[x](javascript&colon;alert(1))',
  '[x](&#106;avascript:alert(1))',
  '[x](data:text/html;base64,PHNjcmlwdD4=)',
  '[x](vbscript:msgbox(1))',
  '[x](file:///etc/passwd)',
  '[x](https://ok.com "a\\" onmouseover=\\"alert(1)")',
  '[x](https://ok.com "<script>")',
  '[<img src=x onerror=alert(1)>](https://ok.com)',
  'https://ok.com/"onmouseover="alert(1)',
  'https://ok.com/<script>',
  'javascript:alert(1)',
  '<time:"><script>alert(1)</script>>',
  '$$\\href{javascript:alert(1)}{x}$$',
  '$$\\url{javascript:alert(1)}$$',
  '```math\n\\htmlClass{x" onclick="alert(1)}{y}\n```',
  '```js" onmouseover="alert(1)\nx\n```',
  '```spoiler <img src=x onerror=alert(1)>\nx\n```',
  '#**<script>**',
  '@**<b>x</b>**',
  ':<script>:',
  '\u0002zph0\u0003',
  '```\na\n```\n\u0002zph0\u0003',
  '| <script> | b |\n|---|---|\n| c | d |',
  '<style>body{display:none}</style>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload=alert(1)>',
  '&lt;script&gt;',
];

const FORBIDDEN_ELEMENTS = /^(script|style|iframe|object|embed|form|input|button|link|meta|base)$/i;

/** Checks every tag in the HTML: no forbidden elements, no event handlers, only safe URLs. */
function assertSafe(html: string): void {
  for (const tag of html.matchAll(/<([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    expect(tag[1]).not.toMatch(FORBIDDEN_ELEMENTS);
    for (const attr of tag[2].matchAll(/\s([\w:-]+)(?:="([^"]*)")?/g)) {
      expect(attr[1]).not.toMatch(/^on/i);
      if (['href', 'src', 'data-src-fullsize'].includes(attr[1])) expect(isSafeUrl(attr[2] ?? '')).toBe(true);
    }
  }
  // Anything tag-like that the scan above did not see must be escaped text.
  expect(html.replace(/<\/?[a-zA-Z][\w-]*(?:\s+[\w:-]+(?:="[^"]*")?)*\s*\/?>/g, '')).not.toContain('<');
}

describe('hostile input', () => {
  it.each(HOSTILE_INPUTS)('renders %j safely', (input) => {
    const { result, violations } = renderMarkdownWithAudit(input, demoRealmContext());
    assertSafe(result.html);
    // Our rules build only allowed HTML; the allow-list pass had nothing to remove.
    expect(violations).toEqual([]);
  });

  it('escapes raw HTML as text', () => {
    expect(renderMarkdown('<script>alert(1)</script>').html).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  });

  it('leaves links with forbidden schemes as plain text', () => {
    expect(renderMarkdown('[x](javascript:alert(1))').html).toBe('<p>[x](javascript:alert(1))</p>');
    expect(renderMarkdown('[x](ftp://files.example.com/a)').html).toBe('<p>[x](ftp://files.example.com/a)</p>');
  });

  it('cannot forge fenced-block placeholders', () => {
    const result = renderMarkdown('```\n<b>\n```\n\n\u0002zph0\u0003');
    expect(result.html).toBe(
      '<div class="codehilite"><pre><span></span><code>&lt;b&gt;\n</code></pre></div>\n<p>zph0</p>',
    );
  });

  it('keeps KaTeX from producing links', () => {
    const html = renderMarkdown('$$\\href{https://x.com}{y}$$').html;
    expect(html).not.toMatch(/<a[\s>]/);
  });

  it('drops unsafe URLs that come from the context', () => {
    const { result, violations } = renderMarkdownWithAudit(':evil:', {
      realmEmoji: [{ id: '1', name: 'evil', sourceUrl: 'javascript:alert(1)' }],
    });
    assertSafe(result.html);
    expect(result.html).toBe('<p><img alt=":evil:" class="emoji" title="evil"></p>');
    expect(violations).toEqual(['attribute src on <img>']);
  });
});

describe('output allow-list', () => {
  it('escapes elements that are not allowed', () => {
    const { html, violations } = sanitizeHtml('<p>a<script>x</script><iframe></iframe></p>');
    expect(html).toBe('<p>a&lt;script&gt;x&lt;/script&gt;&lt;iframe&gt;&lt;/iframe&gt;</p>');
    expect(violations).toEqual(['element <script>', 'element <script>', 'element <iframe>', 'element <iframe>']);
  });

  it('drops attributes that are not allowed or unsafe', () => {
    const { html, violations } = sanitizeHtml(
      '<a href="javascript:x" onclick="y" class="ok">t</a><span style="background:url(x)">s</span><div class="a" data-x="1">d</div>',
    );
    expect(html).toBe('<a class="ok">t</a><span>s</span><div class="a">d</div>');
    expect(violations).toEqual([
      'attribute href on <a>',
      'attribute onclick on <a>',
      'attribute style on <span>',
      'attribute data-x on <div>',
    ]);
  });

  it('accepts relative, http(s) and mailto URLs only', () => {
    expect(isSafeUrl('/user_uploads/1/a.png')).toBe(true);
    expect(isSafeUrl('#narrow/channel/1-x')).toBe(true);
    expect(isSafeUrl('https://x.com')).toBe(true);
    expect(isSafeUrl('mailto:a@b.c')).toBe(true);
    expect(isSafeUrl('javascript:alert(1)')).toBe(false);
    expect(isSafeUrl(' java\tscript:alert(1)')).toBe(false);
    expect(isSafeUrl('&#106;avascript:alert(1)')).toBe(false);
    expect(isSafeUrl('data:text/html,x')).toBe(false);
  });

  it('escapes stray < > and bare ampersands in text', () => {
    expect(sanitizeHtml('a < b > c & d &amp; e').html).toBe('a &lt; b &gt; c &amp; d &amp; e');
  });
});

describe('limits', () => {
  it('renders over-long input as escaped plain text', () => {
    const result = renderMarkdown('**x**\n<b>@**all**', { limits: { maxInputLength: 10 } });
    expect(result.degraded).toBe('too_large');
    expect(result.html).toBe('<p>**x**<br>\n&lt;b&gt;@**all**</p>');
    expect(result.mentionsStreamWildcard).toBe(false);
    expect(DEFAULT_LIMITS.maxInputLength).toBeGreaterThanOrEqual(10_000);
  });

  it('falls back to plain text when the time budget is spent', () => {
    const result = renderMarkdown('**a** @**all**', { limits: { maxRenderMillis: -1 } });
    expect(result.degraded).toBe('timeout');
    expect(result.html).toBe('<p>**a** @**all**</p>');
    expect(result.mentionsStreamWildcard).toBe(false);
  });

  it('caps nesting of quotes and lists', () => {
    const quotes = renderMarkdown('>'.repeat(5000) + ' deep', { limits: { maxBlockNesting: 5 } });
    expect(quotes.html.match(/<blockquote>/g)).toHaveLength(5);
    expect(quotes.html).toContain('&gt;&gt;&gt;');
    const fences = renderMarkdown('~~~quote\n'.repeat(50) + 'x', { limits: { maxBlockNesting: 3 } });
    expect((fences.html.match(/<blockquote>/g) ?? []).length).toBeLessThanOrEqual(4);
    const lists = renderMarkdown(Array.from({ length: 40 }, (_, i) => ' '.repeat(i) + '* x').join('\n'), {
      limits: { maxBlockNesting: 4 },
    });
    expect(lists.html.match(/<ul>/g)).toHaveLength(4);
  });

  it('caps the number of TeX expressions rendered', () => {
    const html = renderMarkdown('$$a$$ $$b$$', { limits: { maxTexExpressions: 1 } }).html;
    expect(html.match(/class="katex"/g)).toHaveLength(1);
    expect(html).toContain('<span class="tex-error">$$b$$</span>');
  });

  const PATHOLOGICAL: Record<string, string> = {
    asterisks: '*a'.repeat(5000),
    strongOpeners: '**a '.repeat(2500),
    tildes: '~~a '.repeat(2500),
    backticks: '`a '.repeat(3300),
    brackets: '['.repeat(10_000),
    linkOpeners: '[a]('.repeat(2500),
    parens: 'http://a.com/' + '('.repeat(9000),
    punctuation: 'a.com' + '.'.repeat(9990),
    mentionOpeners: '@**'.repeat(3300),
    channelOpeners: '#**'.repeat(3300),
    dollars: '$$'.repeat(5000),
    colons: ':'.repeat(10_000),
    emoji: '😀'.repeat(5000),
    zwj: '👩\u200d'.repeat(3300),
    alternatingBullets: '* a\n- b\n'.repeat(1250),
    nestedQuoteFences: '~~~quote\n'.repeat(1100),
    quoteMarkers: '> '.repeat(5000),
    tableRows: 'a|b\n-|-\n' + 'x|y\n'.repeat(2400),
  };

  it.each(Object.entries(PATHOLOGICAL))('renders %s quickly', (_name, input) => {
    const started = Date.now();
    const result = renderMarkdown(input, demoRealmContext());
    expect(Date.now() - started).toBeLessThan(750);
    expect(result.degraded).toBeNull();
    assertSafe(result.html);
  });
});
