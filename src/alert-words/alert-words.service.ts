import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ParamErrors } from '../common/errors/param.errors';
import { runInTransaction } from '../database/transaction';
import { EventsService } from '../events/events.service';
import type { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import type { UserProfile } from '../users/user.entity';
import { AlertWordMatcher } from './alert-word-matcher';
import { AlertWordErrors } from './alert-words.errors';
import { AlertWordsRepository } from './alert-words.repository';

/** Zulip's limit on one alert word (the view's StringConstraints(max_length=100)). */
export const MAX_ALERT_WORD_LENGTH = 100;

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
 * the realm's words live in an Aho-Corasick automaton cached per realm and version of its words.
 */
@Injectable()
export class AlertWordsService {
  /** By realm: the matcher of the realm's words at a version of them (realm.alert_words_version). */
  private readonly matchers = new Map<number, { version: number; matcher: AlertWordMatcher }>();

  constructor(
    private readonly repository: AlertWordsRepository,
    private readonly realms: RealmService,
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
      await this.realms.bumpAlertWordsVersion(user.realmId);
      const words = await this.wordsOf(user.id);
      this.events.sendOnCommit(user.realmId, { type: 'alert_words', alert_words: words }, [user.id]);
      return words;
    });
  }

  /**
   * The realm's alert-word matcher (Zulip's get_alert_word_automaton): built with one query,
   * then kept while the realm row's alert_words_version stays the same (no query). A change
   * through any instance bumps the version; the realm row is cached for 2 s at most.
   */
  async matcherFor(realm: Pick<Realm, 'id' | 'alertWordsVersion'>): Promise<AlertWordMatcher> {
    const hit = this.matchers.get(realm.id);
    if (hit && hit.version === realm.alertWordsVersion) return hit.matcher;
    const matcher = new AlertWordMatcher(await this.repository.realmWords(realm.id));
    // A request holding an older realm row (cached elsewhere) must not replace a newer matcher.
    if (!hit || realm.alertWordsVersion > hit.version) {
      if (this.matchers.size >= MATCHER_CACHE_MAX) this.matchers.clear();
      this.matchers.set(realm.id, { version: realm.alertWordsVersion, matcher });
    }
    return matcher;
  }
}
