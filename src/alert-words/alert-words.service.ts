import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ParamErrors } from '../common/errors/param.errors';
import { onCommit, runInTransaction } from '../database/transaction';
import { EventsService } from '../events/events.service';
import type { UserProfile } from '../users/user.entity';
import { AlertWordMatcher } from './alert-word-matcher';
import { AlertWordErrors } from './alert-words.errors';
import { AlertWordsRepository } from './alert-words.repository';

/** Zulip's limit on one alert word (the view's StringConstraints(max_length=100)). */
export const MAX_ALERT_WORD_LENGTH = 100;

/**
 * How long a process trusts its copy of a realm's words. A change made through this process
 * drops the copy at once; one made through another instance is seen after this long.
 */
const MATCHER_TTL_MS = 30_000;
const MATCHER_CACHE_MAX = 10_000;

/** Characters, as Python's len() counts them (code points). */
const length = (text: string) => [...text].length;

/** Python's str.strip() (whitespace as str.isspace() defines it). */
const PY_SPACE =
  '[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+';
const strip = (text: string) => text.replace(new RegExp(`^${PY_SPACE}`), '').replace(new RegExp(`${PY_SPACE}$`), '');

/** Python's sorted() on strings: by code point. */
const byCodePoint = (a: string, b: string) => {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
};

/** `alert_words` of POST: a list of strings of at most 100 characters (Json[list[str]]). */
function parseWordList(raw: unknown[], maxLength?: number): string[] {
  return raw.map((w, i) => {
    if (typeof w !== 'string') throw ParamErrors.notAString(`alert_words[${i}]`);
    if (maxLength !== undefined && length(w) > maxLength) throw ParamErrors.tooLong(`alert_words[${i}]`, maxLength);
    return w;
  });
}

/**
 * Alert words (zerver/views/alert_words.py, zerver/actions/alert_words.py,
 * zerver/lib/alert_words.py): a user's words and phrases whose appearance in a message sets
 * its `has_alert_word` flag for them. The send path asks {@link matcherFor} once per message:
 * the realm's words live in an Aho-Corasick automaton cached per realm, dropped on change.
 */
@Injectable()
export class AlertWordsService {
  private readonly matchers = new Map<number, { matcher: AlertWordMatcher; at: number }>();
  /** Bumped by every change of a realm's words: a load that started before it is not kept. */
  private readonly generations = new Map<number, number>();

  constructor(
    private readonly repository: AlertWordsRepository,
    private readonly events: EventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** The user's words, sorted (GET, the answers of POST and DELETE, /register, events). */
  async wordsOf(userId: number): Promise<string[]> {
    return (await this.repository.wordsOf(userId)).sort(byCodePoint);
  }

  /** POST: strip, drop empty ones, add those not already there (ignoring case). */
  async add(user: UserProfile, raw: unknown[]): Promise<string[]> {
    const words = parseWordList(raw, MAX_ALERT_WORD_LENGTH)
      .map(strip)
      .filter((w) => w !== '');
    for (const word of words) {
      const at = word.indexOf('\0');
      if (at >= 0) throw AlertWordErrors.invalidCharacter(length(word.slice(0, at)) + 1);
    }
    return this.change(user, async () => {
      // Of words equal but for case, the last one given is kept (Zulip's word_dict).
      const byLower = new Map<string, string>();
      for (const word of words) byLower.set(word.toLowerCase(), word);
      await this.repository.add(user.realmId, user.id, [...byLower.values()]);
    });
  }

  /** DELETE: remove the words equal to any given (ignoring case); unknown words are ignored. */
  async remove(user: UserProfile, raw: unknown[]): Promise<string[]> {
    // A word holding NUL cannot be stored, so it cannot be there to remove.
    const words = parseWordList(raw).filter((w) => !w.includes('\0'));
    return this.change(user, () => this.repository.remove(user.id, words));
  }

  private async change(user: UserProfile, write: () => Promise<void>): Promise<string[]> {
    return runInTransaction(this.dataSource, async () => {
      await this.repository.lockUser(user.id);
      await write();
      this.invalidate(user.realmId);
      onCommit(() => this.invalidate(user.realmId));
      const words = await this.wordsOf(user.id);
      this.events.sendOnCommit(user.realmId, { type: 'alert_words', alert_words: words }, [user.id]);
      return words;
    });
  }

  private invalidate(realmId: number): void {
    this.matchers.delete(realmId);
    this.generations.set(realmId, (this.generations.get(realmId) ?? 0) + 1);
  }

  /**
   * The realm's alert-word matcher: no query while cached, one to build it. Zulip's
   * get_alert_word_automaton.
   */
  async matcherFor(realmId: number): Promise<AlertWordMatcher> {
    const hit = this.matchers.get(realmId);
    const now = Date.now();
    if (hit && now - hit.at < MATCHER_TTL_MS) return hit.matcher;
    const generation = this.generations.get(realmId) ?? 0;
    const matcher = new AlertWordMatcher(await this.repository.realmWords(realmId));
    if ((this.generations.get(realmId) ?? 0) === generation) {
      if (this.matchers.size >= MATCHER_CACHE_MAX) this.matchers.clear();
      this.matchers.set(realmId, { matcher, at: now });
    }
    return matcher;
  }
}
