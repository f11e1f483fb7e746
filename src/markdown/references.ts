/**
 * Phase one of rendering: find what a message might refer to, so the caller
 * can load those users, groups, channels and emoji in a few queries.  Like
 * Zulip's possible_mentions / possible_linked_stream_names, this scans the
 * raw text and over-approximates (it also looks inside code blocks).
 */
import type { MarkdownReferences } from './types';

const BEFORE = String.raw`(?<![^\s'"({[/<])`;
const USER_MENTION_RE = new RegExp(`${BEFORE}@_?\\*\\*([^*]+)\\*\\*`, 'g');
const GROUP_MENTION_RE = new RegExp(`${BEFORE}@_?\\*([^*]+)\\*`, 'g');
const CHANNEL_RE = new RegExp(`${BEFORE}#\\*\\*([^*]+)\\*\\*`, 'g');
const EMOJI_RE = /:([\p{L}\p{N}_+-]+):/gu;
const NAME_ID_RE = /^(.+)?\|(\d+)$/;
const WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel', 'topic']);

export function collectReferences(content: string): MarkdownReferences {
  const userNames = new Set<string>();
  const userIds = new Set<number>();
  const groupNames = new Set<string>();
  const channelNames = new Set<string>();
  const emojiNames = new Set<string>();
  let hasWildcardMention = false;

  // Every pattern needs its sigil: most messages skip most scans.
  const hasAt = content.includes('@');
  for (const m of hasAt ? content.matchAll(USER_MENTION_RE) : []) {
    const text = m[1];
    if (WILDCARDS.has(text)) {
      hasWildcardMention = true;
      continue;
    }
    const idSyntax = NAME_ID_RE.exec(text);
    if (idSyntax) {
      const id = Number(idSyntax[2]);
      if (Number.isSafeInteger(id)) userIds.add(id);
      if (idSyntax[1] !== undefined) userNames.add(idSyntax[1]);
    } else {
      userNames.add(text);
    }
  }
  if (hasAt) for (const m of content.matchAll(GROUP_MENTION_RE)) groupNames.add(m[1]);
  for (const m of content.includes('#') ? content.matchAll(CHANNEL_RE) : []) {
    const text = m[1];
    channelNames.add(text);
    // #**channel>topic** and #**channel>topic@123** name the channel before ">".
    const gt = text.indexOf('>');
    if (gt > 0) channelNames.add(text.slice(0, gt));
  }
  if (content.includes(':')) for (const m of content.matchAll(EMOJI_RE)) emojiNames.add(m[1]);

  return {
    userNames: [...userNames],
    userIds: [...userIds],
    hasWildcardMention,
    groupNames: [...groupNames],
    channelNames: [...channelNames],
    emojiNames: [...emojiNames],
  };
}
