import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ParamErrors } from '../common/errors/param.errors';
import { Limits } from '../common/limits';
import { runInTransaction } from '../database/transaction';
import type { UserProfile } from '../users/user.entity';
import { BotStorageErrors } from './bot-storage.errors';
import { BotStorageRepository } from './bot-storage.repository';

/** Characters, as Python's len() counts them (code points). */
const length = (text: string) => [...text].length;

/** PostgreSQL text cannot hold NUL: refuse it where it is (1-based, in characters). */
function checkNoNul(text: string): void {
  const at = text.indexOf('\0');
  if (at >= 0) throw ParamErrors.invalidCharacter('bot storage', length(text.slice(0, at)) + 1);
}

/**
 * A bot's key-value state store (Zulip's zerver/lib/bot_storage.py and views/storage.py), what the
 * bot framework's StateHandler reads and writes. Writes are all or nothing and bounded by
 * BOT_STORAGE_SIZE_LIMIT characters over all keys and values.
 */
@Injectable()
export class BotStorageService {
  constructor(
    private readonly repository: BotStorageRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  private requireBot(user: UserProfile): void {
    if (!user.isBot) throw BotStorageErrors.botsOnly();
  }

  async update(user: UserProfile, storage: Record<string, string>): Promise<void> {
    this.requireBot(user);
    const entries = Object.entries(storage);
    for (const [key, value] of entries) {
      checkNoNul(key);
      checkNoNul(value);
    }
    await runInTransaction(this.dataSource, async () => {
      await this.repository.lockBot(user.id);
      const { total, byKey } = await this.repository.sizes(
        user.id,
        entries.map(([k]) => k),
      );
      let next = total;
      for (const [key, value] of entries) next += length(key) + length(value) - (byKey.get(key) ?? 0);
      const limit = Limits.BOT_STORAGE_SIZE_LIMIT;
      if (next > limit) throw BotStorageErrors.overLimit(next - limit, limit);
      await this.repository.upsert(user.id, entries);
    });
  }

  /** The values of `keys`, or of every key; an unknown key is an error. */
  async get(user: UserProfile, keys: string[] | undefined): Promise<Record<string, string>> {
    this.requireBot(user);
    const wanted = keys === undefined ? undefined : [...new Set(keys)];
    if (wanted?.some((k) => k.includes('\0'))) throw BotStorageErrors.keyDoesNotExist();
    const rows = await this.repository.read(user.id, wanted);
    if (wanted && rows.length < wanted.length) throw BotStorageErrors.keyDoesNotExist();
    const storage: Record<string, string> = {};
    for (const { key, value } of rows) storage[key] = value;
    return storage;
  }

  /** Removes `keys` (every key when absent); nothing is removed if one of them does not exist. */
  async remove(user: UserProfile, keys: string[] | undefined): Promise<void> {
    this.requireBot(user);
    const wanted = keys === undefined ? undefined : [...new Set(keys)];
    if (wanted?.some((k) => k.includes('\0'))) throw BotStorageErrors.keyDoesNotExist();
    await runInTransaction(this.dataSource, async () => {
      await this.repository.lockBot(user.id);
      const removed = await this.repository.remove(user.id, wanted);
      if (wanted && removed < wanted.length) throw BotStorageErrors.keyDoesNotExist();
    });
  }
}
