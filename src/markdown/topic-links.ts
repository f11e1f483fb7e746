/**
 * Zulip's topic_links: the links a topic name carries in message dicts — the realm's linkifiers
 * (in order: an earlier linkifier wins an overlap), then bare URLs, which lose to any linkifier
 * they overlap. URLs are not escaped here (clients escape them when they render).
 */
import { matchAutolink } from './autolink';
import { linkifierMatches, type CompiledLinkifier } from './linkifiers';

export interface TopicLink {
  text: string;
  url: string;
}

interface Candidate {
  url: string;
  text: string;
  index: number;
}

/** Characters a topic is split at before each piece is tried as a bare URL. */
const SPLITTERS = new Set([' ', '!', ';', ')', ',', "'", '"']);

function bareUrls(topic: string): Candidate[] {
  const out: Candidate[] = [];
  let pos = 0;
  while (pos < topic.length) {
    let end = pos;
    while (end < topic.length && !SPLITTERS.has(topic[end])) end++;
    if (end > pos) {
      const m = matchAutolink(topic, pos, end);
      if (m && m.kind !== 'email') {
        out.push({ url: m.kind === 'url' ? m.text : `https://${m.text}`, text: m.text, index: pos });
      }
    }
    pos = end + 1;
  }
  return out;
}

const overlaps = (a: Candidate, b: Candidate) =>
  (b.index <= a.index && a.index < b.index + b.text.length) ||
  (a.index <= b.index && b.index < a.index + a.text.length);

export function topicLinks(linkifiers: readonly CompiledLinkifier[], topic: string): TopicLink[] {
  if (topic === '') return [];
  const candidates: Candidate[] = [];
  linkifiers.forEach((linkifier, precedence) => {
    const own: Candidate[] = [];
    for (const m of linkifierMatches(linkifier, precedence, topic)) {
      own.push({ url: m.url, text: m.text, index: m.matchStart });
    }
    candidates.push(...own.sort((a, b) => a.index - b.index));
  });
  candidates.push(...bareUrls(topic));
  const applied: Candidate[] = [];
  for (const candidate of candidates) {
    if (applied.every((old) => !overlaps(old, candidate))) applied.push(candidate);
  }
  return applied.sort((a, b) => a.index - b.index).map((c) => ({ text: c.text, url: c.url }));
}
