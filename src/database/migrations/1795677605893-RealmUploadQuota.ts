import { MigrationInterface, QueryRunner } from 'typeorm';

/** Zulip's Realm.custom_upload_quota_gb, in MiB: a realm's own upload quota (null: the server's). */
export class RealmUploadQuota1795677605893 implements MigrationInterface {
  name = 'RealmUploadQuota1795677605893';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "realm" ADD "custom_upload_quota_mib" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "realm" DROP COLUMN "custom_upload_quota_mib"`);
  }
}
