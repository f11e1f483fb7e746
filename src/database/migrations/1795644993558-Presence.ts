import { MigrationInterface, QueryRunner } from "typeorm";

export class Presence1795644993558 implements MigrationInterface {
    name = 'Presence1795644993558'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "user_presence" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "realm_id" integer NOT NULL, "last_connected_time" TIMESTAMP WITH TIME ZONE, "last_active_time" TIMESTAMP WITH TIME ZONE, "last_update_id" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_562d693ca2ee27d96b75ff78eda" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "user_presence_realm_last_connected_idx" ON "user_presence"  ("realm_id", "last_connected_time") `);
        await queryRunner.query(`CREATE INDEX "user_presence_realm_last_update_id_idx" ON "user_presence"  ("realm_id", "last_update_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "user_presence_user_key" ON "user_presence"  ("user_profile_id") `);
        await queryRunner.query(`CREATE TABLE "presence_sequence" ("realm_id" integer NOT NULL, "last_update_id" bigint NOT NULL, CONSTRAINT "PK_4816cccf297ab070692f3d93a98" PRIMARY KEY ("realm_id"))`);
        await queryRunner.query(`CREATE TABLE "user_status" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "timestamp" TIMESTAMP WITH TIME ZONE NOT NULL, "status_text" character varying(255) NOT NULL DEFAULT '', "emoji_name" text NOT NULL DEFAULT '', "emoji_code" text NOT NULL DEFAULT '', "reaction_type" character varying(30) NOT NULL DEFAULT 'unicode_emoji', CONSTRAINT "PK_892a2061d6a04a7e2efe4c26d6f" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "user_status_user_key" ON "user_status"  ("user_profile_id") `);
        await queryRunner.query(`ALTER TABLE "user_presence" ADD CONSTRAINT "FK_0b442e45662a00c33d9a3dfaa15" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "user_presence" ADD CONSTRAINT "FK_711395843f17bbde5fb9439bb95" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "presence_sequence" ADD CONSTRAINT "FK_4816cccf297ab070692f3d93a98" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "user_status" ADD CONSTRAINT "FK_719fb58f6587a409a456b392bad" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "user_status" DROP CONSTRAINT "FK_719fb58f6587a409a456b392bad"`);
        await queryRunner.query(`ALTER TABLE "presence_sequence" DROP CONSTRAINT "FK_4816cccf297ab070692f3d93a98"`);
        await queryRunner.query(`ALTER TABLE "user_presence" DROP CONSTRAINT "FK_711395843f17bbde5fb9439bb95"`);
        await queryRunner.query(`ALTER TABLE "user_presence" DROP CONSTRAINT "FK_0b442e45662a00c33d9a3dfaa15"`);
        await queryRunner.query(`DROP INDEX "public"."user_status_user_key"`);
        await queryRunner.query(`DROP TABLE "user_status"`);
        await queryRunner.query(`DROP TABLE "presence_sequence"`);
        await queryRunner.query(`DROP INDEX "public"."user_presence_user_key"`);
        await queryRunner.query(`DROP INDEX "public"."user_presence_realm_last_update_id_idx"`);
        await queryRunner.query(`DROP INDEX "public"."user_presence_realm_last_connected_idx"`);
        await queryRunner.query(`DROP TABLE "user_presence"`);
    }

}
