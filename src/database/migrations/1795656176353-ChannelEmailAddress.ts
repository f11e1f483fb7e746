import { MigrationInterface, QueryRunner } from "typeorm";

export class ChannelEmailAddress1795656176353 implements MigrationInterface {
    name = 'ChannelEmailAddress1795656176353'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "channel_email_address" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "channel_id" integer NOT NULL, "creator_id" integer, "sender_id" integer NOT NULL, "email_token" character varying(32) NOT NULL, "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deactivated" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_2151b6acc74871e40f0374d7179" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "channel_email_address_email_token_key" ON "channel_email_address"  ("email_token") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "channel_email_address_unique" ON "channel_email_address"  ("channel_id", "creator_id", "sender_id") `);
        await queryRunner.query(`ALTER TABLE "channel_email_address" ADD CONSTRAINT "FK_abcd3e82637ba7de5ce9a8a1cec" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "channel_email_address" ADD CONSTRAINT "FK_c55ef01a8a261f7eb7a42fb39e7" FOREIGN KEY ("channel_id") REFERENCES "stream"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "channel_email_address" ADD CONSTRAINT "FK_8ccd33e85e4713648f2aba6c3e7" FOREIGN KEY ("creator_id") REFERENCES "user_profile"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "channel_email_address" ADD CONSTRAINT "FK_197f92835ca79779cf0e917a846" FOREIGN KEY ("sender_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "channel_email_address" DROP CONSTRAINT "FK_197f92835ca79779cf0e917a846"`);
        await queryRunner.query(`ALTER TABLE "channel_email_address" DROP CONSTRAINT "FK_8ccd33e85e4713648f2aba6c3e7"`);
        await queryRunner.query(`ALTER TABLE "channel_email_address" DROP CONSTRAINT "FK_c55ef01a8a261f7eb7a42fb39e7"`);
        await queryRunner.query(`ALTER TABLE "channel_email_address" DROP CONSTRAINT "FK_abcd3e82637ba7de5ce9a8a1cec"`);
        await queryRunner.query(`DROP INDEX "public"."channel_email_address_unique"`);
        await queryRunner.query(`DROP INDEX "public"."channel_email_address_email_token_key"`);
        await queryRunner.query(`DROP TABLE "channel_email_address"`);
    }

}
