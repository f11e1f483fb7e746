import { directDraftTo, draftDict, parseDraftData, parseDraftList, savedSnippetDict } from './drafts.policy';

describe('drafts policy', () => {
  it('direct drafts list the other participants by id, or oneself alone', () => {
    expect(directDraftTo([9, 3, 9, 5], 5)).toEqual([3, 9]);
    expect(directDraftTo([5], 5)).toEqual([5]);
    expect(directDraftTo([7], 5)).toEqual([7]);
  });

  it('parses a draft dict in DraftData field order, content stripped', () => {
    expect(
      parseDraftData({ type: 'stream', to: [1], topic: 't', content: '  hi \n', timestamp: 1.5 }, 'draft'),
    ).toEqual({
      type: 'stream',
      to: [1],
      topic: 't',
      content: 'hi',
      timestamp: 1.5,
    });
    expect(parseDraftData({ type: '', to: [], topic: '', content: 'x', timestamp: null }, 'draft').timestamp).toBe(
      undefined,
    );
    // The first problem in field order wins, extra keys last.
    expect(() => parseDraftData({ extra: 1, to: 'x' }, 'draft')).toThrow('draft["type"] field is missing');
    expect(() => parseDraftData({ extra: 1, type: '', to: [], topic: '', content: 'x' }, 'draft')).toThrow(
      'Argument "extra" at draft is unexpected',
    );
    expect(() => parseDraftList([{}, 3])).toThrow('drafts[0]["type"] field is missing');
    expect(() => parseDraftList('x')).toThrow('drafts is not a list');
  });

  it('API dicts: whole seconds, `to` by type', () => {
    const base = { topic: '', content: 'c', lastEditTime: new Date(1595479019_900) };
    expect(draftDict({ id: 1, type: 'stream', streamId: 4, toUserIds: [], ...base, topic: 't' })).toEqual({
      id: 1,
      type: 'stream',
      to: [4],
      topic: 't',
      content: 'c',
      timestamp: 1595479019,
    });
    expect(draftDict({ id: 2, type: 'private', streamId: null, toUserIds: [3, 8], ...base }).to).toEqual([3, 8]);
    expect(draftDict({ id: 3, type: '', streamId: null, toUserIds: [], ...base }).to).toEqual([]);
    expect(savedSnippetDict({ id: 1, title: 't', content: 'c', dateCreated: new Date(2000_999) })).toEqual({
      id: 1,
      title: 't',
      content: 'c',
      date_created: 2000,
    });
  });
});
