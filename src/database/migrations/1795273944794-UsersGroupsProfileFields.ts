import { MigrationInterface, QueryRunner } from "typeorm";

export class UsersGroupsProfileFields1795273944794 implements MigrationInterface {
    name = 'UsersGroupsProfileFields1795273944794'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "custom_profile_field" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "name" character varying(40) NOT NULL, "hint" character varying(80) NOT NULL DEFAULT '', "order" integer NOT NULL DEFAULT '0', "display_in_profile_summary" boolean NOT NULL DEFAULT false, "required" boolean NOT NULL DEFAULT false, "editable_by_user" boolean NOT NULL DEFAULT true, "field_type" smallint NOT NULL DEFAULT '1', "field_data" text NOT NULL DEFAULT '', CONSTRAINT "PK_2275992939588a2457cefafe832" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "custom_profile_field_realm_id_idx" ON "custom_profile_field"  ("realm_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "custom_profile_field_realm_name_key" ON "custom_profile_field"  ("realm_id", "name") `);
        await queryRunner.query(`CREATE TABLE "custom_profile_field_value" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "field_id" integer NOT NULL, "value" text NOT NULL, "rendered_value" text, CONSTRAINT "PK_06e504c2dfb7ff5750b6ff3a5ae" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "custom_profile_field_value_field_idx" ON "custom_profile_field_value"  ("field_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "custom_profile_field_value_user_field_key" ON "custom_profile_field_value"  ("user_profile_id", "field_id") `);
        await queryRunner.query(`CREATE TABLE "navigation_view" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "fragment" text NOT NULL, "is_pinned" boolean NOT NULL DEFAULT false, "name" text, CONSTRAINT "PK_632f3e4042d3610b46a3f8a423e" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "navigation_view_user_name_key" ON "navigation_view"  ("user_profile_id", "name") WHERE name IS NOT NULL`);
        await queryRunner.query(`CREATE UNIQUE INDEX "navigation_view_user_fragment_key" ON "navigation_view"  ("user_profile_id", "fragment") `);
        await queryRunner.query(`ALTER TABLE "custom_profile_field" ADD CONSTRAINT "FK_131e5f0989d49f22d10e3000b87" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "custom_profile_field_value" ADD CONSTRAINT "FK_a96006f9f9243f510b38b1924a5" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "custom_profile_field_value" ADD CONSTRAINT "FK_1c61eb44e393810cd847b9c7a83" FOREIGN KEY ("field_id") REFERENCES "custom_profile_field"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "navigation_view" ADD CONSTRAINT "FK_2c9e4b1e008180134508c379868" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "navigation_view" DROP CONSTRAINT "FK_2c9e4b1e008180134508c379868"`);
        await queryRunner.query(`ALTER TABLE "custom_profile_field_value" DROP CONSTRAINT "FK_1c61eb44e393810cd847b9c7a83"`);
        await queryRunner.query(`ALTER TABLE "custom_profile_field_value" DROP CONSTRAINT "FK_a96006f9f9243f510b38b1924a5"`);
        await queryRunner.query(`ALTER TABLE "custom_profile_field" DROP CONSTRAINT "FK_131e5f0989d49f22d10e3000b87"`);
        await queryRunner.query(`DROP INDEX "public"."navigation_view_user_fragment_key"`);
        await queryRunner.query(`DROP INDEX "public"."navigation_view_user_name_key"`);
        await queryRunner.query(`DROP TABLE "navigation_view"`);
        await queryRunner.query(`DROP INDEX "public"."custom_profile_field_value_user_field_key"`);
        await queryRunner.query(`DROP INDEX "public"."custom_profile_field_value_field_idx"`);
        await queryRunner.query(`DROP TABLE "custom_profile_field_value"`);
        await queryRunner.query(`DROP INDEX "public"."custom_profile_field_realm_name_key"`);
        await queryRunner.query(`DROP INDEX "public"."custom_profile_field_realm_id_idx"`);
        await queryRunner.query(`DROP TABLE "custom_profile_field"`);
    }

}
