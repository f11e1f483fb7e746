import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderMarkdown } from '../markdown';
import { decodeEntities, mobilePushContent, truncatePushContent } from './push-content';

const opts = { serverHosts: ['zulip.testserver'] };
const text = (html: string) => mobilePushContent(html, opts);

interface MarkdownCase {
  name: string;
  expected_output: string;
  text_content?: string;
}

/** Zulip's Markdown test cases carry the push text of their HTML (test_push_notifications.py runs them). */
const CASES_PATH = path.join(__dirname, '../../test/fixtures/zulip/markdown-cases.json');
const cases = (
  JSON.parse(fs.readFileSync(CASES_PATH, 'utf8')) as { regular_tests: MarkdownCase[] }
).regular_tests.filter((c) => c.text_content !== undefined);

describe('mobilePushContent', () => {
  it('finds Zulip’s test cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  /**
   * The cases' text_content predates Zulip's collapsing of quotes mixed with other text (which
   * get_mobile_push_content does now): for these, the text without collapsing must match, and the
   * collapsed text is asserted separately.
   */
  const collapsed: Record<string, string> = {
    fenced_complexly_nested_quote: 'I heard about this second hand...\n[…]Please advise.\n',
    fenced_normal_quote: 'Hamlet said:\n[…]',
    multiple_blockquote_with_quote_and_reply: 'Hamlet said:\n[…]\nWelcome to Open Source.',
    spoilers_block_quote: '[…]outside quote',
  };

  it.each(cases.map((c) => [c.name, c] as const))('Zulip case %s', (name, c) => {
    if (collapsed[name] === undefined) {
      expect(text(c.expected_output)).toBe(c.text_content);
    } else {
      expect(mobilePushContent(c.expected_output, { ...opts, collapseQuotes: false })).toBe(c.text_content);
      expect(text(c.expected_output).startsWith(collapsed[name])).toBe(true);
    }
  });

  it('turns emoji spans into Unicode and images into their alt text', () => {
    expect(
      text(
        '<p>Hi <span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span> ' +
          '<span class="emoji emoji-1f1fa-1f1f8" title="us">:us:</span> ' +
          '<img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"></p>',
      ),
    ).toBe('Hi 👍 🇺🇸 :green_tick:');
  });

  it('quotes blockquotes and numbers ordered lists, nested ones indented', () => {
    expect(text('<blockquote>\n<p>one</p>\n<p>two</p>\n</blockquote>')).toBe('> one\n> two\n');
    expect(text('<ol start="2">\n<li>a<ol>\n<li>x</li>\n</ol>\n</li>\n<li>b</li>\n</ol>')).toBe('2. a\n  1. x\n3. b');
  });

  it('reduces spoilers to their header', () => {
    const spoiler = (header: string) =>
      `<div class="spoiler-block"><div class="spoiler-header">${header}</div>` +
      '<div class="spoiler-content" aria-hidden="true">\n<p>secret</p>\n</div></div>';
    expect(text(spoiler('\n<p>Title</p>\n'))).toBe('Title (…)\n');
    expect(text(spoiler('\n'))).toBe('(…)\n');
  });

  it('shows TeX as its source', () => {
    const html = renderMarkdown('Euler: $$e^{i\\pi} + 1 = 0$$!').html;
    expect(html).toContain('class="katex"');
    expect(text(html)).toBe('Euler: $$e^{i\\pi} + 1 = 0$$!');
  });

  it('collapses a quoted reply when the message adds its own text', () => {
    const said =
      '<p><span class="user-mention silent" data-user-id="10">King Hamlet</span> ' +
      '<a href="http://zulip.testserver/#narrow/channel/3-Verona/topic/test/near/52">said</a>:</p>\n' +
      '<blockquote>\n<p>original</p>\n</blockquote>\n';
    // The "said" line is replaced by […] (its trailing newline goes with it, as lxml's replace()
    // takes the tail); the quote after it is dropped, its newline kept.
    expect(text(said + '<p>my reply</p>')).toBe('[…]\nmy reply');
    // Only the quote: nothing to collapse into.
    expect(text(said)).toBe('King Hamlet said:\n> original\n\n');
    // A link to another server is not a quote-and-reply line.
    const elsewhere = said.replace('zulip.testserver', 'example.com');
    expect(text(elsewhere + '<p>my reply</p>')).toBe('King Hamlet said:\n[…]my reply');
  });

  it('collapses what our renderer makes of a quote-and-reply', () => {
    const html = renderMarkdown(
      '@_**King Hamlet|10** [said](http://zulip.testserver/#narrow/channel/3-Verona/topic/test/near/52):\n' +
        '```quote\noriginal\n```\nmy reply',
      { realmUrl: 'http://zulip.testserver', users: [{ id: 10, fullName: 'King Hamlet', isActive: true }] },
    ).html;
    expect(text(html)).toBe('[…]\nmy reply');
  });

  it('decodes entities and keeps text of unknown markup', () => {
    expect(text('<p>a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &#x1F600;</p>')).toBe('a & b <c> "d" \'e\' 😀');
    expect(decodeEntities('&bogus; &#0;')).toBe('&bogus; &#0;');
    expect(text('<p>a <code>x &lt; y</code> b</p>')).toBe('a x < y b');
  });
});

describe('truncatePushContent', () => {
  it('keeps 200 code points and adds an ellipsis', () => {
    expect(truncatePushContent('a'.repeat(200))).toEqual({ content: 'a'.repeat(200), truncated: false });
    expect(truncatePushContent('a'.repeat(201))).toEqual({ content: 'a'.repeat(200) + '…', truncated: true });
    // Astral characters count once, as in Python.
    const emoji = '😀'.repeat(200);
    expect(truncatePushContent(emoji)).toEqual({ content: emoji, truncated: false });
    expect(truncatePushContent(emoji + 'x').content).toBe(emoji + '…');
  });
});
