import { MigrationInterface, QueryRunner } from "typeorm";

export class AlertWordsDraftsSnippets1795655178189 implements MigrationInterface {
    name = 'AlertWordsDraftsSnippets1795655178189'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "alert_word" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "user_profile_id" integer NOT NULL, "word" text NOT NULL, CONSTRAINT "PK_30c806e86d983877b9e21c3fab8" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "alert_word_realm_idx" ON "alert_word"  ("realm_id") `);
        // Hand-written: alert words are case-insensitive, so uniqueness is on lower(word)
        // (declared synchronize:false on the entity).
        await queryRunner.query(`CREATE UNIQUE INDEX "alert_word_user_lower_word_key" ON "alert_word" ("user_profile_id", lower("word"))`);
        await queryRunner.query(`CREATE TABLE "draft" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "user_profile_id" integer NOT NULL, "type" character varying(8) NOT NULL, "stream_id" integer, "to_user_ids" integer array NOT NULL DEFAULT '{}', "topic" text NOT NULL DEFAULT '', "content" text NOT NULL, "last_edit_time" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_0b2b03d3f2c998450423648bc65" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "draft_user_last_edit_idx" ON "draft"  ("user_profile_id", "last_edit_time") `);
        await queryRunner.query(`CREATE TABLE "saved_snippet" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "user_profile_id" integer NOT NULL, "title" text NOT NULL, "content" text NOT NULL, "date_created" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_792d317165742d92a85a57ca144" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "saved_snippet_user_idx" ON "saved_snippet"  ("user_profile_id") `);
        await queryRunner.query(`ALTER TABLE "alert_word" ADD CONSTRAINT "FK_338748caecaf284a211a1cba577" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "alert_word" ADD CONSTRAINT "FK_8ed54abb59bd7c73b95581433e8" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "draft" ADD CONSTRAINT "FK_fa85f39cd32d2311b98f1085229" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "draft" ADD CONSTRAINT "FK_dfe930be64e94bf495a617830a4" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "draft" ADD CONSTRAINT "FK_8fc0cb0ff0a481043295add413e" FOREIGN KEY ("stream_id") REFERENCES "stream"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "saved_snippet" ADD CONSTRAINT "FK_ee9145c15a11a6921cd82878bf6" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "saved_snippet" ADD CONSTRAINT "FK_ccafdd47187216bb98cf3169713" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "saved_snippet" DROP CONSTRAINT "FK_ccafdd47187216bb98cf3169713"`);
        await queryRunner.query(`ALTER TABLE "saved_snippet" DROP CONSTRAINT "FK_ee9145c15a11a6921cd82878bf6"`);
        await queryRunner.query(`ALTER TABLE "draft" DROP CONSTRAINT "FK_8fc0cb0ff0a481043295add413e"`);
        await queryRunner.query(`ALTER TABLE "draft" DROP CONSTRAINT "FK_dfe930be64e94bf495a617830a4"`);
        await queryRunner.query(`ALTER TABLE "draft" DROP CONSTRAINT "FK_fa85f39cd32d2311b98f1085229"`);
        await queryRunner.query(`ALTER TABLE "alert_word" DROP CONSTRAINT "FK_8ed54abb59bd7c73b95581433e8"`);
        await queryRunner.query(`ALTER TABLE "alert_word" DROP CONSTRAINT "FK_338748caecaf284a211a1cba577"`);
        await queryRunner.query(`DROP INDEX "public"."saved_snippet_user_idx"`);
        await queryRunner.query(`DROP TABLE "saved_snippet"`);
        await queryRunner.query(`DROP INDEX "public"."draft_user_last_edit_idx"`);
        await queryRunner.query(`DROP TABLE "draft"`);
        await queryRunner.query(`DROP INDEX "public"."alert_word_user_lower_word_key"`);
        await queryRunner.query(`DROP INDEX "public"."alert_word_realm_idx"`);
        await queryRunner.query(`DROP TABLE "alert_word"`);
    }

}
