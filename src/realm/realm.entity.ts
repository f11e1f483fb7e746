import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { REALM_GROUP_SETTING_NAMES, RealmGroupSettingName } from './system-groups';
import { UserSettings } from './user-settings';

/** An organization. Every organization-owned row elsewhere carries its `realm_id`. */
// The group-setting columns are declared below from REALM_GROUP_SETTINGS (one list, no copies).
@Entity({ name: 'realm' })
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Realm {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('realm_string_id_key', { unique: true })
  @Column({ name: 'string_id', type: 'varchar', length: 40 })
  stringId: string;

  @Column({ type: 'varchar', length: 40 })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ name: 'icon_source', type: 'varchar', length: 1, default: 'G' })
  iconSource: string;

  @Column({ name: 'icon_version', type: 'integer', default: 1 })
  iconVersion: number;

  /**
   * Bumped by every change of the realm's alert words: the send path keeps a matcher per
   * realm and version, so every instance sees a change once its realm row is fresh.
   */
  @Column({ name: 'alert_words_version', type: 'integer', default: 0 })
  alertWordsVersion: number;

  /**
   * The realm's own upload quota, MiB of attachments in total (Zulip's custom_upload_quota_gb);
   * null: the server's UPLOAD_QUOTA_MIB. Set with the admin CLI's set-upload-quota.
   */
  @Column({ name: 'custom_upload_quota_mib', type: 'integer', nullable: true })
  customUploadQuotaMib: number | null;

  @Column({ name: 'date_created', type: 'timestamptz', default: () => 'now()' })
  dateCreated: Date;

  @Column({ type: 'boolean', default: false })
  deactivated: boolean;

  @Column({ name: 'org_type', type: 'smallint', default: 10 })
  orgType: number;

  @Column({ name: 'invite_required', type: 'boolean', default: true })
  inviteRequired: boolean;

  @Column({ name: 'emails_restricted_to_domains', type: 'boolean', default: false })
  emailsRestrictedToDomains: boolean;

  @Column({ name: 'allow_message_editing', type: 'boolean', default: true })
  allowMessageEditing: boolean;

  @Column({ name: 'message_content_edit_limit_seconds', type: 'integer', nullable: true, default: 600 })
  messageContentEditLimitSeconds: number | null;

  @Column({ name: 'message_content_delete_limit_seconds', type: 'integer', nullable: true, default: 600 })
  messageContentDeleteLimitSeconds: number | null;

  @Column({ name: 'move_messages_within_stream_limit_seconds', type: 'integer', nullable: true, default: 604800 })
  moveMessagesWithinStreamLimitSeconds: number | null;

  @Column({ name: 'move_messages_between_streams_limit_seconds', type: 'integer', nullable: true, default: 604800 })
  moveMessagesBetweenStreamsLimitSeconds: number | null;

  /** `allow_empty_topic` or `disable_empty_topic`. */
  @Column({ name: 'topics_policy', type: 'varchar', length: 32, default: 'allow_empty_topic' })
  topicsPolicy: string;

  /** Who sees message edit history: `all`, `moves` (moves only) or `none`. */
  @Column({ name: 'message_edit_history_visibility_policy', type: 'varchar', length: 8, default: 'all' })
  messageEditHistoryVisibilityPolicy: string;

  @Column({ name: 'waiting_period_threshold', type: 'integer', default: 0 })
  waitingPeriodThreshold: number;

  /** -1 = keep forever. */
  @Column({ name: 'message_retention_days', type: 'integer', default: -1 })
  messageRetentionDays: number;

  @Column({ name: 'enable_spectator_access', type: 'boolean', default: false })
  enableSpectatorAccess: boolean;

  @Column({ name: 'enable_read_receipts', type: 'boolean', default: false })
  enableReadReceipts: boolean;

  @Column({ name: 'send_channel_events_messages', type: 'boolean', default: true })
  sendChannelEventsMessages: boolean;

  @Column({ name: 'moderation_request_channel_id', type: 'integer', nullable: true })
  moderationRequestChannelId: number | null;

  @Column({ name: 'new_stream_announcements_stream_id', type: 'integer', nullable: true })
  newStreamAnnouncementsStreamId: number | null;

  @Column({ name: 'signup_announcements_stream_id', type: 'integer', nullable: true })
  signupAnnouncementsStreamId: number | null;

  @Column({ name: 'zulip_update_announcements_stream_id', type: 'integer', nullable: true })
  zulipUpdateAnnouncementsStreamId: number | null;

  @Column({ name: 'default_language', type: 'varchar', length: 50, default: 'en' })
  defaultLanguage: string;

  @Column({ name: 'inline_image_preview', type: 'boolean', default: true })
  inlineImagePreview: boolean;

  @Column({ name: 'inline_url_embed_preview', type: 'boolean', default: false })
  inlineUrlEmbedPreview: boolean;

  @Column({ name: 'digest_emails_enabled', type: 'boolean', default: false })
  digestEmailsEnabled: boolean;

  @Column({ name: 'digest_weekday', type: 'smallint', default: 1 })
  digestWeekday: number;

  @Column({ name: 'send_welcome_emails', type: 'boolean', default: true })
  sendWelcomeEmails: boolean;

  @Column({ name: 'message_content_allowed_in_email_notifications', type: 'boolean', default: true })
  messageContentAllowedInEmailNotifications: boolean;

  @Column({ name: 'require_unique_names', type: 'boolean', default: false })
  requireUniqueNames: boolean;

  @Column({ name: 'name_changes_disabled', type: 'boolean', default: false })
  nameChangesDisabled: boolean;

  @Column({ name: 'email_changes_disabled', type: 'boolean', default: false })
  emailChangesDisabled: boolean;

  @Column({ name: 'avatar_changes_disabled', type: 'boolean', default: false })
  avatarChangesDisabled: boolean;

  @Column({ name: 'jitsi_server_url', type: 'varchar', length: 200, nullable: true })
  jitsiServerUrl: string | null;

  @Column({ name: 'video_chat_provider', type: 'smallint', default: 1 })
  videoChatProvider: number;

  @Column({ name: 'disallow_disposable_email_addresses', type: 'boolean', default: true })
  disallowDisposableEmailAddresses: boolean;

  @Column({ name: 'want_advertise_in_communities_directory', type: 'boolean', default: false })
  wantAdvertiseInCommunitiesDirectory: boolean;

  @Column({ name: 'enable_guest_user_indicator', type: 'boolean', default: true })
  enableGuestUserIndicator: boolean;

  @Column({ name: 'enable_guest_user_dm_warning', type: 'boolean', default: true })
  enableGuestUserDmWarning: boolean;

  @Column({ name: 'require_e2ee_push_notifications', type: 'boolean', default: false })
  requireE2eePushNotifications: boolean;

  /** Maximum GIPHY rating (Realm.GIPHY_RATING_OPTIONS id; 0 disables the integration). */
  @Column({ name: 'giphy_rating', type: 'smallint', default: 2 })
  giphyRating: number;

  @Column({ name: 'default_code_block_language', type: 'text', default: '' })
  defaultCodeBlockLanguage: string;

  /** The organization's custom Welcome Bot message for new users (at most 8000 characters). */
  @Column({ name: 'welcome_message_custom_text', type: 'text', default: '' })
  welcomeMessageCustomText: string;

  /**
   * Which of the server's authentication methods the organization enables (Zulip's
   * RealmAuthenticationMethod rows), by backend name: `{"Dev": true, "Email": true}`.
   */
  @Column({ name: 'authentication_methods', type: 'jsonb', default: () => `'{"Dev": true, "Email": true}'` })
  authenticationMethods: Record<string, boolean>;
}

/** Group-setting columns (user group ids), one per realm permission setting. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Realm extends Record<RealmGroupSettingName, number> {}
for (const name of REALM_GROUP_SETTING_NAMES) {
  // Nullable only because a realm row exists before its system groups do (same as Zulip).
  Column({ name, type: 'integer', nullable: true })(Realm.prototype, name);
}

/** Defaults of personal settings applied to users created afterwards (Zulip's RealmUserDefault). */
@Entity({ name: 'realm_user_default' })
export class RealmUserDefault {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('realm_user_default_realm_id_key', { unique: true })
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column(() => UserSettings, { prefix: false })
  settings: UserSettings;
}
