import { IsArray, IsBoolean, IsIn, IsInt, MaxLength } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

/** POST /users/me/subscriptions, in the order Zulip checks its parameters. */
export class SubscribeArgs {
  @Arg({ name: 'subscriptions' })
  @IsArray()
  subscriptions: unknown[];

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
  @IsBoolean()
  history_public_to_subscribers?: boolean;

  /** `realm_default`, `unlimited` or a number, as plain text or JSON. */
  @OptionalArg({ json: false, default: 'realm_default' })
  message_retention_days: string;

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

  @OptionalArg({ default: false })
  @IsBoolean()
  announce: boolean;

  @OptionalArg()
  principals?: unknown;

  @OptionalArg({ default: true })
  @IsBoolean()
  authorization_errors_fatal: boolean;

  @OptionalArg()
  @IsInt()
  folder_id?: number;

  @OptionalArg({ default: true })
  @IsBoolean()
  send_new_subscription_messages: boolean;
}

/** DELETE /users/me/subscriptions */
export class UnsubscribeArgs {
  @Arg()
  @IsArray()
  subscriptions: unknown[];

  @OptionalArg()
  principals?: unknown;
}

/** PATCH /users/me/subscriptions: unsubscribe from `delete`, subscribe to `add`, in one transaction. */
export class BulkSubscriptionArgs {
  @OptionalArg()
  @IsArray()
  delete?: unknown[];

  @OptionalArg()
  @IsArray()
  add?: unknown[];
}

/** GET /users/me/subscriptions */
export class ListSubscriptionsArgs {
  @OptionalArg({ json: false, default: 'false' })
  @IsIn(['true', 'false', 'partial'])
  include_subscribers: string;
}

/** POST /users/me/subscriptions/properties */
export class SubscriptionPropertiesArgs {
  @Arg()
  @IsArray()
  subscription_data: unknown[];
}

/** PATCH /users/me/subscriptions/muted_topics */
export class MutedTopicArgs {
  @OptionalArg()
  @IsInt()
  stream_id?: number;

  @OptionalArg({ json: false })
  stream?: string;

  @Arg({ json: false })
  @MaxLength(60)
  topic: string;

  @Arg({ json: false })
  @IsIn(['add', 'remove'])
  op: 'add' | 'remove';
}

/** POST /user_topics */
export class UserTopicArgs {
  @Arg()
  @IsInt()
  stream_id: number;

  @Arg({ json: false })
  @MaxLength(60)
  topic: string;

  @Arg()
  @IsInt()
  @IsIn([0, 1, 2, 3])
  visibility_policy: number;
}
