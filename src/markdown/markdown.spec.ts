import { renderMarkdown } from './render';
import { demoRealmContext } from './testing/demo-realm';
import type { MarkdownContext } from './types';

const html = (content: string, context: Partial<MarkdownContext> = {}) =>
  renderMarkdown(content, demoRealmContext(context)).html;

describe('paragraphs and inline formatting', () => {
  it('turns single newlines into <br> and blank lines into paragraphs', () => {
    expect(html('a\nb\n\nc')).toBe('<p>a<br>\nb</p>\n<p>c</p>');
  });

  it('keeps indentation of continuation lines', () => {
    expect(html('a\n  b')).toBe('<p>a<br>\n  b</p>');
  });

  it('does Zulip emphasis: ** and * but not underscores', () => {
    expect(html('**b** *i* _u_ __uu__')).toBe('<p><strong>b</strong> <em>i</em> _u_ __uu__</p>');
    expect(html('***both***')).toBe('<p><strong><em>both</em></strong></p>');
    expect(html('char *x = (char *)y')).toBe('<p>char *x = (char *)y</p>');
    expect(html('*a **b** c*')).toBe('<p><em>a <strong>b</strong> c</em></p>');
  });

  it('does not pair emphasis across lines or code spans', () => {
    expect(html('**a\nb**')).toBe('<p>**a<br>\nb**</p>');
    expect(html('**a `b**` c**')).toBe('<p><strong>a <code>b**</code> c</strong></p>');
  });

  it('strikes through with ~~', () => {
    expect(html('~~gone~~ ~~~not~~~')).toBe('<p><del>gone</del> ~~~not~~~</p>');
  });

  it('keeps spaces inside inline code and does not format it', () => {
    expect(html('` a *b* `')).toBe('<p><code> a *b* </code></p>');
    expect(html('``a`b``')).toBe('<p><code>a`b</code></p>');
  });

  it('supports backslash escapes', () => {
    expect(html('\\*not em\\*')).toBe('<p>*not em*</p>');
  });

  it('escapes HTML and keeps entities', () => {
    expect(html('<b>x</b> &amp; & "q"')).toBe('<p>&lt;b&gt;x&lt;/b&gt; &amp; &amp; "q"</p>');
  });

  it('renders headings only with a space after #', () => {
    expect(html('## Two ##\n#none')).toBe('<h2>Two</h2>\n<p>#none</p>');
  });

  it('renders horizontal rules', () => {
    expect(html('a\n\n---\n\nb')).toBe('<p>a</p>\n<hr>\n<p>b</p>');
  });

  it('flags /me messages', () => {
    const result = renderMarkdown('/me waves');
    expect(result.isMeMessage).toBe(true);
    expect(result.html).toBe('<p>/me waves</p>');
    expect(renderMarkdown('/mewaves').isMeMessage).toBe(false);
  });
});

describe('code blocks', () => {
  it('wraps fenced code like Zulip and names the language', () => {
    expect(html('```js\nlet a = "x";\n```')).toBe(
      '<div class="codehilite" data-code-language="JavaScript"><pre><span></span><code>let a = "x";\n</code></pre></div>',
    );
  });

  it('keeps unknown languages as typed (lowercased)', () => {
    expect(html('```MyLang\nx\n```')).toContain('data-code-language="mylang"');
  });

  it('uses the realm default language for bare fences', () => {
    expect(html('```\nx\n```', { defaultCodeBlockLanguage: 'python' })).toContain('data-code-language="Python"');
  });

  it('escapes quotes when no language is set', () => {
    expect(html('```\n"x" & \'y\'\n```')).toBe(
      '<div class="codehilite"><pre><span></span><code>&quot;x&quot; &amp; &#39;y&#39;\n</code></pre></div>',
    );
  });

  it('runs an unclosed fence to the end of the message', () => {
    expect(html('```\na\nb')).toBe('<div class="codehilite"><pre><span></span><code>a\nb\n</code></pre></div>');
  });

  it('renders nothing for an empty fence', () => {
    expect(html('```\n```\ntext')).toBe('<p>text</p>');
  });

  it('supports ~~~ fences and 4-space indented code', () => {
    expect(html('~~~\n`x`\n~~~')).toContain('<code>`x`\n</code>');
    expect(html('    code  here')).toBe(
      '<div class="codehilite"><pre><span></span><code>code  here\n</code></pre></div>',
    );
  });
});

describe('quotes and spoilers', () => {
  it('renders > quotes up to the next blank line', () => {
    expect(html('> a\nb\n\nc')).toBe('<blockquote>\n<p>a<br>\nb</p>\n</blockquote>\n<p>c</p>');
  });

  it('renders ```quote blocks with Markdown inside', () => {
    expect(html('```quote\n**x**\n```')).toBe('<blockquote>\n<p><strong>x</strong></p>\n</blockquote>');
  });

  it('renders spoilers, with or without a header', () => {
    expect(html('```spoiler Title\nbody\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>Title</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>body</p>\n</div></div>',
    );
    expect(html('```spoiler\nbody\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>body</p>\n</div></div>',
    );
  });
});

describe('lists', () => {
  it('nests with two spaces of indentation', () => {
    expect(html('* a\n  * b\n* c')).toBe('<ul>\n<li>a<ul>\n<li>b</li>\n</ul>\n</li>\n<li>c</li>\n</ul>');
  });

  it('keeps the first number as start', () => {
    expect(html('4. x\n9. y')).toBe('<ol start="4">\n<li>x</li>\n<li>y</li>\n</ol>');
  });

  it('lets a list hang off a paragraph', () => {
    expect(html('Items:\n- a\n- b')).toBe('<p>Items:</p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>');
  });

  it('makes all items loose when any are separated by a blank line', () => {
    expect(html('- a\n\n- b')).toBe('<ul>\n<li><p>a</p>\n</li>\n<li><p>b</p>\n</li>\n</ul>');
  });

  it('starts a new list when the bullet changes', () => {
    expect(html('- a\n* b')).toBe('<ul>\n<li>a</li>\n</ul>\n<ul>\n<li>b</li>\n</ul>');
  });
});

describe('tables', () => {
  it('renders alignment and pads short rows', () => {
    expect(html('| a | b |\n|:-|-:|\n| 1 |')).toBe(
      '<table>\n<thead>\n<tr>\n<th style="text-align: left;">a</th>\n<th style="text-align: right;">b</th>\n</tr>\n' +
        '</thead>\n<tbody>\n<tr>\n<td style="text-align: left;">1</td>\n<td style="text-align: right;"></td>\n</tr>\n' +
        '</tbody>\n</table>',
    );
  });

  it('does not split cells on pipes inside code', () => {
    expect(html('a | b\n--|--\n`x|y` | z')).toContain('<td><code>x|y</code></td>');
  });
});

describe('links', () => {
  it('renders named links with titles and shows the URL for empty text', () => {
    expect(html('[Zulip](https://zulip.com "Chat") [ ](https://x.org)')).toBe(
      '<p><a href="https://zulip.com" title="Chat">Zulip</a> <a href="https://x.org">https://x.org</a></p>',
    );
  });

  it('adds http:// to scheme-less links and mailto: to addresses', () => {
    expect(html('[a](zulip.com) [b](me@example.com)')).toBe(
      '<p><a href="http://zulip.com">a</a> <a href="mailto:me@example.com">b</a></p>',
    );
  });

  it('makes links into the realm relative', () => {
    expect(html('[n](http://zulip.testserver/#narrow/channel/1-Verona)')).toBe(
      '<p><a href="#narrow/channel/1-Verona">n</a></p>',
    );
  });

  it('does not support reference links or images', () => {
    expect(html('[a][b]\n\n[b]: http://x.com')).toBe(
      '<p>[a][b]</p>\n<p>[b]: <a href="http://x.com">http://x.com</a></p>',
    );
    expect(html('![alt](http://x.com/a.txt)')).toBe('<p>!<a href="http://x.com/a.txt">alt</a></p>');
  });

  it('autolinks URLs, domains and email addresses like Zulip', () => {
    expect(html('see https://x.com/a_(b), zulip.com and hi@zulip.com.')).toBe(
      '<p>see <a href="https://x.com/a_(b)">https://x.com/a_(b)</a>, <a href="http://zulip.com">zulip.com</a>' +
        ' and <a href="mailto:hi@zulip.com">hi@zulip.com</a>.</p>',
    );
  });

  it('does not autolink file names, unknown TLDs or mid-word text', () => {
    expect(html('readme.md main.py e.g. node.js x/zulip.com')).toBe(
      '<p>readme.md main.py e.g. node.js x/zulip.com</p>',
    );
  });

  it('does not format link text', () => {
    expect(html('[**a** :smile:](https://x.com)')).toBe('<p><a href="https://x.com">**a** :smile:</a></p>');
  });

  it('reports links and uploads', () => {
    const result = renderMarkdown(
      '[f](/user_uploads/2/ab/f.pdf) [g](http://zulip.testserver/user_uploads/2/cd/g.txt) [h](https://elsewhere.org/user_uploads/x)',
      demoRealmContext(),
    );
    expect(result.hasLink).toBe(true);
    expect(result.hasAttachment).toBe(true);
    expect(result.linkedUploadPathIds).toEqual(['2/ab/f.pdf', '2/cd/g.txt']);
    expect(renderMarkdown('no links').hasLink).toBe(false);
  });
});

describe('inline previews', () => {
  const img = 'https://example.com/cat.png';
  const thumb = (size: string) => `/thumbnail?url=https%3A%2F%2Fexample.com%2Fcat.png&amp;size=${size}`;
  const preview = (title = '') =>
    `<div class="message_inline_image"><a href="${img}"${title}>` +
    `<img data-src-fullsize="${thumb('full')}" src="${thumb('thumbnail')}"></a></div>`;

  it('replaces a paragraph that is only an image URL', () => {
    const result = renderMarkdown(img, demoRealmContext());
    expect(result.html).toBe(preview());
    expect(result.hasImage).toBe(true);
  });

  it('keeps named links and titles the preview', () => {
    expect(html(`[Cat](${img})`)).toBe(`<p><a href="${img}">Cat</a></p>\n${preview(' title="Cat"')}`);
  });

  it('previews each URL once, after its paragraph', () => {
    expect(html(`${img} and ${img}\n\nnext`)).toBe(
      `<p><a href="${img}">${img}</a> and <a href="${img}">${img}</a></p>\n${preview()}<p>next</p>`,
    );
  });

  it('does not preview inside quotes, or when previews are off', () => {
    expect(html(`> ${img}`)).not.toContain('message_inline_image');
    const off = renderMarkdown(img, demoRealmContext({ imagePreviews: false }));
    expect(off.html).toBe(`<p><a href="${img}">${img}</a></p>`);
    expect(off.hasImage).toBe(false);
  });

  it('previews nothing when a message has too many links', () => {
    const many = Array.from({ length: 25 }, (_, i) => `https://example.com/${i}.png`).join(' ');
    expect(html(many)).not.toContain('message_inline_image');
  });

  it('previews YouTube videos and keeps the link', () => {
    expect(html('https://www.youtube.com/watch?v=abc_123')).toBe(
      '<p><a href="https://www.youtube.com/watch?v=abc_123">https://www.youtube.com/watch?v=abc_123</a></p>\n' +
        '<div class="youtube-video message_inline_image"><a data-id="abc_123" href="https://www.youtube.com/watch?v=abc_123">' +
        '<img src="/thumbnail?url=https%3A%2F%2Fi.ytimg.com%2Fvi%2Fabc_123%2Fdefault.jpg&amp;size=thumbnail"></a></div>',
    );
  });

  it('uses the thumbnail URL builder from the context', () => {
    expect(html(img, { thumbnailUrl: (url, size) => `/camo/${size}?u=${encodeURIComponent(url)}` })).toContain(
      'src="/camo/thumbnail?u=https%3A%2F%2Fexample.com%2Fcat.png"',
    );
  });
});

describe('emoji, emoticons, time and math', () => {
  it('renders realm emoji, :zulip: and Unicode emoji names', () => {
    expect(html(':green_tick: :zulip: :thumbs_up:')).toBe(
      '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"> ' +
        '<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"> ' +
        '<span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span></p>',
    );
  });

  describe('custom (realm) emoji', () => {
    const parrot = { id: '7', name: 'party_parrot', sourceUrl: '/user_avatars/2/emoji/images/0a1b2c3d.gif' };
    const smile = { id: '8', name: 'smile', sourceUrl: '/user_avatars/2/emoji/images/4e5f6a7b.png' };
    const img = (e: { name: string; sourceUrl: string }) =>
      `<img alt=":${e.name}:" class="emoji" src="${e.sourceUrl}" title="${e.name.replace(/_/g, ' ')}">`;

    it('renders as Zulip’s make_realm_emoji, title with spaces for underscores', () => {
      expect(html('hi :party_parrot:!', { realmEmoji: [parrot] })).toBe(`<p>hi ${img(parrot)}!</p>`);
    });

    it('takes precedence over the Unicode emoji of the same name', () => {
      expect(html(':smile:', { realmEmoji: [smile] })).toBe(`<p>${img(smile)}</p>`);
      expect(html(':smile:', { realmEmoji: [] })).toContain('emoji-1f642');
    });

    it('is matched by exact name; emoji not given (deactivated, another realm’s) stay text', () => {
      expect(html(':Party_Parrot: :party_parrot_: :no_such_emoji:', { realmEmoji: [parrot] })).toBe(
        '<p>:Party_Parrot: :party_parrot_: :no_such_emoji:</p>',
      );
    });

    it('is not rendered in code or link text, and is inside emphasis and quotes', () => {
      expect(html('`:party_parrot:`', { realmEmoji: [parrot] })).toBe('<p><code>:party_parrot:</code></p>');
      expect(html('[:party_parrot:](https://example.com)', { realmEmoji: [parrot] })).toBe(
        '<p><a href="https://example.com">:party_parrot:</a></p>',
      );
      expect(html('*:party_parrot:*\n\n> :party_parrot:', { realmEmoji: [parrot] })).toBe(
        `<p><em>${img(parrot)}</em></p>\n<blockquote>\n<p>${img(parrot)}</p>\n</blockquote>`,
      );
    });

    it('renders many occurrences', () => {
      const out = html(':party_parrot:'.repeat(1000), { realmEmoji: [parrot] });
      expect(out.split('<img ').length - 1).toBe(1000);
    });
  });

  it('translates emoticons only when the sender enabled it', () => {
    expect(html(':D', { translateEmoticons: true })).toContain('emoji-1f600');
    expect(html(':D')).toBe('<p>:D</p>');
    expect(html('http://x.com/:(', { translateEmoticons: true })).not.toContain('emoji');
  });

  it('renders <time:…> from ISO times and UNIX timestamps', () => {
    expect(html('<time:2024-03-01T15:00:00+01:00>')).toBe(
      '<p><time datetime="2024-03-01T14:00:00Z">2024-03-01T15:00:00+01:00</time></p>',
    );
    expect(html('<time:1496701800>')).toBe('<p><time datetime="2017-06-05T22:30:00Z">1496701800</time></p>');
    expect(html('<time:yesterday>')).toBe('<p><span>yesterday</span></p>');
  });

  it('renders math blocks and inline math, and errors as source', () => {
    expect(html('$$x$$')).toContain('<span class="katex">');
    expect(html('```math\nx^2\n```')).toMatch(/^<p><span class="katex-display">/);
    expect(html('$$\\frac{$$')).toBe('<p><span class="tex-error">$$\\frac{$$</span></p>');
  });
});
