import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One key of a bot's state store (Zulip's BotStorageData): the bot framework's StateHandler. */
@Entity({ name: 'bot_storage_data' })
// Unique on (bot, md5(key)) in the migration: keys may be longer than a btree entry holds.
@Index('bot_storage_data_bot_key_key', { synchronize: false })
export class BotStorageData {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'bot_profile_id', type: 'integer' })
  botId: number;

  @Column({ type: 'text' })
  key: string;

  @Column({ type: 'text' })
  value: string;
}
