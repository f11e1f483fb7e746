/**
 * Which users' alert words a message contains (Zulip's AlertWordNotificationProcessor over the
 * realm's pyahocorasick automaton). One Aho-Corasick automaton over every lowercased word of the
 * realm finds all occurrences in a single pass over the lowercased text; an occurrence counts
 * when it stands between word boundaries as Zulip defines them. Pure: no database.
 */

/** Characters that may precede an alert word (Zulip's allowed_before_punctuation). */
const BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
/**
 * Characters that may follow one (allowed_after_punctuation). Zulip's set holds the two-character
 * string '",', which never equals one character: a double quote does not end an alert word there.
 */
const AFTER = new Set([' ', '\n', ')', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

interface Node {
  next: Map<string, number>;
  fail: number;
  /** Words ending here (this node's own and, through failure links, shorter suffixes). */
  outputs: number[];
}

export class AlertWordMatcher {
  private readonly nodes: Node[] = [{ next: new Map(), fail: 0, outputs: [] }];
  private readonly words: string[] = [];
  private readonly usersOfWord: number[][] = [];

  /** `entries`: every (user, word) of the realm. Words are matched case-insensitively. */
  constructor(entries: Iterable<{ userId: number; word: string }>) {
    const index = new Map<string, number>();
    for (const { userId, word } of entries) {
      const lower = word.toLowerCase();
      if (lower.length === 0) continue;
      let w = index.get(lower);
      if (w === undefined) {
        w = this.words.length;
        index.set(lower, w);
        this.words.push(lower);
        this.usersOfWord.push([]);
        this.insert(lower, w);
      }
      this.usersOfWord[w].push(userId);
    }
    this.link();
  }

  get isEmpty(): boolean {
    return this.words.length === 0;
  }

  private insert(word: string, w: number): void {
    let at = 0;
    for (const ch of word) {
      let to = this.nodes[at].next.get(ch);
      if (to === undefined) {
        to = this.nodes.length;
        this.nodes.push({ next: new Map(), fail: 0, outputs: [] });
        this.nodes[at].next.set(ch, to);
      }
      at = to;
    }
    this.nodes[at].outputs.push(w);
  }

  /** Failure links, breadth first. */
  private link(): void {
    const queue: number[] = [];
    for (const child of this.nodes[0].next.values()) queue.push(child);
    for (let i = 0; i < queue.length; i++) {
      const at = queue[i];
      for (const [ch, child] of this.nodes[at].next) {
        let f = this.nodes[at].fail;
        while (f !== 0 && !this.nodes[f].next.has(ch)) f = this.nodes[f].fail;
        const target = this.nodes[f].next.get(ch);
        this.nodes[child].fail = target !== undefined && target !== child ? target : 0;
        this.nodes[child].outputs.push(...this.nodes[this.nodes[child].fail].outputs);
        queue.push(child);
      }
    }
  }

  /** The ids of the users whose alert words `content` contains. */
  usersMatching(content: string): Set<number> {
    const found = new Set<number>();
    if (this.isEmpty) return found;
    const text = content.toLowerCase();
    // Iterate by code point (words were inserted by code point); `end` is the UTF-16 offset
    // just past the current character.
    let at = 0;
    let end = 0;
    const seen = new Set<number>();
    for (const ch of text) {
      end += ch.length;
      while (at !== 0 && !this.nodes[at].next.has(ch)) at = this.nodes[at].fail;
      at = this.nodes[at].next.get(ch) ?? 0;
      for (const w of this.nodes[at].outputs) {
        if (seen.has(w)) continue;
        const start = end - this.words[w].length;
        if (start > 0 && !BEFORE.has(text[start - 1])) continue;
        if (end < text.length && !AFTER.has(text[end])) continue;
        seen.add(w);
        for (const userId of this.usersOfWord[w]) found.add(userId);
      }
    }
    return found;
  }
}
