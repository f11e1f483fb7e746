import { MigrationInterface, QueryRunner } from "typeorm";

export class RealmAlertWordsVersion1795656453499 implements MigrationInterface {
    name = 'RealmAlertWordsVersion1795656453499'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm" ADD "alert_words_version" integer NOT NULL DEFAULT '0'`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "alert_words_version"`);
    }

}
