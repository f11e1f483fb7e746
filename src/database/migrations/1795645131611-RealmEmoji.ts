import { MigrationInterface, QueryRunner } from "typeorm";

export class RealmEmoji1795645131611 implements MigrationInterface {
    name = 'RealmEmoji1795645131611'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "realm_emoji" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "author_id" integer, "name" text NOT NULL, "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "file_name" text, "is_animated" boolean NOT NULL DEFAULT false, "deactivated" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_86cf28b0f7cf3ed8e8cba058c25" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "realm_emoji_realm_id_idx" ON "realm_emoji"  ("realm_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "realm_emoji_realm_name_active_key" ON "realm_emoji"  ("realm_id", "name") WHERE NOT "deactivated"`);
        await queryRunner.query(`ALTER TABLE "realm_emoji" ADD CONSTRAINT "FK_5b09fe85cad5335f6ece627b6b8" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "realm_emoji" ADD CONSTRAINT "FK_fb5c00e2818b292cc7c4ad20ac7" FOREIGN KEY ("author_id") REFERENCES "user_profile"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm_emoji" DROP CONSTRAINT "FK_fb5c00e2818b292cc7c4ad20ac7"`);
        await queryRunner.query(`ALTER TABLE "realm_emoji" DROP CONSTRAINT "FK_5b09fe85cad5335f6ece627b6b8"`);
        await queryRunner.query(`DROP INDEX "public"."realm_emoji_realm_name_active_key"`);
        await queryRunner.query(`DROP INDEX "public"."realm_emoji_realm_id_idx"`);
        await queryRunner.query(`DROP TABLE "realm_emoji"`);
    }

}
