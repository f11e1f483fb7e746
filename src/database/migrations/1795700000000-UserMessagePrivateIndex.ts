import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Zulip's zerver_usermessage_is_private_message_id: a user's direct messages by id, the partial
 * index recent_private_conversations (POST /register) reads its 1,000 newest from. Without it
 * the read walks every message the user ever received (10,000 rows, 2.6 ms, for a bench user; a
 * user with 100,000 walks 100,000). Channel messages never enter it, so a send pays nothing.
 */
export class UserMessagePrivateIndex1795700000000 implements MigrationInterface {
  name = 'UserMessagePrivateIndex1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "user_message_private_idx" ON "user_message" ("user_profile_id", "message_id") WHERE ("flags" & 2048) <> 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."user_message_private_idx"`);
  }
}
