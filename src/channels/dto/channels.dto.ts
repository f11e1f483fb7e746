import { IsArray, IsBoolean, IsInt, IsString, MaxLength } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

/** GET /streams */
export class GetStreamsArgs {
  @OptionalArg({ default: true }) @IsBoolean() include_public: boolean;
  @OptionalArg({ default: false }) @IsBoolean() include_web_public: boolean;
  @OptionalArg({ default: true }) @IsBoolean() include_subscribed: boolean;
  @OptionalArg({ default: true }) @IsBoolean() exclude_archived: boolean;
  @OptionalArg({ default: false }) @IsBoolean() include_all: boolean;
  @OptionalArg({ default: false }) @IsBoolean() include_all_active: boolean;
  @OptionalArg({ default: false }) @IsBoolean() include_default: boolean;
  @OptionalArg({ default: false }) @IsBoolean() include_owner_subscribed: boolean;
  @OptionalArg({ default: false }) @IsBoolean() include_can_access_content: boolean;
}

/** GET /get_stream_id */
export class GetStreamIdArgs {
  @Arg({ json: false })
  @IsString()
  stream: string;
}

/** PATCH /streams/{stream_id}, in Zulip's declaration order. */
export class UpdateStreamArgs {
  @OptionalArg({ json: false })
  @MaxLength(1024)
  description?: string;

  @OptionalArg() @IsBoolean() is_private?: boolean;
  @OptionalArg() @IsBoolean() is_default_stream?: boolean;
  @OptionalArg() @IsBoolean() history_public_to_subscribers?: boolean;
  @OptionalArg() @IsBoolean() is_web_public?: boolean;

  @OptionalArg({ json: false })
  new_name?: string;

  @OptionalArg({ json: false })
  message_retention_days?: string;

  @OptionalArg() @IsBoolean() is_archived?: boolean;

  @OptionalArg({ json: false })
  topics_policy?: string;

  @OptionalArg() can_add_subscribers_group?: unknown;
  @OptionalArg() can_administer_channel_group?: unknown;
  @OptionalArg() can_create_topic_group?: unknown;
  @OptionalArg() can_delete_any_message_group?: unknown;
  @OptionalArg() can_delete_own_message_group?: unknown;
  @OptionalArg() can_move_messages_out_of_channel_group?: unknown;
  @OptionalArg() can_move_messages_within_channel_group?: unknown;
  @OptionalArg() can_send_message_group?: unknown;
  @OptionalArg() can_remove_subscribers_group?: unknown;
  @OptionalArg() can_resolve_topics_group?: unknown;
  @OptionalArg() can_subscribe_group?: unknown;

  /** An integer, or null to take the channel out of its folder. */
  @OptionalArg() folder_id?: unknown;
}

/** POST /channels/create (feature level 417). */
export class CreateChannelArgs {
  @Arg({ json: false })
  @IsString()
  name: string;

  @OptionalArg({ json: false, default: '' })
  @MaxLength(1024)
  description: string;

  @Arg()
  @IsArray()
  @IsInt({ each: true })
  subscribers: number[];

  @OptionalArg({ default: false })
  @IsBoolean()
  announce: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  invite_only: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  is_web_public: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  is_default_stream: boolean;

  @OptionalArg()
  @IsInt()
  folder_id?: number;

  /** Accepted for compatibility: no "subscribed you" notices are sent for a new channel. */
  @OptionalArg({ default: true })
  @IsBoolean()
  send_new_subscription_messages: boolean;

  @OptionalArg({ json: false })
  topics_policy?: string;

  @OptionalArg()
  @IsBoolean()
  history_public_to_subscribers?: boolean;

  /** `realm_default`, `unlimited` or a number, as plain text or JSON. */
  @OptionalArg({ json: false, default: 'realm_default' })
  message_retention_days: string;

  @OptionalArg() can_add_subscribers_group?: unknown;
  @OptionalArg() can_administer_channel_group?: unknown;
  @OptionalArg() can_create_topic_group?: unknown;
  @OptionalArg() can_delete_any_message_group?: unknown;
  @OptionalArg() can_delete_own_message_group?: unknown;
  @OptionalArg() can_move_messages_out_of_channel_group?: unknown;
  @OptionalArg() can_move_messages_within_channel_group?: unknown;
  @OptionalArg() can_remove_subscribers_group?: unknown;
  @OptionalArg() can_resolve_topics_group?: unknown;
  @OptionalArg() can_send_message_group?: unknown;
  @OptionalArg() can_subscribe_group?: unknown;
}

/** GET /streams/{stream_id}/email_address */
export class StreamEmailAddressArgs {
  @OptionalArg()
  @IsInt()
  sender_id?: number;
}

/** POST and DELETE /default_streams */
export class DefaultStreamArgs {
  @Arg()
  @IsInt()
  stream_id: number;
}
