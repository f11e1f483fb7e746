/**
 * Every event this server puts in a client's event queue (GET /events), as one discriminated
 * union on `type` (and `op` where Zulip has one). The shapes follow the `events` items of Zulip's
 * OpenAPI document (`/events` GET response, `oneOf` by type/op) at this server's feature level;
 * test/api/register/client-events.e2e-spec.ts produces every variant through the real code path
 * and validates it against that document.
 *
 * Large dictionaries that other modules format (a message, a channel, a subscription, a user, a
 * user group, a custom profile field) are typed as {@link JsonObject} here and documented by the
 * formatter that builds them: the events module is a leaf and imports no context.
 *
 * Adding an event: add its type and put it in {@link ClientEvent}; `npm run lint` then
 * fails until the events spec has a producer for it.
 */

/** A JSON object formatted by a context module (see the field's comment for which formatter). */
export type JsonObject = Record<string, unknown>;

/** A group-setting value as the API shows it: a named group's id, or an anonymous group. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

// ---- realm ------------------------------------------------------------------------------------

/** A realm property changed (do_set_realm_property). */
export type RealmUpdateEvent = {
  type: 'realm';
  op: 'update';
  property: string;
  value: string | number | boolean | null;
};

/** Realm properties sent in the dictionary form (group settings, editing settings, topics policy). */
export type RealmUpdateDictEvent = {
  type: 'realm';
  op: 'update_dict';
  property: 'default';
  data: Record<string, unknown>;
};

/** A realm default of the user settings changed. */
export type RealmUserSettingsDefaultsUpdateEvent = {
  type: 'realm_user_settings_defaults';
  op: 'update';
  property: string;
  /** The setting's value (a boolean, an integer or a string), as the request gave it. */
  value: unknown;
};

/** One of the user's own settings changed (do_change_user_setting); only to the user. */
export type UserSettingsUpdateEvent = {
  type: 'user_settings';
  op: 'update';
  property: string;
  /** The setting's new value (a boolean, an integer or a string). */
  value: boolean | number | string;
  /** With `default_language`: the language's name. */
  language_name?: string;
};

/** The legacy form of a display setting's change, for clients without user_settings_object. */
export type UpdateDisplaySettingsEvent = {
  type: 'update_display_settings';
  /** The user's API email. */
  user: string;
  setting_name: string;
  setting: boolean | number | string;
  language_name?: string;
};

/** The legacy form of a notification setting's change, for clients without user_settings_object. */
export type UpdateGlobalNotificationsEvent = {
  type: 'update_global_notifications';
  user: string;
  notification_name: string;
  setting: boolean | number | string;
};

/** The realm's custom profile fields, all of them (customProfileFieldDict in realm/). */
export type CustomProfileFieldsEvent = {
  type: 'custom_profile_fields';
  fields: JsonObject[];
};

/** A custom emoji as the API shows it (emojiDict in realm-emoji/). */
export type RealmEmojiDict = {
  id: string;
  name: string;
  source_url: string;
  /** For an animated emoji, the URL of a still image of its first frame; otherwise null. */
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
};

/** The realm's custom emoji changed: every emoji of the realm, deactivated ones included, by id. */
export type RealmEmojiUpdateEvent = {
  type: 'realm_emoji';
  op: 'update';
  realm_emoji: Record<string, RealmEmojiDict>;
};

/** A linkifier as /register, GET /realm/linkifiers and events show it. */
export type LinkifierDict = { id: number; pattern: string; url_template: string };

/** The realm's linkifiers changed: all of them, in order (empty for clients without linkifier_url_template). */
export type RealmLinkifiersEvent = {
  type: 'realm_linkifiers';
  realm_linkifiers: LinkifierDict[];
};

/** A code playground as /register and events show it. */
export type RealmPlaygroundDict = { id: number; name: string; pygments_language: string; url_template: string };

/** The realm's code playgrounds changed: all of them. */
export type RealmPlaygroundsEvent = {
  type: 'realm_playgrounds';
  realm_playgrounds: RealmPlaygroundDict[];
};

/** Invitations changed: clients that show them fetch GET /invites again (Zulip's notify_invites_changed). */
export type InvitesChangedEvent = { type: 'invites_changed' };

// ---- users ------------------------------------------------------------------------------------

/** A new user (userDict in users/user-format.ts, with `profile_data`). */
export type RealmUserAddEvent = {
  type: 'realm_user';
  op: 'add';
  person: JsonObject;
};

/** The custom profile field value in a `realm_user` update. */
export type CustomProfileFieldValue = {
  id: number;
  value: string | null;
  rendered_value?: string;
};

/** What a `realm_user` update carries: the user's id and one group of changed properties. */
export type RealmUserPerson =
  | { user_id: number; full_name: string }
  | { user_id: number; role: number }
  | { user_id: number; delivery_email: string | null }
  | { user_id: number; new_email: string }
  | { user_id: number; email: string; timezone: string }
  | { user_id: number; is_active: boolean }
  | { user_id: number; custom_profile_field: CustomProfileFieldValue }
  | {
      user_id: number;
      avatar_source: string;
      avatar_url: string;
      avatar_url_medium: string;
      avatar_version: number;
    };

export type RealmUserUpdateEvent = {
  type: 'realm_user';
  op: 'update';
  person: RealmUserPerson;
};

/**
 * A restricted guest lost sight of a user (can_access_all_users_group): clients drop the user (or
 * show them as "Unknown user"). `full_name` is always that placeholder name.
 */
export type RealmUserRemoveEvent = {
  type: 'realm_user';
  op: 'remove';
  person: { user_id: number; full_name: string };
};

/** A bot's state changed, for those who administer it. */
export type RealmBotUpdateEvent = {
  type: 'realm_bot';
  op: 'update';
  bot: { user_id: number; is_active: boolean };
};

/** The user's muted users changed: the whole list. */
export type MutedUsersEvent = {
  type: 'muted_users';
  muted_users: Array<{ id: number; timestamp: number }>;
};

export type NavigationViewAddEvent = {
  type: 'navigation_view';
  op: 'add';
  navigation_view: { fragment: string; is_pinned: boolean; name: string | null };
};

export type NavigationViewUpdateEvent = {
  type: 'navigation_view';
  op: 'update';
  fragment: string;
  data: { name?: string | null; is_pinned?: boolean };
};

export type NavigationViewRemoveEvent = {
  type: 'navigation_view';
  op: 'remove';
  fragment: string;
};

// ---- presence and status ----------------------------------------------------------------------

/**
 * A user came online (or turned invisible mode on or off): for clients with the
 * simplified_presence_events capability the modern `presences`, for others the legacy fields.
 */
export type PresenceEvent =
  | {
      type: 'presence';
      presences: Record<string, { active_timestamp: number; idle_timestamp: number }>;
    }
  | {
      type: 'presence';
      user_id: number;
      email: string;
      server_timestamp: number;
      presence: Record<string, { client: string; status: 'active' | 'idle'; timestamp: number; pushable: boolean }>;
    };

/** A user's status changed: only the fields the change set (do_update_user_status). */
export type UserStatusEvent = {
  type: 'user_status';
  user_id: number;
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
};

// ---- user groups ------------------------------------------------------------------------------

/** A new (or, for clients without include_deactivated_groups, reactivated) group (groupDicts). */
export type UserGroupAddEvent = {
  type: 'user_group';
  op: 'add';
  group: JsonObject;
};

/** Changed group properties: name, description, deactivated, or a group setting's new value. */
export type UserGroupUpdateEvent = {
  type: 'user_group';
  op: 'update';
  group_id: number;
  data: { name?: string; description?: string; deactivated?: boolean; [setting: string]: unknown };
};

export type UserGroupMembersEvent = {
  type: 'user_group';
  op: 'add_members' | 'remove_members';
  group_id: number;
  user_ids: number[];
};

export type UserGroupSubgroupsEvent = {
  type: 'user_group';
  op: 'add_subgroups' | 'remove_subgroups';
  group_id: number;
  direct_subgroup_ids: number[];
};

/** A deactivated group, for clients without include_deactivated_groups. */
export type UserGroupRemoveEvent = {
  type: 'user_group';
  op: 'remove';
  group_id: number;
};

// ---- channels and subscriptions ---------------------------------------------------------------

/** Channels that became visible (channelDict in channels/channel-format.ts). */
export type StreamCreateEvent = {
  type: 'stream';
  op: 'create';
  streams: JsonObject[];
};

export type StreamDeleteEvent = {
  type: 'stream';
  op: 'delete';
  streams: Array<{ stream_id: number }>;
  stream_ids: number[];
};

/** One channel property changed (`name` is the channel's name before the change). */
export type StreamUpdateEvent = {
  type: 'stream';
  op: 'update';
  stream_id: number;
  name: string;
  property: string;
  value: GroupSettingValue | number | boolean | string | null;
  /** Only with property `description`. */
  rendered_description?: string;
  /** Only with the privacy properties (invite_only, is_web_public, history_public_to_subscribers). */
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
};

/** The user's new subscriptions (subscriptionDict in channels/channel-format.ts). */
export type SubscriptionAddEvent = {
  type: 'subscription';
  op: 'add';
  subscriptions: JsonObject[];
};

export type SubscriptionRemoveEvent = {
  type: 'subscription';
  op: 'remove';
  subscriptions: Array<{ name: string; stream_id: number }>;
};

export type SubscriptionUpdateEvent = {
  type: 'subscription';
  op: 'update';
  stream_id: number;
  property: string;
  value: number | boolean | string;
};

/** Other users joined or left channels the recipient can see the subscribers of. */
export type SubscriptionPeerEvent = {
  type: 'subscription';
  op: 'peer_add' | 'peer_remove';
  stream_ids: number[];
  user_ids: number[];
};

export type DefaultStreamsEvent = {
  type: 'default_streams';
  default_streams: number[];
};

/** A topic's visibility policy for the user (mute, unmute, follow…). */
export type UserTopicEvent = {
  type: 'user_topic';
  stream_id: number;
  topic_name: string;
  /** Seconds since the epoch. */
  last_updated: number;
  visibility_policy: number;
};

/** The legacy list of muted topics: [channel name, topic, muted at (seconds)]. */
export type MutedTopicsEvent = {
  type: 'muted_topics';
  muted_topics: Array<[string, string, number]>;
};

/** A new channel folder (channelFolderDict in channels/channel-folders.service.ts). */
export type ChannelFolderAddEvent = {
  type: 'channel_folder';
  op: 'add';
  channel_folder: JsonObject;
};

export type ChannelFolderUpdateEvent = {
  type: 'channel_folder';
  op: 'update';
  channel_folder_id: number;
  data: { name?: string; description?: string; rendered_description?: string; is_archived?: boolean };
};

/** The realm's channel folders in their new order (every folder's id). */
export type ChannelFolderReorderEvent = {
  type: 'channel_folder';
  op: 'reorder';
  order: number[];
};

// ---- messages ---------------------------------------------------------------------------------

/** A new message (messageDict in messaging/message-format.ts) with the recipient's flags. */
export type NewMessageEvent = {
  type: 'message';
  message: JsonObject;
  flags: string[];
  /** Only in the sender's queue named by the send's queue_id. */
  local_message_id?: string;
};

/** An edit or a move (zerver/actions/message_edit.py do_update_message). */
export type UpdateMessageEvent = {
  type: 'update_message';
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  rendering_only: boolean;
  /** The recipient's flags on the edited message. */
  flags: string[];
  stream_name?: string;
  stream_id?: number;
  new_stream_id?: number;
  propagate_mode?: 'change_one' | 'change_later' | 'change_all';
  orig_subject?: string;
  subject?: string;
  topic_links?: Array<{ text: string; url: string }>;
  orig_content?: string;
  orig_rendered_content?: string | null;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
};

/** Deleted messages: `message_ids` for bulk_message_deletion clients, else one `message_id`. */
export type DeleteMessageEvent = {
  type: 'delete_message';
  message_ids?: number[];
  message_id?: number;
} & ({ message_type: 'stream'; stream_id: number; topic: string } | { message_type: 'private' });

/** Details of messages marked unread, by message id (format_unread_message_details). */
export type UnreadMessageDetails =
  | { type: 'stream'; stream_id: number; topic: string; unmuted_stream_msg: boolean; mentioned?: boolean }
  | { type: 'private'; user_ids: number[]; mentioned?: boolean };

export type UpdateMessageFlagsAddEvent = {
  type: 'update_message_flags';
  op: 'add';
  operation: 'add';
  flag: string;
  messages: number[];
  all: boolean;
};

export type UpdateMessageFlagsRemoveEvent = {
  type: 'update_message_flags';
  op: 'remove';
  operation: 'remove';
  flag: string;
  messages: number[];
  all: boolean;
  /** Only when removing `read`. */
  message_details?: Record<string, UnreadMessageDetails>;
};

export type ReactionEvent = {
  type: 'reaction';
  op: 'add' | 'remove';
  message_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
  user: { user_id: number; email: string; full_name: string };
};

/** Someone added a submessage (a vote, an option, a task…) to a widget message. */
export type SubmessageEvent = {
  type: 'submessage';
  msg_type: string;
  message_id: number;
  submessage_id: number;
  sender_id: number;
  content: string;
};

export type TypingUser = {
  user_id: number;
  email: string;
};

export type TypingEvent = {
  type: 'typing';
  op: 'start' | 'stop';
  sender: TypingUser;
} & (
  { message_type: 'stream'; stream_id: number; topic: string } | { message_type: 'direct'; recipients: TypingUser[] }
);

/** Someone is editing a message (POST /messages/{id}/typing); `user_ids` of a direct message include the sender. */
export type TypingEditMessageEvent = {
  type: 'typing_edit_message';
  op: 'start' | 'stop';
  sender_id: number;
  message_id: number;
  recipient: { type: 'channel'; channel_id: number; topic: string } | { type: 'direct'; user_ids: number[] };
};

// ---- uploads ----------------------------------------------------------------------------------

/** Attachment.to_dict (times in milliseconds). */
export type AttachmentDict = {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: Array<{ id: number; date_sent: number }>;
};

export type AttachmentAddEvent = {
  type: 'attachment';
  op: 'add';
  attachment: AttachmentDict;
  upload_space_used: number;
};

export type AttachmentRemoveEvent = {
  type: 'attachment';
  op: 'remove';
  attachment: { id: number };
  upload_space_used: number;
};

// ---- alert words, drafts, saved snippets (the user's own) ---------------------------------------

/** The user's whole (sorted) list of alert words after a change. */
export type AlertWordsEvent = {
  type: 'alert_words';
  alert_words: string[];
};

/** A draft as the API shows it (Zulip's Draft.to_dict). */
export type DraftDict = {
  id: number;
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
};

export type DraftsAddEvent = { type: 'drafts'; op: 'add'; drafts: DraftDict[] };
export type DraftsUpdateEvent = { type: 'drafts'; op: 'update'; draft: DraftDict };
export type DraftsRemoveEvent = { type: 'drafts'; op: 'remove'; draft_id: number };

/** A saved snippet as the API shows it (Zulip's SavedSnippet.to_api_dict). */
export type SavedSnippetDict = {
  id: number;
  title: string;
  content: string;
  date_created: number;
};

export type SavedSnippetsAddEvent = { type: 'saved_snippets'; op: 'add'; saved_snippet: SavedSnippetDict };
export type SavedSnippetsUpdateEvent = { type: 'saved_snippets'; op: 'update'; saved_snippet: SavedSnippetDict };
export type SavedSnippetsRemoveEvent = { type: 'saved_snippets'; op: 'remove'; saved_snippet_id: number };

// ---- the queue itself -------------------------------------------------------------------------

/** Ends a long-poll with nothing to report. */
export type HeartbeatEvent = {
  type: 'heartbeat';
};

/** Every event the server emits. */
// ---- scheduled messages and reminders ----------------------------------------------------------

/** A scheduled message as the API shows it (Zulip's ScheduledMessage.to_dict). */
export type ScheduledMessageDict =
  | {
      scheduled_message_id: number;
      type: 'stream';
      to: number;
      topic: string;
      content: string;
      rendered_content: string;
      scheduled_delivery_timestamp: number;
      failed: boolean;
    }
  | {
      scheduled_message_id: number;
      type: 'private';
      to: number[];
      content: string;
      rendered_content: string;
      scheduled_delivery_timestamp: number;
      failed: boolean;
    };

/** A reminder as the API shows it (Zulip's ScheduledMessage.to_reminder_dict). */
export type ReminderDict = {
  reminder_id: number;
  type: 'private';
  to: number[];
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
  reminder_target_message_id: number;
};

export type ScheduledMessagesAddEvent = {
  type: 'scheduled_messages';
  op: 'add';
  scheduled_messages: ScheduledMessageDict[];
};
export type ScheduledMessagesUpdateEvent = {
  type: 'scheduled_messages';
  op: 'update';
  scheduled_message: ScheduledMessageDict;
};
export type ScheduledMessagesRemoveEvent = { type: 'scheduled_messages'; op: 'remove'; scheduled_message_id: number };
export type RemindersAddEvent = { type: 'reminders'; op: 'add'; reminders: ReminderDict[] };
export type RemindersRemoveEvent = { type: 'reminders'; op: 'remove'; reminder_id: number };

export type ClientEvent =
  | RealmUpdateEvent
  | RealmUpdateDictEvent
  | RealmUserSettingsDefaultsUpdateEvent
  | UserSettingsUpdateEvent
  | UpdateDisplaySettingsEvent
  | UpdateGlobalNotificationsEvent
  | CustomProfileFieldsEvent
  | RealmEmojiUpdateEvent
  | RealmLinkifiersEvent
  | RealmPlaygroundsEvent
  | InvitesChangedEvent
  | RealmUserAddEvent
  | RealmUserUpdateEvent
  | RealmUserRemoveEvent
  | RealmBotUpdateEvent
  | MutedUsersEvent
  | NavigationViewAddEvent
  | NavigationViewUpdateEvent
  | NavigationViewRemoveEvent
  | PresenceEvent
  | UserStatusEvent
  | UserGroupAddEvent
  | UserGroupUpdateEvent
  | UserGroupMembersEvent
  | UserGroupSubgroupsEvent
  | UserGroupRemoveEvent
  | StreamCreateEvent
  | StreamDeleteEvent
  | StreamUpdateEvent
  | SubscriptionAddEvent
  | SubscriptionRemoveEvent
  | SubscriptionUpdateEvent
  | SubscriptionPeerEvent
  | DefaultStreamsEvent
  | UserTopicEvent
  | MutedTopicsEvent
  | ChannelFolderAddEvent
  | ChannelFolderUpdateEvent
  | ChannelFolderReorderEvent
  | NewMessageEvent
  | UpdateMessageEvent
  | DeleteMessageEvent
  | UpdateMessageFlagsAddEvent
  | UpdateMessageFlagsRemoveEvent
  | ReactionEvent
  | SubmessageEvent
  | TypingEvent
  | TypingEditMessageEvent
  | AttachmentAddEvent
  | AttachmentRemoveEvent
  | AlertWordsEvent
  | DraftsAddEvent
  | DraftsUpdateEvent
  | DraftsRemoveEvent
  | SavedSnippetsAddEvent
  | SavedSnippetsUpdateEvent
  | SavedSnippetsRemoveEvent
  | ScheduledMessagesAddEvent
  | ScheduledMessagesUpdateEvent
  | ScheduledMessagesRemoveEvent
  | RemindersAddEvent
  | RemindersRemoveEvent
  | HeartbeatEvent;

export type ClientEventType = ClientEvent['type'];

/** The variant of {@link ClientEvent} with type `T`. */
export type ClientEventOfType<T extends ClientEventType> = Extract<ClientEvent, { type: T }>;

type KeyOf<E> = E extends { type: infer T extends string; op: infer O extends string }
  ? `${T}/${O}`
  : E extends { type: infer T extends string }
    ? T
    : never;

/**
 * `type/op` (or `type` where Zulip has no op) of every variant, e.g. `stream/update`, `message`:
 * the key of the events spec's table of producers, so a new variant cannot go untested.
 */
export type ClientEventKey = KeyOf<ClientEvent>;

/** The {@link ClientEventKey} of an event. */
export function clientEventKey(event: { type: string; op?: unknown }): string {
  return typeof event.op === 'string' ? `${event.type}/${event.op}` : event.type;
}

// ---- constructors for shapes built in several places ------------------------------------------

export function realmUpdateEvent(property: string, value: RealmUpdateEvent['value']): RealmUpdateEvent {
  return { type: 'realm', op: 'update', property, value };
}

export function realmUpdateDictEvent(data: Record<string, unknown>): RealmUpdateDictEvent {
  return { type: 'realm', op: 'update_dict', property: 'default', data };
}

export function realmUserUpdateEvent(person: RealmUserPerson): RealmUserUpdateEvent {
  return { type: 'realm_user', op: 'update', person };
}

export function userGroupUpdateEvent(groupId: number, data: UserGroupUpdateEvent['data']): UserGroupUpdateEvent {
  return { type: 'user_group', op: 'update', group_id: groupId, data };
}

export function userGroupMembersEvent(
  op: UserGroupMembersEvent['op'],
  groupId: number,
  userIds: number[],
): UserGroupMembersEvent {
  return { type: 'user_group', op, group_id: groupId, user_ids: userIds };
}

export function userGroupSubgroupsEvent(
  op: UserGroupSubgroupsEvent['op'],
  groupId: number,
  subgroupIds: number[],
): UserGroupSubgroupsEvent {
  return { type: 'user_group', op, group_id: groupId, direct_subgroup_ids: subgroupIds };
}

export function streamUpdateEvent(
  stream: { id: number; name: string },
  property: string,
  value: StreamUpdateEvent['value'],
  extra: Pick<StreamUpdateEvent, 'rendered_description' | 'history_public_to_subscribers' | 'is_web_public'> = {},
): StreamUpdateEvent {
  return { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property, value, ...extra };
}

export function streamDeleteEvent(streamIds: number[]): StreamDeleteEvent {
  return {
    type: 'stream',
    op: 'delete',
    streams: streamIds.map((stream_id) => ({ stream_id })),
    stream_ids: streamIds,
  };
}

export function userTopicEvent(e: {
  streamId: number;
  topicName: string;
  lastUpdated: Date;
  visibilityPolicy: number;
}): UserTopicEvent {
  return {
    type: 'user_topic',
    stream_id: e.streamId,
    topic_name: e.topicName,
    last_updated: Math.floor(e.lastUpdated.getTime() / 1000),
    visibility_policy: e.visibilityPolicy,
  };
}

export function mutedTopicsEvent(mutedTopics: Array<[string, string, number]>): MutedTopicsEvent {
  return { type: 'muted_topics', muted_topics: mutedTopics };
}

/** `read` (or another flag) added to messages; `all` for mark-all-as-read (with no ids). */
export function flagsAddedEvent(flag: string, messages: number[], all = false): UpdateMessageFlagsAddEvent {
  return { type: 'update_message_flags', op: 'add', operation: 'add', flag, messages, all };
}

export function flagsRemovedEvent(flag: string, messages: number[]): UpdateMessageFlagsRemoveEvent {
  return { type: 'update_message_flags', op: 'remove', operation: 'remove', flag, messages, all: false };
}
