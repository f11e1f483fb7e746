import { MigrationInterface, QueryRunner } from "typeorm";

export class MessageEditHistoryVisibility1795291012000 implements MigrationInterface {
    name = 'MessageEditHistoryVisibility1795291012000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm" ADD "message_edit_history_visibility_policy" character varying(8) NOT NULL DEFAULT 'all'`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "message_edit_history_visibility_policy"`);
    }
}
