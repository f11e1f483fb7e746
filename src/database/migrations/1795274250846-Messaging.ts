import { MigrationInterface, QueryRunner } from "typeorm";

export class Messaging1795274250846 implements MigrationInterface {
    name = 'Messaging1795274250846'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "message" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "sender_id" integer NOT NULL, "recipient_id" integer NOT NULL, "subject" character varying(60) NOT NULL DEFAULT '', "content" text NOT NULL, "rendered_content" text, "rendered_content_version" integer, "date_sent" TIMESTAMP WITH TIME ZONE NOT NULL, "sending_client" character varying(30) NOT NULL, "last_edit_time" TIMESTAMP WITH TIME ZONE, "edit_history" jsonb, "has_attachment" boolean NOT NULL DEFAULT false, "has_image" boolean NOT NULL DEFAULT false, "has_link" boolean NOT NULL DEFAULT false, "is_channel_message" boolean NOT NULL, "type" smallint NOT NULL DEFAULT '1', "search_tsvector" tsvector, CONSTRAINT "PK_ba01f0a3e0123651915008bc578" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "message_sender_id_idx" ON "message"  ("sender_id", "id") `);
        await queryRunner.query(`CREATE INDEX "message_realm_recipient_id_idx" ON "message"  ("realm_id", "recipient_id", "id") `);
        await queryRunner.query(`CREATE TABLE "user_message" ("user_profile_id" integer NOT NULL, "message_id" integer NOT NULL, "flags" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_71fa5ba28a5b0b885dc2583be74" PRIMARY KEY ("user_profile_id", "message_id"))`);
        await queryRunner.query(`CREATE INDEX "user_message_message_id_idx" ON "user_message"  ("message_id") `);
        await queryRunner.query(`CREATE TABLE "direct_message_group" ("id" SERIAL NOT NULL, "huddle_hash" character varying(40) NOT NULL, "recipient_id" integer, "group_size" integer NOT NULL, "user_ids" integer array NOT NULL, CONSTRAINT "PK_48fddfdcd59f84096236a942748" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "direct_message_group_hash_key" ON "direct_message_group"  ("huddle_hash") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "direct_message_group_recipient_id_key" ON "direct_message_group"  ("recipient_id") `);
        await queryRunner.query(`CREATE TABLE "reaction" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "message_id" integer NOT NULL, "emoji_name" text NOT NULL, "emoji_code" text NOT NULL, "reaction_type" character varying(30) NOT NULL DEFAULT 'unicode_emoji', CONSTRAINT "PK_41fbb346da22da4df129f14b11e" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "reaction_message_id_idx" ON "reaction"  ("message_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "reaction_user_message_type_code_key" ON "reaction"  ("user_profile_id", "message_id", "reaction_type", "emoji_code") `);
        await queryRunner.query(`CREATE TABLE "attachment" ("id" SERIAL NOT NULL, "file_name" text NOT NULL, "path_id" text NOT NULL, "owner_id" integer NOT NULL, "realm_id" integer NOT NULL, "create_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "size" bigint NOT NULL, "content_type" text, "is_realm_public" boolean, "is_web_public" boolean, CONSTRAINT "PK_d2a80c3a8d467f08a750ac4b420" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "attachment_path_id_key" ON "attachment"  ("path_id") `);
        await queryRunner.query(`CREATE INDEX "attachment_owner_id_idx" ON "attachment"  ("owner_id") `);
        await queryRunner.query(`CREATE INDEX "attachment_realm_id_idx" ON "attachment"  ("realm_id") `);
        await queryRunner.query(`CREATE TABLE "attachment_message" ("attachment_id" integer NOT NULL, "message_id" integer NOT NULL, CONSTRAINT "PK_e12aa8968cb477516f60daaddb8" PRIMARY KEY ("attachment_id", "message_id"))`);
        await queryRunner.query(`CREATE INDEX "attachment_message_message_id_idx" ON "attachment_message"  ("message_id") `);
        // Hand-written: expression and partial indexes TypeORM cannot declare, and the full-text
        // column's trigger (entities mark these indexes synchronize: false).
        await queryRunner.query(`CREATE INDEX "message_recipient_upper_subject_idx" ON "message" ("recipient_id", upper("subject"), "id") WHERE "is_channel_message"`);
        await queryRunner.query(`CREATE INDEX "message_search_tsvector_idx" ON "message" USING gin ("search_tsvector")`);
        await queryRunner.query(`CREATE FUNCTION "message_search_tsvector_update"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.search_tsvector := to_tsvector('pg_catalog.english', NEW.subject || ' ' || NEW.content); RETURN NEW; END $$`);
        await queryRunner.query(`CREATE TRIGGER "message_search_tsvector_trigger" BEFORE INSERT OR UPDATE OF "subject", "content" ON "message" FOR EACH ROW EXECUTE FUNCTION "message_search_tsvector_update"()`);
        // user_message flag bits: 1 read, 2 starred, 8|16|32|64 mentioned / channel wildcard /
        // topic wildcard / group mentioned (src/messaging/flags.ts).
        await queryRunner.query(`CREATE INDEX "user_message_starred_idx" ON "user_message" ("user_profile_id", "message_id") WHERE ("flags" & 2) <> 0`);
        await queryRunner.query(`CREATE INDEX "user_message_mentioned_idx" ON "user_message" ("user_profile_id", "message_id") WHERE ("flags" & 120) <> 0`);
        await queryRunner.query(`CREATE INDEX "user_message_unread_idx" ON "user_message" ("user_profile_id", "message_id") WHERE ("flags" & 1) = 0`);
        await queryRunner.query(`ALTER TABLE "message" ADD CONSTRAINT "FK_b977bf216c2d80b1206b86aac09" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "message" ADD CONSTRAINT "FK_c0ab99d9dfc61172871277b52f6" FOREIGN KEY ("sender_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "message" ADD CONSTRAINT "FK_3318a3c87e7795d769d5b96e564" FOREIGN KEY ("recipient_id") REFERENCES "recipient"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "direct_message_group" ADD CONSTRAINT "FK_2547eb0ebc58f5f75f80bb70ecf" FOREIGN KEY ("recipient_id") REFERENCES "recipient"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "reaction" ADD CONSTRAINT "FK_55fa3edb68dd205a05eee567d4f" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "reaction" ADD CONSTRAINT "FK_9276e74bb0d8be2c75ec3b51e61" FOREIGN KEY ("message_id") REFERENCES "message"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "attachment" ADD CONSTRAINT "FK_37bdf73740bab48866100e04492" FOREIGN KEY ("owner_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "attachment" ADD CONSTRAINT "FK_d8fb6e2cbffed23088d0d9c8d73" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "attachment_message" ADD CONSTRAINT "FK_eae3f3fe5da778114ae91fc008a" FOREIGN KEY ("attachment_id") REFERENCES "attachment"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "attachment_message" ADD CONSTRAINT "FK_ceb2b1a593fed11dbfdfd124c87" FOREIGN KEY ("message_id") REFERENCES "message"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "attachment_message" DROP CONSTRAINT "FK_ceb2b1a593fed11dbfdfd124c87"`);
        await queryRunner.query(`DROP INDEX "public"."user_message_unread_idx"`);
        await queryRunner.query(`DROP INDEX "public"."user_message_mentioned_idx"`);
        await queryRunner.query(`DROP INDEX "public"."user_message_starred_idx"`);
        await queryRunner.query(`DROP TRIGGER "message_search_tsvector_trigger" ON "message"`);
        await queryRunner.query(`DROP FUNCTION "message_search_tsvector_update"()`);
        await queryRunner.query(`DROP INDEX "public"."message_search_tsvector_idx"`);
        await queryRunner.query(`DROP INDEX "public"."message_recipient_upper_subject_idx"`);
        await queryRunner.query(`ALTER TABLE "attachment_message" DROP CONSTRAINT "FK_eae3f3fe5da778114ae91fc008a"`);
        await queryRunner.query(`ALTER TABLE "attachment" DROP CONSTRAINT "FK_d8fb6e2cbffed23088d0d9c8d73"`);
        await queryRunner.query(`ALTER TABLE "attachment" DROP CONSTRAINT "FK_37bdf73740bab48866100e04492"`);
        await queryRunner.query(`ALTER TABLE "reaction" DROP CONSTRAINT "FK_9276e74bb0d8be2c75ec3b51e61"`);
        await queryRunner.query(`ALTER TABLE "reaction" DROP CONSTRAINT "FK_55fa3edb68dd205a05eee567d4f"`);
        await queryRunner.query(`ALTER TABLE "direct_message_group" DROP CONSTRAINT "FK_2547eb0ebc58f5f75f80bb70ecf"`);
        await queryRunner.query(`ALTER TABLE "message" DROP CONSTRAINT "FK_3318a3c87e7795d769d5b96e564"`);
        await queryRunner.query(`ALTER TABLE "message" DROP CONSTRAINT "FK_c0ab99d9dfc61172871277b52f6"`);
        await queryRunner.query(`ALTER TABLE "message" DROP CONSTRAINT "FK_b977bf216c2d80b1206b86aac09"`);
        await queryRunner.query(`DROP INDEX "public"."attachment_message_message_id_idx"`);
        await queryRunner.query(`DROP TABLE "attachment_message"`);
        await queryRunner.query(`DROP INDEX "public"."attachment_realm_id_idx"`);
        await queryRunner.query(`DROP INDEX "public"."attachment_owner_id_idx"`);
        await queryRunner.query(`DROP INDEX "public"."attachment_path_id_key"`);
        await queryRunner.query(`DROP TABLE "attachment"`);
        await queryRunner.query(`DROP INDEX "public"."reaction_user_message_type_code_key"`);
        await queryRunner.query(`DROP INDEX "public"."reaction_message_id_idx"`);
        await queryRunner.query(`DROP TABLE "reaction"`);
        await queryRunner.query(`DROP INDEX "public"."direct_message_group_recipient_id_key"`);
        await queryRunner.query(`DROP INDEX "public"."direct_message_group_hash_key"`);
        await queryRunner.query(`DROP TABLE "direct_message_group"`);
        await queryRunner.query(`DROP INDEX "public"."user_message_message_id_idx"`);
        await queryRunner.query(`DROP TABLE "user_message"`);
        await queryRunner.query(`DROP INDEX "public"."message_realm_recipient_id_idx"`);
        await queryRunner.query(`DROP INDEX "public"."message_sender_id_idx"`);
        await queryRunner.query(`DROP TABLE "message"`);
    }

}
