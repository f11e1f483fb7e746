/**
 * Linkifiers in the renderer and in topic_links (Zulip's test_markdown.py: test_realm_patterns,
 * test_multiple_matching_realm_patterns, test_links_and_linkifiers_in_topic_name,
 * test_topic_links_ordering_by_priority), URI templates (test_realm_linkifiers.py test_valid_urls),
 * and hostile patterns.
 */
import { renderMarkdown } from './render';
import { compileLinkifiers, linkifierMatches, namedGroups, type LinkifierDef } from './linkifiers';
import { topicLinks } from './topic-links';
import { expandUriTemplate, isValidUriTemplate, parseUriTemplate, uriTemplateVariables } from './uri-template';

let nextId = 1;
const defs = (...pairs: Array<[string, string]>): LinkifierDef[] =>
  pairs.map(([pattern, url_template]) => ({ id: nextId++, pattern, url_template }));
const TRAC: [string, string] = ['#(?P<id>[0-9]{2,8})', 'https://trac.example.com/ticket/{id}'];

function render(content: string, ...pairs: Array<[string, string]>): string {
  return renderMarkdown(content, { linkifiers: compileLinkifiers(defs(...pairs)) }).html;
}
const topic = (name: string, ...pairs: Array<[string, string]>) => topicLinks(compileLinkifiers(defs(...pairs)), name);

describe('linkifiers in messages', () => {
  it('links matches, not inside links, words or after word characters (test_realm_patterns)', () => {
    expect(
      render(
        'We should fix #224 #336 #446 and #115, but not issue#124 or #1124z or [trac #15](https://trac.example.com/ticket/16) today.',
        TRAC,
      ),
    ).toBe(
      '<p>We should fix <a href="https://trac.example.com/ticket/224">#224</a> <a href="https://trac.example.com/ticket/336">#336</a> <a href="https://trac.example.com/ticket/446">#446</a> and <a href="https://trac.example.com/ticket/115">#115</a>, but not issue#124 or #1124z or <a href="https://trac.example.com/ticket/16">trac #15</a> today.</p>',
    );
  });

  it('needs a delimiter before and no letter or digit after', () => {
    const linked = (text: string) => render(text, ['#(?P<id>[0-9]+)', 'https://trac.example.com/ticket/{id}']);
    for (const yes of [
      'Hello #123 World',
      'Hello\u00a0#123\u00a0World',
      'チケットは #123 です',
      '(#123)',
      '"#123"',
      '#123@',
    ]) {
      expect(linked(yes)).toContain('href="https://trac.example.com/ticket/123"');
    }
    for (const no of [
      'Hello #123World',
      'Hello#123 World',
      'チケットは#123です',
      'チケットは #123です',
      ')#123(',
      '##123',
    ]) {
      expect(linked(no)).not.toContain('trac.example.com');
    }
  });

  it('leaves code spans, code blocks and links alone, and links inside emphasis', () => {
    expect(render('`#123` and\n```\n#456\n```', TRAC)).not.toContain('<a');
    expect(render('see https://example.com/#123 now', TRAC)).toBe(
      '<p>see <a href="https://example.com/#123">https://example.com/#123</a> now</p>',
    );
    expect(render('**see #123**', TRAC)).toBe(
      '<p><strong>see <a href="https://trac.example.com/ticket/123">#123</a></strong></p>',
    );
  });

  it('does not run a match into a code span', () => {
    const pair: [string, string] = ['see (?P<x>\\S+ \\S+)', 'https://x.example/{x}'];
    expect(render('see `a b` now', pair)).toBe('<p>see <code>a b</code> now</p>');
    expect(render('see a` b now', pair)).toBe('<p><a href="https://x.example/a%60%20b">see a` b</a> now</p>');
  });

  it('escapes in templates and multi-word patterns (test_realm_patterns)', () => {
    expect(render('url-123 is well-escaped', ['url-(?P<id>[0-9]+)', 'https://example.com/A%20Test/%%%ba/{id}'])).toBe(
      '<p><a href="https://example.com/A%20Test/%25%25%ba/123">url-123</a> is well-escaped</p>',
    );
    expect(
      render('please observe community guidelines here', [
        'community guidelines',
        'https://zulip.com/development-community/#community-norms',
      ]),
    ).toBe(
      '<p>please observe <a href="https://zulip.com/development-community/#community-norms">community guidelines</a> here</p>',
    );
  });

  it('applies linkifiers in order; an earlier one wins an overlap (test_multiple_matching_realm_patterns)', () => {
    expect(
      render(
        'We should fix ABC-123 or [trac ABC-123](https://trac.example.com/ticket/16) today.',
        ['(?P<id>ABC-[0-9]+)', 'https://trac.example.com/ticket/{id}'],
        ['(?P<id>[A-Z][A-Z0-9]*-[0-9]+)', 'https://other-trac.example.com/ticket/{id}'],
      ),
    ).toBe(
      '<p>We should fix <a href="https://trac.example.com/ticket/ABC-123">ABC-123</a> or <a href="https://trac.example.com/ticket/16">trac ABC-123</a> today.</p>',
    );
  });

  it('does not link to unsafe URLs, and makes realm URLs relative', () => {
    expect(render('run js:1', ['js:(?P<x>[0-9])', 'javascript:alert({x})'])).toBe('<p>run js:1</p>');
    const html = renderMarkdown('see #12', {
      realmUrl: 'https://chat.example.com',
      linkifiers: compileLinkifiers(defs(['#(?P<id>[0-9]+)', 'https://chat.example.com/#narrow/id/{id}'])),
    }).html;
    expect(html).toBe('<p>see <a href="#narrow/id/12">#12</a></p>');
  });

  it('renders a message matching 1,000 times, every match linked', () => {
    const content = Array.from({ length: 1000 }, (_, i) => `#${i + 10}`).join(' ');
    const result = renderMarkdown(content, { linkifiers: compileLinkifiers(defs(TRAC)) });
    expect(result.degraded).toBeNull();
    expect(result.html.match(/<a href="https:\/\/trac\.example\.com\/ticket\/\d+">#\d+<\/a>/g)).toHaveLength(1000);
    expect(result.hasLink).toBe(true);
  });

  it('runs hostile patterns in linear time (RE2: no backtracking)', () => {
    const hostile = defs(
      ['(a+)+$', 'https://x.example/1'],
      ['(a|aa)+b', 'https://x.example/2'],
      ['(.*a){20}', 'https://x.example/3'],
      ['(?P<x>(\\w+\\s?)*)!', 'https://x.example/{x}'],
      ['(a*)*(b*)*c', 'https://x.example/5'],
    );
    const compiled = compileLinkifiers(hostile);
    expect(compiled).toHaveLength(5);
    for (const content of ['a'.repeat(9000) + 'X', `${'word '.repeat(1900)}?`, 'a'.repeat(5000) + 'b'.repeat(4000)]) {
      const result = renderMarkdown(content, { linkifiers: compiled });
      expect(result.degraded).toBeNull();
      expect(result.html.startsWith('<p>')).toBe(true);
    }
  });

  it('skips stored linkifiers that no longer compile', () => {
    expect(compileLinkifiers(defs(['(foo', 'https://x.example/'], TRAC))).toHaveLength(1);
  });
});

describe('topic_links', () => {
  it('links matches and bare URLs, linkifiers first', () => {
    expect(topic('#444', TRAC)).toEqual([{ url: 'https://trac.example.com/ticket/444', text: '#444' }]);
    expect(topic('no match here', TRAC)).toEqual([]);
    expect(topic('#234 https://google.com', TRAC)).toEqual([
      { url: 'https://trac.example.com/ticket/234', text: '#234' },
      { url: 'https://google.com', text: 'https://google.com' },
    ]);
    expect(topic('hello#123 #234', TRAC, ['hello#(?P<id>[0-9]+)', 'https://trac.example.com/hello/{id}'])).toEqual([
      { url: 'https://trac.example.com/hello/123', text: 'hello#123' },
      { url: 'https://trac.example.com/ticket/234', text: '#234' },
    ]);
    expect(topic('see zulip.com/foo and http://x.example.org')).toEqual([
      { url: 'https://zulip.com/foo', text: 'zulip.com/foo' },
      { url: 'http://x.example.org', text: 'http://x.example.org' },
    ]);
  });

  it('resolves overlaps by priority (test_multiple_matching_realm_patterns, test_topic_links_ordering_by_priority)', () => {
    const three: Array<[string, string]> = [
      ['(?P<id>ABC-[0-9]+)', 'https://trac.example.com/ticket/{id}'],
      ['(?P<id>[A-Z][A-Z0-9]*-[0-9]+)', 'https://other-trac.example.com/ticket/{id}'],
      ['(?P<id>[A-Z][A-Z0-9]+)', 'https://yet-another-trac.example.com/ticket/{id}'],
    ];
    expect(topic('ABC-123', ...three)).toEqual([{ url: 'https://trac.example.com/ticket/ABC-123', text: 'ABC-123' }]);
    expect(topic('ASD-123 ABC-123 QWE', ...three)).toEqual([
      { url: 'https://other-trac.example.com/ticket/ASD-123', text: 'ASD-123' },
      { url: 'https://trac.example.com/ticket/ABC-123', text: 'ABC-123' },
      { url: 'https://yet-another-trac.example.com/ticket/QWE', text: 'QWE' },
    ]);
    expect(
      topic(
        'http://foo.com a#asd b#bar',
        ['http', 'http://example.com/'],
        ['b#(?P<id>[a-z]+)', 'http://example.com/b/{id}'],
        ['a#(?P<aid>[a-z]+) b#(?P<bid>[a-z]+)', 'http://example.com/a/{aid}/b/{bid}'],
        ['a#(?P<id>[a-z]+)', 'http://example.com/a/{id}'],
      ),
    ).toEqual([
      { text: 'http', url: 'http://example.com/' },
      { text: 'a#asd', url: 'http://example.com/a/asd' },
      { text: 'b#bar', url: 'http://example.com/b/bar' },
    ]);
  });

  it('lets a linkifier that starts before a URL win it (test_links_and_linkifiers_in_topic_name)', () => {
    const two: Array<[string, string]> = [
      ['ABC-42', 'https://google.com'],
      ['com.+(?P<id>ABC\\-[0-9]+)', 'https://trac.example.com/ticket/{id}'],
    ];
    expect(topic('com ABC-42', ...two)).toEqual([{ url: 'https://google.com', text: 'ABC-42' }]);
    expect(topic('https://foo.com/ABC-123', ...two)).toEqual([
      { url: 'https://foo.com/ABC-123', text: 'https://foo.com/ABC-123' },
    ]);
    expect(topic('com https://foo.com/ABC-123', ...two)).toEqual([
      { url: 'https://trac.example.com/ticket/ABC-123', text: 'com https://foo.com/ABC-123' },
    ]);
  });

  it('handles 1,000 matches and hostile patterns', () => {
    const name = Array.from({ length: 1000 }, (_, i) => `#${i + 10}`).join(' ');
    expect(topic(name, TRAC)).toHaveLength(1000);
    expect(topic('a'.repeat(5000) + '!', ['(a+)+$', 'https://x.example/'], ['(a|aa)+b', 'https://y.example/'])).toEqual(
      [],
    );
  });
});

describe('linkifier patterns', () => {
  it('names the groups of a pattern', () => {
    expect([...namedGroups('(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)')]).toEqual(['org', 'repo', 'id']);
    expect([...namedGroups('\\(?P<x>y\\)[(?P<z>)]')]).toEqual([]);
  });

  it('resumes after the linked text, so one delimiter serves two matches', () => {
    const [compiled] = compileLinkifiers(defs(TRAC));
    expect([...linkifierMatches(compiled, 0, '#12,#34')].map((m) => m.text)).toEqual(['#12', '#34']);
  });
});

describe('URI templates (test_valid_urls)', () => {
  it.each([
    'http://example.com/',
    'https://user:password@example.com/',
    'https://example.com/@user/thing',
    'https://example.com/!path',
    'https://example.com/foo[bar]',
    'https://example.com/{foo}{bars}',
    'https://example.com/?foo={foo}',
    'https://example.com/%ba',
    'https://example.com/%%(foo)s',
    'https://example.com{/foo,bar,baz}',
    'https://example.com/{?foo*}',
    'https://example.com/{+foo,bar}',
    'https://chat{.domain}.com/{#foo}',
    'https://zone_{zone}{.domain}.net/ticket{/location}{/id}{?name,chapter}{#fragment:5}',
    '$not_a_url$',
  ])('accepts %s', (url) => expect(isValidUriTemplate(url)).toBe(true));

  it.each([
    'https://example.com/{foo',
    'https://example.com/{{}',
    'https://example.com/{//foo}',
    'https://example.com/{bar++}',
    'https://example.com/{}',
    'https://example.com/{a,}',
    'https://example.com/{a:0}',
    'https://example.com/{=a}',
  ])('refuses %s', (url) => expect(isValidUriTemplate(url)).toBe(false));

  it('expands every operator (RFC 6570 examples)', () => {
    const values = { var: 'value', hello: 'Hello World!', path: '/foo/bar', x: '1024', y: '768', empty: '' };
    const expand = (t: string) => expandUriTemplate(parseUriTemplate(t)!, values);
    expect(expand('{var}')).toBe('value');
    expect(expand('{hello}')).toBe('Hello%20World%21');
    expect(expand('{+path}/here')).toBe('/foo/bar/here');
    expect(expand('{#hello}')).toBe('#Hello%20World!');
    expect(expand('X{.var}')).toBe('X.value');
    expect(expand('{/var,x}/here')).toBe('/value/1024/here');
    expect(expand('{;x,y,empty}')).toBe(';x=1024;y=768;empty');
    expect(expand('{?x,y,empty}')).toBe('?x=1024&y=768&empty=');
    expect(expand('?fixed=yes{&x}')).toBe('?fixed=yes&x=1024');
    expect(expand('{var:3}')).toBe('val');
    expect(expand('{undef}{?undef}x')).toBe('x');
    expect([...uriTemplateVariables(parseUriTemplate('{a}{?b,c}{#a}')!)]).toEqual(['a', 'b', 'c']);
  });
});
