import { MigrationInterface, QueryRunner } from "typeorm";

export class MissedMessageEmails1795659108894 implements MigrationInterface {
    name = 'MissedMessageEmails1795659108894'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "missed_message_email" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "user_profile_id" integer NOT NULL, "message_id" integer NOT NULL, "trigger" character varying(60) NOT NULL, "mentioned_user_group_id" integer, "scheduled_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_798912eea5d66471ea71d10f4e9" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "missed_message_email_user_idx" ON "missed_message_email"  ("user_profile_id", "message_id") `);
        await queryRunner.query(`CREATE INDEX "missed_message_email_due_idx" ON "missed_message_email"  ("scheduled_at") `);
        await queryRunner.query(`ALTER TABLE "missed_message_email" ADD CONSTRAINT "FK_d9442e167e959ec28f25a6fc14d" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "missed_message_email" ADD CONSTRAINT "FK_2d968d4da4c606b066bdeb3ccf5" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "missed_message_email" ADD CONSTRAINT "FK_a5fc51b3308cd64679814b6481a" FOREIGN KEY ("message_id") REFERENCES "message"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "missed_message_email" DROP CONSTRAINT "FK_a5fc51b3308cd64679814b6481a"`);
        await queryRunner.query(`ALTER TABLE "missed_message_email" DROP CONSTRAINT "FK_2d968d4da4c606b066bdeb3ccf5"`);
        await queryRunner.query(`ALTER TABLE "missed_message_email" DROP CONSTRAINT "FK_d9442e167e959ec28f25a6fc14d"`);
        await queryRunner.query(`DROP INDEX "public"."missed_message_email_due_idx"`);
        await queryRunner.query(`DROP INDEX "public"."missed_message_email_user_idx"`);
        await queryRunner.query(`DROP TABLE "missed_message_email"`);
    }

}
