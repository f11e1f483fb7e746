import { IsBoolean, IsInt, IsObject, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { ParamErrors } from '../common/errors/param.errors';
import { type ClientEvent, realmUpdateDictEvent } from '../events/client-events';
import { Realm } from '../realm/realm.entity';
import { RealmErrors } from '../realm/realm.errors';
import type { RealmGroupSettingName } from '../realm/system-groups';
import { AUTHENTICATION_METHOD_NAMES, VIDEO_CHAT_PROVIDERS } from '../realm/realm-options';
import { isAvailableLanguage } from '../users/languages';
import {
  EDIT_HISTORY_VISIBILITY_POLICIES,
  parseRetentionDays,
  parseTimeLimit,
  REALM_TOPICS_POLICIES,
} from './realm-settings.policy';

/** A stored scalar realm setting. */
export type RealmPropertyValue = string | number | boolean | null;

const INT32_MAX = 2_147_483_647;

/**
 * One realm setting of PATCH /realm that Zulip sets with do_set_realm_property (its
 * Realm.property_types), or one with its own action (org_type, authentication_methods).
 */
export interface RealmPropertyDef {
  /** The Realm entity property that stores it. */
  column: keyof Realm;
  /** Whether the parameter is JSON-encoded (Json[...] in Zulip's view). */
  json: boolean;
  /** class-validator decorators of the decoded parameter (its type and constraints). */
  validators: PropertyDecorator[];
  /** Only organization owners may change it (update_realm's OrganizationOwnerRequiredError). */
  ownerOnly?: boolean;
  /** A check with its own error text, run before anything is written (update_realm's order). */
  check?: (value: unknown) => void;
  /**
   * The value to store, from the decoded parameter. A null result of a nullable setting
   * ("unlimited", "default") is applied before every other setting, as Zulip does.
   */
  parse?: (value: unknown) => RealmPropertyValue;
  /** The event a change sends; default `{type: realm, op: update, property, value}`. */
  event?: (value: RealmPropertyValue) => ClientEvent;
  /** The response's value for a change; default "updated" for strings, else the value. */
  response?: (value: RealmPropertyValue) => unknown;
  /**
   * Sent (and answered) even when the value does not change, after every other setting
   * (do_change_realm_org_type, at the end of update_realm).
   */
  alwaysSend?: boolean;
  /** The API value of what is stored (for comparisons); default: the stored value. */
  apiValue?: (stored: unknown) => unknown;
}

/** Zulip's OrgTypeEnum values. */
export const ORG_TYPE_IDS = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000];

/** Realm.GIPHY_RATING_OPTIONS ids. */
export const GIPHY_RATING_IDS = [0, 1, 2, 3, 4, 5];

const JITSI_SERVER_URL_MAX_LENGTH = 200;

/** Zulip's check_jitsi_url: "default", or an http(s)/ftp(s) URL of at most 200 characters. */
export function parseJitsiServerUrl(value: unknown): string | null {
  const text = value as string;
  if (text === 'default') return null;
  if (text.length > JITSI_SERVER_URL_MAX_LENGTH || !isWebUrl(text)) throw RealmErrors.jitsiUrlNotAllowed();
  return text;
}

function isWebUrl(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return ['http:', 'https:', 'ftp:', 'ftps:'].includes(url.protocol) && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Integers or strings (the time limits: seconds or "unlimited"). */
function IsIntOrString(): PropertyDecorator {
  return ValidateBy({
    name: 'isIntOrString',
    validator: {
      validate: (value: unknown) => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)),
      defaultMessage: (args) => ParamErrors.notAnInteger(args?.property ?? 'value').message,
    },
  });
}

/** check_jitsi_url, as the parameter's validator. */
function IsJitsiServerUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isJitsiServerUrl',
    validator: {
      validate: (value: unknown) => {
        if (typeof value !== 'string') return true; // IsString reports it
        try {
          parseJitsiServerUrl(value);
          return true;
        } catch {
          return false;
        }
      },
      defaultMessage: () => RealmErrors.jitsiUrlNotAllowed().message,
    },
  });
}

/** An integer among `values` (a pydantic enum of integers): otherwise `Invalid <name>`. */
function IsIntIn(name: string, values: number[]): PropertyDecorator {
  return ValidateBy({
    name: `isIntIn_${name}`,
    validator: {
      // A non-integer is IsInt's to report.
      validate: (value: unknown) => !Number.isInteger(value) || values.includes(value as number),
      defaultMessage: () => ParamErrors.invalid(name).message,
    },
  });
}

/** A string among `values` (Zulip's parse_enum_from_string_value): otherwise `Invalid <name>`. */
function IsOneOf(name: string, values: Record<string, unknown>): PropertyDecorator {
  return ValidateBy({
    name: `isOneOf_${name}`,
    validator: {
      validate: (value: unknown) => typeof value === 'string' && Object.hasOwn(values, value),
      defaultMessage: () => ParamErrors.invalid(name).message,
    },
  });
}

const bool = (extra: Partial<RealmPropertyDef> & Pick<RealmPropertyDef, 'column'>): RealmPropertyDef => ({
  json: true,
  validators: [IsBoolean()],
  ...extra,
});

const text = (column: keyof Realm, maxLength?: number, extra: Partial<RealmPropertyDef> = {}): RealmPropertyDef => ({
  column,
  json: false,
  validators: maxLength === undefined ? [IsString()] : [IsString(), MaxLength(maxLength)],
  ...extra,
});

const timeLimit = (column: keyof Realm, name: string, extra: Partial<RealmPropertyDef> = {}): RealmPropertyDef => ({
  column,
  json: true,
  validators: [IsIntOrString()],
  parse: (value) => parseTimeLimit(name, value as number | string),
  ...extra,
});

/** Settings whose events use the update_dict form for historical reasons (do_set_realm_property). */
const updateDict =
  (name: string) =>
  (value: RealmPropertyValue): ClientEvent =>
    realmUpdateDictEvent({ [name]: value });

/**
 * The scalar settings of PATCH /realm, in the order Zulip applies them (update_realm's
 * `locals()` order: its parameters, then the parsed time limits, retention and Jitsi URL), so
 * events come in Zulip's order. Each row is the parameter's type, who may change it, its checks
 * and the event a change sends.
 */
export const REALM_PROPERTIES: Record<string, RealmPropertyDef> = {
  allow_message_editing: bool({ column: 'allowMessageEditing', event: updateDict('allow_message_editing') }),
  avatar_changes_disabled: bool({ column: 'avatarChangesDisabled' }),
  default_code_block_language: text('defaultCodeBlockLanguage'),
  default_language: text('defaultLanguage', undefined, {
    check: (value) => {
      if (!isAvailableLanguage(value as string)) throw RealmErrors.invalidLanguage(value as string);
    },
  }),
  description: text('description', 1000),
  digest_emails_enabled: bool({ column: 'digestEmailsEnabled' }),
  digest_weekday: {
    column: 'digestWeekday',
    json: true,
    validators: [IsInt(), IsIntIn('digest_weekday', [0, 1, 2, 3, 4, 5, 6])],
  },
  disallow_disposable_email_addresses: bool({ column: 'disallowDisposableEmailAddresses', ownerOnly: true }),
  email_changes_disabled: bool({ column: 'emailChangesDisabled' }),
  emails_restricted_to_domains: bool({ column: 'emailsRestrictedToDomains', ownerOnly: true }),
  enable_guest_user_dm_warning: bool({ column: 'enableGuestUserDmWarning' }),
  enable_guest_user_indicator: bool({ column: 'enableGuestUserIndicator' }),
  enable_read_receipts: bool({ column: 'enableReadReceipts' }),
  enable_spectator_access: bool({ column: 'enableSpectatorAccess' }),
  giphy_rating: {
    column: 'giphyRating',
    json: true,
    validators: [IsInt()],
    check: (value) => {
      if (!GIPHY_RATING_IDS.includes(value as number)) throw RealmErrors.invalidGiphyRating(value as number);
    },
  },
  inline_image_preview: bool({ column: 'inlineImagePreview' }),
  inline_url_embed_preview: bool({ column: 'inlineUrlEmbedPreview' }),
  invite_required: bool({ column: 'inviteRequired', ownerOnly: true }),
  message_content_allowed_in_email_notifications: bool({ column: 'messageContentAllowedInEmailNotifications' }),
  message_edit_history_visibility_policy: {
    column: 'messageEditHistoryVisibilityPolicy',
    json: false,
    validators: [IsString(), IsOneOf('message_edit_history_visibility_policy', EDIT_HISTORY_VISIBILITY_POLICIES)],
    response: (value) => EDIT_HISTORY_VISIBILITY_POLICIES[value as string],
  },
  name: text('name', 40),
  name_changes_disabled: bool({ column: 'nameChangesDisabled' }),
  require_e2ee_push_notifications: bool({ column: 'requireE2eePushNotifications' }),
  require_unique_names: bool({ column: 'requireUniqueNames' }),
  send_channel_events_messages: bool({ column: 'sendChannelEventsMessages' }),
  send_welcome_emails: bool({ column: 'sendWelcomeEmails' }),
  topics_policy: {
    column: 'topicsPolicy',
    json: false,
    validators: [IsString(), IsOneOf('topics_policy', REALM_TOPICS_POLICIES)],
    event: (value) => realmUpdateDictEvent({ topics_policy: value, mandatory_topics: value === 'disable_empty_topic' }),
    response: (value) => REALM_TOPICS_POLICIES[value as string],
  },
  video_chat_provider: {
    column: 'videoChatProvider',
    json: true,
    validators: [IsInt()],
    check: (value) => {
      const ids: number[] = Object.values(VIDEO_CHAT_PROVIDERS).map((p) => p.id);
      if (!ids.includes(value as number)) throw RealmErrors.invalidVideoChatProvider(value as number);
    },
  },
  waiting_period_threshold: {
    column: 'waitingPeriodThreshold',
    json: true,
    validators: [IsInt(), Min(0), Max(INT32_MAX)],
    ownerOnly: true,
  },
  want_advertise_in_communities_directory: bool({ column: 'wantAdvertiseInCommunitiesDirectory' }),
  welcome_message_custom_text: text('welcomeMessageCustomText', 8000),
  message_retention_days: {
    column: 'messageRetentionDays',
    json: true,
    validators: [IsIntOrString()],
    ownerOnly: true,
    parse: (value) => parseRetentionDays(value as number | string),
  },
  message_content_delete_limit_seconds: timeLimit(
    'messageContentDeleteLimitSeconds',
    'message_content_delete_limit_seconds',
  ),
  message_content_edit_limit_seconds: timeLimit(
    'messageContentEditLimitSeconds',
    'message_content_edit_limit_seconds',
    {
      event: updateDict('message_content_edit_limit_seconds'),
    },
  ),
  move_messages_within_stream_limit_seconds: timeLimit(
    'moveMessagesWithinStreamLimitSeconds',
    'move_messages_within_stream_limit_seconds',
  ),
  move_messages_between_streams_limit_seconds: timeLimit(
    'moveMessagesBetweenStreamsLimitSeconds',
    'move_messages_between_streams_limit_seconds',
  ),
  jitsi_server_url: {
    column: 'jitsiServerUrl',
    json: true,
    validators: [IsString(), IsJitsiServerUrl()],
    parse: parseJitsiServerUrl,
  },
  org_type: {
    column: 'orgType',
    json: true,
    validators: [IsInt(), IsIntIn('org_type', ORG_TYPE_IDS)],
    alwaysSend: true,
  },
};

export type RealmPropertyName = keyof typeof REALM_PROPERTIES;

/**
 * update_realm's checks with their own texts, in its order, before anything is written: each
 * runs its owner check first when the setting is owner-only.
 */
export const CHECK_ORDER = [
  'default_language',
  'authentication_methods',
  'video_chat_provider',
  'giphy_rating',
  'message_retention_days',
] as const;

/** The channel-valued settings (do_set_realm_stream); -1 unsets them. */
export const CHANNEL_SETTINGS = [
  { name: 'moderation_request_channel_id', column: 'moderationRequestChannelId', mustBePrivate: true },
  { name: 'new_stream_announcements_stream_id', column: 'newStreamAnnouncementsStreamId', mustBePrivate: false },
  { name: 'signup_announcements_stream_id', column: 'signupAnnouncementsStreamId', mustBePrivate: false },
  { name: 'zulip_update_announcements_stream_id', column: 'zulipUpdateAnnouncementsStreamId', mustBePrivate: false },
] as const satisfies ReadonlyArray<{ name: string; column: keyof Realm; mustBePrivate: boolean }>;

/** The order in which update_realm applies the group settings (Realm.REALM_PERMISSION_GROUP_SETTINGS). */
export const GROUP_SETTING_ORDER: RealmGroupSettingName[] = [
  'create_multiuse_invite_group',
  'can_access_all_users_group',
  'can_add_subscribers_group',
  'can_add_custom_emoji_group',
  'can_create_bots_group',
  'can_create_groups',
  'can_create_public_channel_group',
  'can_create_private_channel_group',
  'can_create_web_public_channel_group',
  'can_create_write_only_bots_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_invite_users_group',
  'can_manage_all_groups',
  'can_manage_billing_group',
  'can_mention_many_users_group',
  'can_move_messages_between_channels_group',
  'can_move_messages_between_topics_group',
  'can_resolve_topics_group',
  'can_set_delete_message_policy_group',
  'can_set_topics_policy_group',
  'can_summarize_topics_group',
  'direct_message_initiator_group',
  'direct_message_permission_group',
];

/** Validators of the parameters with their own handling (not in REALM_PROPERTIES). */
export const OTHER_PARAM_VALIDATORS: Record<string, { json: boolean; validators: PropertyDecorator[] }> = {
  authentication_methods: { json: true, validators: [IsObject()] },
  string_id: { json: false, validators: [IsString(), MaxLength(40)] },
  ...Object.fromEntries(CHANNEL_SETTINGS.map((s) => [s.name, { json: true, validators: [IsInt()] }])),
};

/**
 * Zulip's validate_authentication_methods_dict_from_api and update_realm's "at least one"
 * check: every name must be one of the server's methods, and one value must be true.
 */
export function checkAuthenticationMethods(methods: Record<string, unknown>): void {
  const known: readonly string[] = AUTHENTICATION_METHOD_NAMES;
  for (const name of Object.keys(methods)) {
    if (!known.includes(name)) throw RealmErrors.invalidAuthenticationMethod(name, [...known].sort());
  }
  // Python's `True in values()`: 1 equals True there.
  if (!Object.values(methods).some((v) => v === true || v === 1)) throw RealmErrors.noAuthenticationMethod();
}
