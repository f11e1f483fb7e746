import { MigrationInterface, QueryRunner } from "typeorm";

export class BotStorage1795649705577 implements MigrationInterface {
    name = 'BotStorage1795649705577'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "bot_storage_data" ("id" SERIAL NOT NULL, "bot_profile_id" integer NOT NULL, "key" text NOT NULL, "value" text NOT NULL, CONSTRAINT "PK_4c6341a3316b91cf9c1a8d35f52" PRIMARY KEY ("id"))`);
        // Hand-written: keys may be longer than a btree entry may hold, so the uniqueness index is
        // on their md5 (declared synchronize:false on the entity).
        await queryRunner.query(`CREATE UNIQUE INDEX "bot_storage_data_bot_key_key" ON "bot_storage_data" ("bot_profile_id", md5("key"))`);
        await queryRunner.query(`ALTER TABLE "bot_storage_data" ADD CONSTRAINT "FK_6b0b49c7c00e4db4025bd599e46" FOREIGN KEY ("bot_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "bot_storage_data" DROP CONSTRAINT "FK_6b0b49c7c00e4db4025bd599e46"`);
        await queryRunner.query(`DROP INDEX "public"."bot_storage_data_bot_key_key"`);
        await queryRunner.query(`DROP TABLE "bot_storage_data"`);
    }

}
