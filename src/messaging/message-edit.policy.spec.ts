import {
  EDIT_LIMIT_BUFFER_SECONDS,
  encodeHashComponent,
  isResolvingGeneralChat,
  moveDeadlineSeconds,
  moveNoticeTexts,
  pastDeadline,
  sha256Hex,
  silentMention,
  streamMessageUrl,
  topicChange,
  topicLinkSyntax,
} from './message-edit.policy';

const sent = new Date('2024-01-01T00:00:00Z');
const after = (seconds: number) => new Date(sent.getTime() + seconds * 1000);

describe('pastDeadline (edit and move time limits)', () => {
  it('allows the limit plus the 20 s grace, and refuses one millisecond more', () => {
    expect(EDIT_LIMIT_BUFFER_SECONDS).toBe(20);
    expect(pastDeadline(sent, after(600), 600, EDIT_LIMIT_BUFFER_SECONDS)).toBe(false);
    expect(pastDeadline(sent, after(620), 600, EDIT_LIMIT_BUFFER_SECONDS)).toBe(false);
    expect(pastDeadline(sent, new Date(after(620).getTime() + 1), 600, EDIT_LIMIT_BUFFER_SECONDS)).toBe(true);
  });
  it('never expires without a limit, and a zero limit still has the grace', () => {
    expect(pastDeadline(sent, after(10 ** 9), null, EDIT_LIMIT_BUFFER_SECONDS)).toBe(false);
    expect(pastDeadline(sent, after(20), 0, EDIT_LIMIT_BUFFER_SECONDS)).toBe(false);
    expect(pastDeadline(sent, after(21), 0, EDIT_LIMIT_BUFFER_SECONDS)).toBe(true);
  });
});

describe('moveDeadlineSeconds (propagate_mode change_all/change_later time limit)', () => {
  it('uses the limit of what is edited, plus the grace', () => {
    expect(moveDeadlineSeconds(true, false, 3600, 60)).toBe(3620);
    expect(moveDeadlineSeconds(false, true, 3600, 60)).toBe(80);
  });
  it('takes the stricter limit when topic and channel both change', () => {
    expect(moveDeadlineSeconds(true, true, 3600, 60)).toBe(80);
    expect(moveDeadlineSeconds(true, true, 60, 3600)).toBe(80);
  });
  it('has no deadline when the applicable limits are unlimited or nothing moves', () => {
    expect(moveDeadlineSeconds(true, false, null, 60)).toBeNull();
    expect(moveDeadlineSeconds(false, true, 60, null)).toBeNull();
    expect(moveDeadlineSeconds(true, true, null, 60)).toBe(80);
    expect(moveDeadlineSeconds(false, false, 60, 60)).toBeNull();
  });
});

describe('topicChange (resolve / unresolve detection)', () => {
  it('detects resolving: the prefix added to the same topic', () => {
    expect(topicChange('bug', '✔ bug')).toEqual({ target: '✔ bug', resolved: true, unresolved: false });
  });
  it('a prefixed different topic is a rename, not a resolve', () => {
    expect(topicChange('bug', '✔ other')).toEqual({ target: '✔ other', resolved: false, unresolved: false });
  });
  it('detects unresolving, stripping any run of prefix characters as Python lstrip', () => {
    expect(topicChange('✔ bug', 'bug')).toEqual({ target: 'bug', resolved: false, unresolved: true });
    expect(topicChange('✔ ✔  bug', 'bug')).toEqual({ target: 'bug', resolved: false, unresolved: true });
    expect(topicChange('✔ bug', 'other')).toEqual({ target: 'other', resolved: false, unresolved: false });
  });
  it('re-resolving a resolved topic is neither', () => {
    expect(topicChange('✔ bug', '✔ ✔ bug')).toMatchObject({ resolved: false, unresolved: false });
  });
  it('truncates over-long targets like send (57 characters and ...)', () => {
    const long = 'x'.repeat(70);
    expect(topicChange('bug', long).target).toBe('x'.repeat(57) + '...');
  });
  it('resolving the empty topic', () => {
    expect(isResolvingGeneralChat('✔')).toBe(true);
    expect(isResolvingGeneralChat('✔ general chat')).toBe(true);
    expect(isResolvingGeneralChat('✔ bug')).toBe(false);
  });
});

describe('notices and links', () => {
  const base = {
    notifyOld: true,
    notifyNew: true,
    streamEdited: false,
    topicEdited: true,
    resolveToggle: false,
    movedAllVisible: true,
    noVisiblePreexisting: true,
    count: 3,
    user: '@_**Iago|5**',
    oldLocation: '#**Verona>a**',
    newLocation: '#**Verona>b**',
    messageLink: 'http://x/#narrow/near/1',
  };
  it('whole-topic moves', () => {
    expect(moveNoticeTexts(base)).toEqual({
      oldThread: 'This topic was moved to #**Verona>b** by @_**Iago|5**.',
      newThread: 'This topic was moved here from #**Verona>a** by @_**Iago|5**.',
    });
  });
  it('partial moves count messages; one message links to it', () => {
    expect(moveNoticeTexts({ ...base, movedAllVisible: false })).toEqual({
      oldThread: '3 messages were moved from this topic to #**Verona>b** by @_**Iago|5**.',
      newThread: '3 messages were moved here from #**Verona>a** by @_**Iago|5**.',
    });
    expect(moveNoticeTexts({ ...base, movedAllVisible: false, count: 1 }).newThread).toBe(
      '[A message](http://x/#narrow/near/1) was moved here from #**Verona>a** by @_**Iago|5**.',
    );
  });
  it('a resolve toggle within the channel posts no new-thread notice', () => {
    expect(moveNoticeTexts({ ...base, resolveToggle: true }).newThread).toBeNull();
    expect(moveNoticeTexts({ ...base, notifyOld: false, notifyNew: false })).toEqual({
      oldThread: null,
      newThread: null,
    });
  });
  it('mention, link and URL syntax', () => {
    expect(silentMention({ fullName: 'Iago', id: 5 })).toBe('@_**Iago|5**');
    expect(topicLinkSyntax('Verona', 'a b')).toBe('#**Verona>a b**');
    expect(encodeHashComponent('a.b c')).toBe('a.2Eb.20c');
    expect(streamMessageUrl('https://z.example', 3, 'core team', 'x.y', 9)).toBe(
      'https://z.example/#narrow/channel/3-core-team/topic/x.2Ey/near/9',
    );
  });
  it('prev_content_sha256 is the hex SHA-256 of the UTF-8 content', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('✔')).toHaveLength(64);
  });
});
