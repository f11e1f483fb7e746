import { MigrationInterface, QueryRunner } from "typeorm";

export class RealmSettings1795666154695 implements MigrationInterface {
    name = 'RealmSettings1795666154695'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm" ADD "disallow_disposable_email_addresses" boolean NOT NULL DEFAULT true`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "want_advertise_in_communities_directory" boolean NOT NULL DEFAULT false`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "enable_guest_user_indicator" boolean NOT NULL DEFAULT true`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "enable_guest_user_dm_warning" boolean NOT NULL DEFAULT true`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "require_e2ee_push_notifications" boolean NOT NULL DEFAULT false`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "giphy_rating" smallint NOT NULL DEFAULT '2'`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "default_code_block_language" text NOT NULL DEFAULT ''`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "welcome_message_custom_text" text NOT NULL DEFAULT ''`);
        await queryRunner.query(`ALTER TABLE "realm" ADD "authentication_methods" jsonb NOT NULL DEFAULT '{"Dev": true, "Email": true}'::jsonb`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "authentication_methods"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "welcome_message_custom_text"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "default_code_block_language"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "giphy_rating"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "require_e2ee_push_notifications"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "enable_guest_user_dm_warning"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "enable_guest_user_indicator"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "want_advertise_in_communities_directory"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "disallow_disposable_email_addresses"`);
    }

}
