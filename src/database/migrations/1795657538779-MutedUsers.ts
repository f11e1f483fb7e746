import { MigrationInterface, QueryRunner } from "typeorm";

export class MutedUsers1795657538779 implements MigrationInterface {
    name = 'MutedUsers1795657538779'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "muted_user" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "muted_user_id" integer NOT NULL, "date_muted" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_ddd9895fc79c001484145ff71e4" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "muted_user_pair_key" ON "muted_user"  ("user_profile_id", "muted_user_id") `);
        await queryRunner.query(`ALTER TABLE "muted_user" ADD CONSTRAINT "FK_d8cd9e4f82713ae1f137355fdfa" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "muted_user" ADD CONSTRAINT "FK_94ac4cb131bc90080dfeee2c5a8" FOREIGN KEY ("muted_user_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "muted_user" DROP CONSTRAINT "FK_94ac4cb131bc90080dfeee2c5a8"`);
        await queryRunner.query(`ALTER TABLE "muted_user" DROP CONSTRAINT "FK_d8cd9e4f82713ae1f137355fdfa"`);
        await queryRunner.query(`DROP INDEX "public"."muted_user_pair_key"`);
        await queryRunner.query(`DROP TABLE "muted_user"`);
    }

}
