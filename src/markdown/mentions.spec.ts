import { renderMarkdown } from './render';
import { demoRealmContext } from './testing/demo-realm';
import type { MarkdownContext } from './types';

const render = (content: string, context: Partial<MarkdownContext> = {}) =>
  renderMarkdown(content, demoRealmContext(context));

describe('user mentions', () => {
  it('mentions by full name, case-insensitively, showing the real name', () => {
    const result = render('hi @**king hamlet**');
    expect(result.html).toBe('<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span></p>');
    expect(result.mentionedUserIds).toEqual([10]);
  });

  it('supports the name|id and |id forms; the name must match exactly', () => {
    expect(render('@**King Hamlet|10**').mentionedUserIds).toEqual([10]);
    expect(render('@**|11**').html).toBe('<p><span class="user-mention" data-user-id="11">@Iago</span></p>');
    const wrongName = render('@**Iago|10**');
    expect(wrongName.mentionedUserIds).toEqual([]);
    expect(wrongName.html).toBe('<p>@<strong>Iago|10</strong></p>');
    expect(render('@**|999**').mentionedUserIds).toEqual([]);
  });

  it('renders silent mentions without notifying', () => {
    const result = render('@_**Iago**');
    expect(result.html).toBe('<p><span class="user-mention silent" data-user-id="11">Iago</span></p>');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('renders deactivated users as silent mentions', () => {
    const result = render('@**Former**', { users: [{ id: 99, fullName: 'Former', isActive: false }] });
    expect(result.html).toBe('<p><span class="user-mention silent" data-user-id="99">Former</span></p>');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('silences mentions inside quotes', () => {
    const result = render('> @**Iago** said\n\n```quote\n@*hamletcharacters* @**all**\n```');
    expect(result.html).toContain('<span class="user-mention silent" data-user-id="11">Iago</span>');
    expect(result.html).toContain(
      '<span class="user-group-mention silent" data-user-group-id="20">hamletcharacters</span>',
    );
    expect(result.html).toContain(
      '<span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span>',
    );
    expect(result.mentionedUserIds).toEqual([]);
    expect(result.mentionedGroupIds).toEqual([]);
    expect(result.mentionsStreamWildcard).toBe(false);
  });

  it('only mentions after whitespace, the start, or one of \' " ( { [ / <', () => {
    expect(render('mail@**Iago**').mentionedUserIds).toEqual([]);
    expect(render('(@**Iago**)').mentionedUserIds).toEqual([11]);
    expect(render('"@**Iago**"').mentionedUserIds).toEqual([11]);
  });

  it('does not mention inside code or link text', () => {
    expect(render('`@**Iago**`').mentionedUserIds).toEqual([]);
    expect(render('```\n@**Iago**\n```').mentionedUserIds).toEqual([]);
    expect(render('[@**Iago**](https://x.com)').mentionedUserIds).toEqual([]);
  });

  it('leaves unknown names as text', () => {
    expect(render('@**Nobody**').html).toBe('<p>@<strong>Nobody</strong></p>');
  });

  it('prefers an active user when two share a name', () => {
    const users = [
      { id: 5, fullName: 'Sam', isActive: false },
      { id: 7, fullName: 'sam', isActive: true },
    ];
    expect(render('@**SAM**', { users }).mentionedUserIds).toEqual([7]);
  });
});

describe('wildcard mentions', () => {
  it.each(['all', 'everyone', 'channel', 'stream'])('@**%s** mentions the channel', (name) => {
    const result = render(`@**${name}**`);
    expect(result.html).toBe(
      `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span></p>`,
    );
    expect(result.mentionsStreamWildcard).toBe(true);
    expect(result.mentionsTopicWildcard).toBe(false);
  });

  it('@**topic** mentions the topic', () => {
    const result = render('@**topic**');
    expect(result.html).toBe('<p><span class="topic-mention">@topic</span></p>');
    expect(result.mentionsTopicWildcard).toBe(true);
    expect(result.mentionsStreamWildcard).toBe(false);
  });

  it('silent wildcards do not set the flags', () => {
    const result = render('@_**all** @_**topic**');
    expect(result.html).toBe(
      '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> ' +
        '<span class="topic-mention silent">topic</span></p>',
    );
    expect(result.mentionsStreamWildcard).toBe(false);
    expect(result.mentionsTopicWildcard).toBe(false);
  });

  it('a wildcard wins over a user with the same name', () => {
    const result = render('@**all**', { users: [{ id: 3, fullName: 'all', isActive: true }] });
    expect(result.mentionedUserIds).toEqual([]);
    expect(result.mentionsStreamWildcard).toBe(true);
  });
});

describe('group mentions', () => {
  it('mentions groups case-insensitively and reports them', () => {
    const result = render('@*HamletCharacters*');
    expect(result.html).toBe(
      '<p><span class="user-group-mention" data-user-group-id="20">@hamletcharacters</span></p>',
    );
    expect(result.mentionedGroupIds).toEqual([20]);
  });

  it('renders silent and deactivated group mentions silently', () => {
    expect(render('@_*hamletcharacters*').mentionedGroupIds).toEqual([]);
    const gone = render('@*old group*', { groups: [{ id: 30, name: 'old group', deactivated: true }] });
    expect(gone.html).toBe('<p><span class="user-group-mention silent" data-user-group-id="30">old group</span></p>');
    expect(gone.mentionedGroupIds).toEqual([]);
  });

  it('leaves unknown groups as text', () => {
    expect(render('@*nobody*').html).toBe('<p>@<em>nobody</em></p>');
  });
});

describe('channel and topic links', () => {
  it('links channels by exact name', () => {
    const result = render('#**Verona** #**verona**');
    expect(result.html).toBe(
      '<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-Verona">#Verona</a> #<strong>verona</strong></p>',
    );
    expect(result.hasLink).toBe(true);
  });

  it('links topics and messages, encoding names like Zulip', () => {
    expect(render('#**core team>Q3 plans.v2**').html).toBe(
      '<p><a class="stream-topic" data-stream-id="8" href="/#narrow/channel/8-core-team/topic/Q3.20plans.2Ev2">' +
        '#core team &gt; Q3 plans.v2</a></p>',
    );
    expect(render('#**Verona>lunch@42**').html).toBe(
      '<p><a class="message-link" href="/#narrow/channel/1-Verona/topic/lunch/near/42">#Verona &gt; lunch @ 💬</a></p>',
    );
  });

  it('shows the empty topic with the realm display name', () => {
    expect(render('#**Verona>**', { emptyTopicDisplayName: 'general chat' }).html).toBe(
      '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Verona/topic/">' +
        '#Verona &gt; <em>general chat</em></a></p>',
    );
  });

  it('escapes channel names', () => {
    const channels = [{ id: 40, name: 'a<b>&"c' }];
    expect(render('#**a<b>&"c**', { channels }).html).toBe(
      '<p><a class="stream" data-stream-id="40" href="/#narrow/channel/40-a.3Cb.3E.26.22c">#a&lt;b&gt;&amp;"c</a></p>',
    );
  });

  it('leaves unknown channels as text and does not count them as links', () => {
    const result = render('#**Atlantis**');
    expect(result.html).toBe('<p>#<strong>Atlantis</strong></p>');
    expect(result.hasLink).toBe(false);
  });
});
