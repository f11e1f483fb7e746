import { MigrationInterface, QueryRunner } from "typeorm";

export class Submessages1795659019365 implements MigrationInterface {
    name = 'Submessages1795659019365'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "submessage" ("id" SERIAL NOT NULL, "message_id" integer NOT NULL, "sender_id" integer NOT NULL, "msg_type" text NOT NULL, "content" text NOT NULL, CONSTRAINT "PK_459e9a2ceb7e4aa040020159f26" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "submessage_message_id_idx" ON "submessage"  ("message_id") `);
        await queryRunner.query(`ALTER TABLE "submessage" ADD CONSTRAINT "FK_acd39268cb6a1f4d0c0ff5de30e" FOREIGN KEY ("message_id") REFERENCES "message"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "submessage" ADD CONSTRAINT "FK_693d84d272f639fec4d00b6418b" FOREIGN KEY ("sender_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "submessage" DROP CONSTRAINT "FK_693d84d272f639fec4d00b6418b"`);
        await queryRunner.query(`ALTER TABLE "submessage" DROP CONSTRAINT "FK_acd39268cb6a1f4d0c0ff5de30e"`);
        await queryRunner.query(`DROP INDEX "public"."submessage_message_id_idx"`);
        await queryRunner.query(`DROP TABLE "submessage"`);
    }

}
