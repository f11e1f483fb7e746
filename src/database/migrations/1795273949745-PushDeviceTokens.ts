import { MigrationInterface, QueryRunner } from "typeorm";

export class PushDeviceTokens1795273949745 implements MigrationInterface {
    name = 'PushDeviceTokens1795273949745'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "push_device_token" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "kind" smallint NOT NULL, "token" character varying(4096) NOT NULL, "ios_app_id" character varying(255), "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_592f31feecc817a4cdf92cba3ab" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "push_device_token_user_idx" ON "push_device_token"  ("user_id") `);
        // Hand-written: tokens may be 4096 characters, longer than a btree entry may hold, so the
        // uniqueness index is on their md5 (declared synchronize:false on the entity).
        await queryRunner.query(`CREATE UNIQUE INDEX "push_device_token_user_kind_token_key" ON "push_device_token" ("user_id", "kind", md5("token"))`);
        await queryRunner.query(`ALTER TABLE "push_device_token" ADD CONSTRAINT "FK_1ba0e7428c4ada744b47d31e6bc" FOREIGN KEY ("user_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "push_device_token" DROP CONSTRAINT "FK_1ba0e7428c4ada744b47d31e6bc"`);
        await queryRunner.query(`DROP INDEX "public"."push_device_token_user_kind_token_key"`);
        await queryRunner.query(`DROP INDEX "public"."push_device_token_user_idx"`);
        await queryRunner.query(`DROP TABLE "push_device_token"`);
    }

}
