import { MigrationInterface, QueryRunner } from "typeorm";

export class EmailChangeStatus1795647332460 implements MigrationInterface {
    name = 'EmailChangeStatus1795647332460'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "email_change_status" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "user_profile_id" integer NOT NULL, "old_email" character varying(254) NOT NULL, "new_email" character varying(254) NOT NULL, "confirmation_key" character varying(40) NOT NULL, "status" smallint NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_cba9c0927db562a20f5137f75c4" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "email_change_status_key_key" ON "email_change_status"  ("confirmation_key") `);
        await queryRunner.query(`CREATE INDEX "email_change_status_user_idx" ON "email_change_status"  ("user_profile_id") `);
        await queryRunner.query(`ALTER TABLE "email_change_status" ADD CONSTRAINT "FK_e452b82fde604b589390157748a" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "email_change_status" ADD CONSTRAINT "FK_649ef12099f81d5cc028f0e67ef" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "email_change_status" DROP CONSTRAINT "FK_649ef12099f81d5cc028f0e67ef"`);
        await queryRunner.query(`ALTER TABLE "email_change_status" DROP CONSTRAINT "FK_e452b82fde604b589390157748a"`);
        await queryRunner.query(`DROP INDEX "public"."email_change_status_user_idx"`);
        await queryRunner.query(`DROP INDEX "public"."email_change_status_key_key"`);
        await queryRunner.query(`DROP TABLE "email_change_status"`);
    }

}
