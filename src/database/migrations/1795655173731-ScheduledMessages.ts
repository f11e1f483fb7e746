import { MigrationInterface, QueryRunner } from "typeorm";

export class ScheduledMessages1795655173731 implements MigrationInterface {
    name = 'ScheduledMessages1795655173731'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "scheduled_message" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "sender_id" integer NOT NULL, "delivery_type" smallint NOT NULL DEFAULT '1', "recipient_type" text NOT NULL, "stream_id" integer, "to_user_ids" integer array, "subject" text NOT NULL DEFAULT '', "content" text NOT NULL, "rendered_content" text NOT NULL, "sending_client" text NOT NULL, "scheduled_timestamp" TIMESTAMP WITH TIME ZONE NOT NULL, "read_by_sender" boolean NOT NULL, "delivered" boolean NOT NULL DEFAULT false, "delivered_message_id" integer, "failed" boolean NOT NULL DEFAULT false, "failure_message" text, "reminder_target_message_id" integer, "reminder_note" text, CONSTRAINT "PK_2e6addf57f9f8551a3b4187f6b5" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "scheduled_message_sender_idx" ON "scheduled_message"  ("sender_id", "delivery_type", "scheduled_timestamp") WHERE NOT delivered`);
        await queryRunner.query(`CREATE INDEX "scheduled_message_due_idx" ON "scheduled_message"  ("scheduled_timestamp") WHERE NOT delivered AND NOT failed`);
        await queryRunner.query(`ALTER TABLE "scheduled_message" ADD CONSTRAINT "FK_2c8650f160db49c822d09e10f6d" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "scheduled_message" ADD CONSTRAINT "FK_4b1512c19c8a420cadc018c6631" FOREIGN KEY ("sender_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "scheduled_message" ADD CONSTRAINT "FK_e86f82c32c1b0ddf332b3d8800b" FOREIGN KEY ("stream_id") REFERENCES "stream"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "scheduled_message" ADD CONSTRAINT "FK_f80f50bb1a061b30bc58b5e6875" FOREIGN KEY ("delivered_message_id") REFERENCES "message"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "scheduled_message" DROP CONSTRAINT "FK_f80f50bb1a061b30bc58b5e6875"`);
        await queryRunner.query(`ALTER TABLE "scheduled_message" DROP CONSTRAINT "FK_e86f82c32c1b0ddf332b3d8800b"`);
        await queryRunner.query(`ALTER TABLE "scheduled_message" DROP CONSTRAINT "FK_4b1512c19c8a420cadc018c6631"`);
        await queryRunner.query(`ALTER TABLE "scheduled_message" DROP CONSTRAINT "FK_2c8650f160db49c822d09e10f6d"`);
        await queryRunner.query(`DROP INDEX "public"."scheduled_message_due_idx"`);
        await queryRunner.query(`DROP INDEX "public"."scheduled_message_sender_idx"`);
        await queryRunner.query(`DROP TABLE "scheduled_message"`);
    }

}
