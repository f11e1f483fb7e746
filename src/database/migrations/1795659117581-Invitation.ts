import { MigrationInterface, QueryRunner } from "typeorm";

export class Invitation1795659117581 implements MigrationInterface {
    name = 'Invitation1795659117581'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "invitation" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "referred_by_id" integer NOT NULL, "is_multiuse" boolean NOT NULL, "email" character varying(254), "invited_as" smallint NOT NULL, "include_realm_default_subscriptions" boolean NOT NULL DEFAULT false, "notify_referrer_on_join" boolean NOT NULL DEFAULT true, "stream_ids" integer array NOT NULL DEFAULT '{}', "group_ids" integer array NOT NULL DEFAULT '{}', "confirmation_key" character varying(40) NOT NULL, "status" smallint NOT NULL DEFAULT '0', "invited_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_beb994737756c0f18a1c1f8669c" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "invitation_key_key" ON "invitation"  ("confirmation_key") `);
        await queryRunner.query(`CREATE INDEX "invitation_realm_idx" ON "invitation"  ("realm_id", "invited_at") `);
        await queryRunner.query(`ALTER TABLE "invitation" ADD CONSTRAINT "FK_6372a3bd9d29f9c46dab91d9030" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "invitation" ADD CONSTRAINT "FK_8c6c42eaac981eb2904a2601eef" FOREIGN KEY ("referred_by_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "invitation" DROP CONSTRAINT "FK_8c6c42eaac981eb2904a2601eef"`);
        await queryRunner.query(`ALTER TABLE "invitation" DROP CONSTRAINT "FK_6372a3bd9d29f9c46dab91d9030"`);
        await queryRunner.query(`DROP INDEX "public"."invitation_realm_idx"`);
        await queryRunner.query(`DROP INDEX "public"."invitation_key_key"`);
        await queryRunner.query(`DROP TABLE "invitation"`);
    }

}
