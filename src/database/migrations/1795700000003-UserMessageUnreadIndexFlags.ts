import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The unread partial index carries the flags. unread_msgs (POST /register) needs each unread
 * message's flags (mentions) as well as its id; without them in the index PostgreSQL reads the
 * user's unread rows from the table (a bitmap heap scan), loses the index order and sorts 40,000
 * rows before its LIMIT. With them the statement is one backward index-only scan feeding the
 * per-message conversation lookups in order. Flags are already in the index's predicate, so no
 * update that could have been HOT stops being HOT; the entries grow by the 8 bytes of the flags.
 */
export class UserMessageUnreadIndexFlags1795700000003 implements MigrationInterface {
  name = 'UserMessageUnreadIndexFlags1795700000003';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."user_message_unread_idx"`);
    await queryRunner.query(
      `CREATE INDEX "user_message_unread_idx" ON "user_message" ("user_profile_id", "message_id") INCLUDE ("flags") WHERE ("flags" & 1) = 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."user_message_unread_idx"`);
    await queryRunner.query(
      `CREATE INDEX "user_message_unread_idx" ON "user_message" ("user_profile_id", "message_id") WHERE ("flags" & 1) = 0`,
    );
  }
}
