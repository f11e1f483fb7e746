import { MigrationInterface, QueryRunner } from "typeorm";

export class Channels1795274009109 implements MigrationInterface {
    name = 'Channels1795274009109'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "recipient" ("id" SERIAL NOT NULL, "type" smallint NOT NULL, "type_id" integer NOT NULL, CONSTRAINT "PK_9f7a695711b2055e3c8d5cfcfa1" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "recipient_type_type_id_key" ON "recipient"  ("type", "type_id") `);
        await queryRunner.query(`CREATE TABLE "stream" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "name" character varying(60) NOT NULL, "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "creator_id" integer, "deactivated" boolean NOT NULL DEFAULT false, "description" character varying(1024) NOT NULL DEFAULT '', "rendered_description" text NOT NULL DEFAULT '', "recipient_id" integer, "folder_id" integer, "invite_only" boolean NOT NULL DEFAULT false, "history_public_to_subscribers" boolean NOT NULL DEFAULT true, "is_web_public" boolean NOT NULL DEFAULT false, "message_retention_days" integer, "first_message_id" integer, "is_recently_active" boolean NOT NULL DEFAULT true, "topics_policy" smallint NOT NULL DEFAULT '1', "can_add_subscribers_group" integer NOT NULL, "can_administer_channel_group" integer NOT NULL, "can_create_topic_group" integer NOT NULL, "can_delete_any_message_group" integer NOT NULL, "can_delete_own_message_group" integer NOT NULL, "can_move_messages_out_of_channel_group" integer NOT NULL, "can_move_messages_within_channel_group" integer NOT NULL, "can_remove_subscribers_group" integer NOT NULL, "can_resolve_topics_group" integer NOT NULL, "can_send_message_group" integer NOT NULL, "can_subscribe_group" integer NOT NULL, CONSTRAINT "PK_0dc9d7e04ff213c08a096f835f2" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "stream_realm_id_idx" ON "stream"  ("realm_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "stream_recipient_id_key" ON "stream"  ("recipient_id") `);
        await queryRunner.query(`CREATE INDEX "stream_folder_id_idx" ON "stream"  ("folder_id") `);
        await queryRunner.query(`CREATE TABLE "default_stream" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "stream_id" integer NOT NULL, CONSTRAINT "PK_f134430ecaae317d751906dd6ab" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "default_stream_stream_id_idx" ON "default_stream"  ("stream_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "default_stream_realm_stream_key" ON "default_stream"  ("realm_id", "stream_id") `);
        await queryRunner.query(`CREATE TABLE "subscription" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "recipient_id" integer NOT NULL, "active" boolean NOT NULL DEFAULT true, "is_muted" boolean NOT NULL DEFAULT false, "color" character varying(10) NOT NULL DEFAULT '#c2c2c2', "pin_to_top" boolean NOT NULL DEFAULT false, "desktop_notifications" boolean, "audible_notifications" boolean, "push_notifications" boolean, "email_notifications" boolean, "wildcard_mentions_notify" boolean, CONSTRAINT "PK_8c3e00ebd02103caa1174cd5d9d" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "subscription_recipient_user_active_idx" ON "subscription"  ("recipient_id", "user_profile_id") WHERE active`);
        await queryRunner.query(`CREATE UNIQUE INDEX "subscription_user_recipient_key" ON "subscription"  ("user_profile_id", "recipient_id") `);
        await queryRunner.query(`CREATE TABLE "user_topic" ("id" SERIAL NOT NULL, "user_profile_id" integer NOT NULL, "stream_id" integer NOT NULL, "recipient_id" integer NOT NULL, "topic_name" character varying(60) NOT NULL, "last_updated" TIMESTAMP WITH TIME ZONE NOT NULL, "visibility_policy" smallint NOT NULL, CONSTRAINT "PK_73f13c58a72b763e49c5c4c8c45" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "channel_folder" ("id" SERIAL NOT NULL, "realm_id" integer NOT NULL, "name" character varying(60) NOT NULL, "description" character varying(1024) NOT NULL DEFAULT '', "rendered_description" text NOT NULL DEFAULT '', "order" integer NOT NULL DEFAULT '0', "date_created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "creator_id" integer, "is_archived" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_4974f1f4942dc5990f3fc6fe89a" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "channel_folder_realm_id_idx" ON "channel_folder"  ("realm_id") `);
        // Expression and partial indexes TypeORM cannot declare (entities mark them synchronize: false).
        await queryRunner.query(`CREATE UNIQUE INDEX "stream_realm_upper_name_key" ON "stream" ("realm_id", upper("name"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "user_topic_user_stream_topic_key" ON "user_topic" ("user_profile_id", "stream_id", lower("topic_name"))`);
        await queryRunner.query(`CREATE INDEX "user_topic_stream_topic_idx" ON "user_topic" ("stream_id", lower("topic_name"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "channel_folder_realm_lower_name_key" ON "channel_folder" ("realm_id", lower("name")) WHERE NOT "is_archived"`);
        await queryRunner.query(`ALTER TABLE "realm" ADD CONSTRAINT "FK_75d3e1d44def5182995d2b23a1b" FOREIGN KEY ("moderation_request_channel_id") REFERENCES "stream"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "realm" ADD CONSTRAINT "FK_c863bd4f7b28a3d2bda9a088a00" FOREIGN KEY ("new_stream_announcements_stream_id") REFERENCES "stream"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "realm" ADD CONSTRAINT "FK_f14de7df387fc8e757d7dd38391" FOREIGN KEY ("signup_announcements_stream_id") REFERENCES "stream"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "realm" ADD CONSTRAINT "FK_7c056e3bda2356bd9284ae0a615" FOREIGN KEY ("zulip_update_announcements_stream_id") REFERENCES "stream"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_251bd1a38c98893363949e0172d" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_7de966afba88775c37d77cf9db1" FOREIGN KEY ("creator_id") REFERENCES "user_profile"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_a6b2e9fb3b443d5b67e24e5c93e" FOREIGN KEY ("recipient_id") REFERENCES "recipient"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_b41fd106af39f5bd3da61293f12" FOREIGN KEY ("folder_id") REFERENCES "channel_folder"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_689cb1744b1706156ce1142c887" FOREIGN KEY ("can_add_subscribers_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_9ba5c316fdb72f9b0db0b39af24" FOREIGN KEY ("can_administer_channel_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_dcd448f0a42b14b45ff066577cb" FOREIGN KEY ("can_create_topic_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_8a6cd97cf6b822f7a90732d03c5" FOREIGN KEY ("can_delete_any_message_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_facc3f7150e07c57c20445bccd6" FOREIGN KEY ("can_delete_own_message_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_341393de1f315a24f863c6ed83a" FOREIGN KEY ("can_move_messages_out_of_channel_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_e8c4a2066ff0cea9341292fdac5" FOREIGN KEY ("can_move_messages_within_channel_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_05241ffc2a592257c03484617f2" FOREIGN KEY ("can_remove_subscribers_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_4fbbe7c48d2777d00e2cd8cd2f6" FOREIGN KEY ("can_resolve_topics_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_f9d1538ad145d268e271fa8eada" FOREIGN KEY ("can_send_message_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "stream" ADD CONSTRAINT "FK_8ad977d12401e33ebf92d746c6c" FOREIGN KEY ("can_subscribe_group") REFERENCES "user_group"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "default_stream" ADD CONSTRAINT "FK_f6fd7c10b7cc4a72f857c0340a0" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "default_stream" ADD CONSTRAINT "FK_b1432f9c5facb1bf4edafe28b7a" FOREIGN KEY ("stream_id") REFERENCES "stream"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "subscription" ADD CONSTRAINT "FK_e9a4e4002f897a07bbe6121c2c2" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "subscription" ADD CONSTRAINT "FK_50d08bc74dc7bef2bbbab8b15fa" FOREIGN KEY ("recipient_id") REFERENCES "recipient"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "user_topic" ADD CONSTRAINT "FK_eeda798302c3a19fe116950c18d" FOREIGN KEY ("user_profile_id") REFERENCES "user_profile"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "user_topic" ADD CONSTRAINT "FK_735bd0ac5fa3c49dccc0646ad3d" FOREIGN KEY ("stream_id") REFERENCES "stream"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "user_topic" ADD CONSTRAINT "FK_eec46c432a4b91f1102ebf6418f" FOREIGN KEY ("recipient_id") REFERENCES "recipient"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "channel_folder" ADD CONSTRAINT "FK_85ed44f861b24d23d820a3928ef" FOREIGN KEY ("realm_id") REFERENCES "realm"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE "channel_folder" ADD CONSTRAINT "FK_710e7445028837c058093a98fa0" FOREIGN KEY ("creator_id") REFERENCES "user_profile"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "channel_folder" DROP CONSTRAINT "FK_710e7445028837c058093a98fa0"`);
        await queryRunner.query(`ALTER TABLE "channel_folder" DROP CONSTRAINT "FK_85ed44f861b24d23d820a3928ef"`);
        await queryRunner.query(`ALTER TABLE "user_topic" DROP CONSTRAINT "FK_eec46c432a4b91f1102ebf6418f"`);
        await queryRunner.query(`ALTER TABLE "user_topic" DROP CONSTRAINT "FK_735bd0ac5fa3c49dccc0646ad3d"`);
        await queryRunner.query(`ALTER TABLE "user_topic" DROP CONSTRAINT "FK_eeda798302c3a19fe116950c18d"`);
        await queryRunner.query(`ALTER TABLE "subscription" DROP CONSTRAINT "FK_50d08bc74dc7bef2bbbab8b15fa"`);
        await queryRunner.query(`ALTER TABLE "subscription" DROP CONSTRAINT "FK_e9a4e4002f897a07bbe6121c2c2"`);
        await queryRunner.query(`ALTER TABLE "default_stream" DROP CONSTRAINT "FK_b1432f9c5facb1bf4edafe28b7a"`);
        await queryRunner.query(`ALTER TABLE "default_stream" DROP CONSTRAINT "FK_f6fd7c10b7cc4a72f857c0340a0"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_8ad977d12401e33ebf92d746c6c"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_f9d1538ad145d268e271fa8eada"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_4fbbe7c48d2777d00e2cd8cd2f6"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_05241ffc2a592257c03484617f2"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_e8c4a2066ff0cea9341292fdac5"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_341393de1f315a24f863c6ed83a"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_facc3f7150e07c57c20445bccd6"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_8a6cd97cf6b822f7a90732d03c5"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_dcd448f0a42b14b45ff066577cb"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_9ba5c316fdb72f9b0db0b39af24"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_689cb1744b1706156ce1142c887"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_b41fd106af39f5bd3da61293f12"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_a6b2e9fb3b443d5b67e24e5c93e"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_7de966afba88775c37d77cf9db1"`);
        await queryRunner.query(`ALTER TABLE "stream" DROP CONSTRAINT "FK_251bd1a38c98893363949e0172d"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP CONSTRAINT "FK_7c056e3bda2356bd9284ae0a615"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP CONSTRAINT "FK_f14de7df387fc8e757d7dd38391"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP CONSTRAINT "FK_c863bd4f7b28a3d2bda9a088a00"`);
        await queryRunner.query(`ALTER TABLE "realm" DROP CONSTRAINT "FK_75d3e1d44def5182995d2b23a1b"`);
        await queryRunner.query(`DROP INDEX "public"."channel_folder_realm_lower_name_key"`);
        await queryRunner.query(`DROP INDEX "public"."user_topic_stream_topic_idx"`);
        await queryRunner.query(`DROP INDEX "public"."user_topic_user_stream_topic_key"`);
        await queryRunner.query(`DROP INDEX "public"."stream_realm_upper_name_key"`);
        await queryRunner.query(`DROP INDEX "public"."channel_folder_realm_id_idx"`);
        await queryRunner.query(`DROP TABLE "channel_folder"`);
        await queryRunner.query(`DROP TABLE "user_topic"`);
        await queryRunner.query(`DROP INDEX "public"."subscription_user_recipient_key"`);
        await queryRunner.query(`DROP INDEX "public"."subscription_recipient_user_active_idx"`);
        await queryRunner.query(`DROP TABLE "subscription"`);
        await queryRunner.query(`DROP INDEX "public"."default_stream_realm_stream_key"`);
        await queryRunner.query(`DROP INDEX "public"."default_stream_stream_id_idx"`);
        await queryRunner.query(`DROP TABLE "default_stream"`);
        await queryRunner.query(`DROP INDEX "public"."stream_folder_id_idx"`);
        await queryRunner.query(`DROP INDEX "public"."stream_recipient_id_key"`);
        await queryRunner.query(`DROP INDEX "public"."stream_realm_id_idx"`);
        await queryRunner.query(`DROP TABLE "stream"`);
        await queryRunner.query(`DROP INDEX "public"."recipient_type_type_id_key"`);
        await queryRunner.query(`DROP TABLE "recipient"`);
    }

}
