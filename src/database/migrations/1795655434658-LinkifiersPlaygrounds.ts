import { MigrationInterface, QueryRunner } from "typeorm";

export class LinkifiersPlaygrounds1795655434658 implements MigrationInterface {
    name = 'LinkifiersPlaygrounds1795655434658'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "realm_filter" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "pattern" text NOT NULL, "url_template" text NOT NULL, "order" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_f85645225f58aa041b365968718" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "realm_filter_realm_pattern_key" ON "realm_filter"  ("realm_id", "pattern") `);
        await queryRunner.query(`CREATE TABLE "realm_playground" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "name" text NOT NULL, "pygments_language" character varying(40) NOT NULL, "url_template" text NOT NULL, CONSTRAINT "PK_da9f34705c4e8bfb1aca9ec20f0" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "realm_playground_realm_language_name_key" ON "realm_playground"  ("realm_id", "pygments_language", "name") `);
        await queryRunner.query(`ALTER TABLE "realm_filter" ADD CONSTRAINT "FK_206674bb9520b53e5356d61e5a9" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "realm_playground" ADD CONSTRAINT "FK_3e5a7b57a6cd229d3a104ba4e03" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm_playground" DROP CONSTRAINT "FK_3e5a7b57a6cd229d3a104ba4e03"`);
        await queryRunner.query(`ALTER TABLE "realm_filter" DROP CONSTRAINT "FK_206674bb9520b53e5356d61e5a9"`);
        await queryRunner.query(`DROP INDEX "public"."realm_playground_realm_language_name_key"`);
        await queryRunner.query(`DROP TABLE "realm_playground"`);
        await queryRunner.query(`DROP INDEX "public"."realm_filter_realm_pattern_key"`);
        await queryRunner.query(`DROP TABLE "realm_filter"`);
    }

}
