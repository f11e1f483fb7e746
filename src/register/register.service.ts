import { Inject, Injectable } from '@nestjs/common';
import { serverEmojiDataPath } from '../markdown/emoji/server-emoji-data';
import type { AuthContext } from '../common/auth/auth.types';
import { APP_CONFIG, AppConfig, pushNotificationsConfigured } from '../common/config/config';
import { Limits } from '../common/limits';
import { API_FEATURE_LEVEL, SERVER_MERGE_BASE, SERVER_VERSION } from '../common/version';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import { MessagingStateService } from '../messaging/messaging-state.service';
import { EventsService } from '../events/events.service';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { RealmEmojiService } from '../realm-emoji/realm-emoji.service';
import { LinkifierService } from '../linkifiers/linkifier.service';
import { PlaygroundService } from '../playgrounds/playground.service';
import { CUSTOM_PROFILE_FIELD_TYPES, defaultExternalAccountsForApi } from '../realm/custom-profile-fields.policy';
import { CustomProfileFieldsService } from '../realm/custom-profile-fields.service';
import { renderRealmDescription } from '../realm/realm-description';
import { REALM_GROUP_SETTING_NAMES, REALM_GROUP_SETTINGS, Role } from '../realm/system-groups';
import { pickUserSettings } from '../realm/user-settings';
import { authenticationMethodsForApi, VIDEO_CHAT_PROVIDERS } from '../realm/realm-options';
import { GroupSettingsService } from '../users/group-settings.service';
import { UserGroupsQueryService } from '../users/user-groups-query.service';
import { NavigationViewsService } from '../users/navigation-views.service';
import { MutedUsersService } from '../users/muted-users.service';
import { UsersService } from '../users/users.service';
import { apiEmail, userAvatarUrl } from '../users/user-format';
import { RegisterArgs } from './dto/register.dto';
import type { ChannelDict } from '../channels/channel-format';
import {
  AVAILABLE_NOTIFICATION_SOUNDS,
  DISPLAY_SETTINGS_LEGACY,
  EMOJISET_CHOICES,
  GIPHY_RATING_OPTIONS,
  legacyRealmPolicies,
  NOTIFICATION_SETTINGS_LEGACY,
  SERVER_GENERATION,
  STOP_WORDS,
  UPGRADE_TEXT_STANDARD,
} from './register-constants';
import { NarrowErrors } from '../messaging/message.errors';
import { PresenceSettings } from '../presence/presence.constants';
import { PresenceService } from '../presence/presence.service';
import { UserStatusService } from '../presence/user-status.service';
import { AlertWordsService } from '../alert-words/alert-words.service';
import { DraftsService } from '../drafts/drafts.service';
import { SavedSnippetsService } from '../drafts/saved-snippets.service';
import { ScheduledMessagesService } from '../scheduled-messages/scheduled-messages.service';

/** Operators an event queue's narrow may use (zerver/lib/narrow_predicate.py check_narrow_for_events). */
const EVENT_NARROW_OPERATORS = ['channel', 'stream', 'topic', 'sender', 'is'];

function parseNarrow(raw: unknown[]): Array<[string, string]> {
  const terms = raw.map((item, i): [string, string] => {
    if (Array.isArray(item) && item.length === 2 && typeof item[0] === 'string' && typeof item[1] === 'string') {
      return [item[0], item[1]];
    }
    if (item && typeof item === 'object' && 'operator' in item && 'operand' in item) {
      const { operator, operand } = item;
      if (typeof operator === 'string' && typeof operand === 'string') return [operator, operand];
    }
    throw NarrowErrors.invalidEventNarrowElement(i);
  });
  for (const [operator] of terms) {
    if (!EVENT_NARROW_OPERATORS.includes(operator)) throw NarrowErrors.operatorNotSupported(operator);
  }
  return terms;
}

/** What the sections of /register's state are built from. */
interface StateRequest {
  auth: AuthContext;
  args: RegisterArgs;
  realm: Realm;
  capabilities: Record<string, boolean>;
  /** fetch_event_types (or event_types); null: everything. */
  wanted: string[] | null;
  want: (type: string) => boolean;
}

/** POST /register: allocates an event queue and returns the initial state the client asked for. */
@Injectable()
export class RegisterService {
  constructor(
    private readonly events: EventsService,
    private readonly realms: RealmService,
    private readonly users: UsersService,
    private readonly groupSettings: GroupSettingsService,
    private readonly userGroups: UserGroupsQueryService,
    private readonly channelQueries: ChannelQueriesService,
    private readonly messagingState: MessagingStateService,
    private readonly customProfileFields: CustomProfileFieldsService,
    private readonly navigationViews: NavigationViewsService,
    private readonly mutedUsers: MutedUsersService,
    private readonly presence: PresenceService,
    private readonly userStatus: UserStatusService,
    private readonly realmEmoji: RealmEmojiService,
    private readonly alertWords: AlertWordsService,
    private readonly drafts: DraftsService,
    private readonly savedSnippets: SavedSnippetsService,
    private readonly linkifiers: LinkifierService,
    private readonly playgrounds: PlaygroundService,
    private readonly scheduledMessages: ScheduledMessagesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async register(auth: AuthContext, args: RegisterArgs, clientName: string): Promise<Record<string, unknown>> {
    const capabilities: Record<string, boolean> = {};
    for (const [k, v] of Object.entries(args.client_capabilities)) capabilities[k] = v === true;
    const narrow = parseNarrow(args.narrow);
    const queue = await this.events.allocateQueue({
      userId: auth.user.id,
      realmId: auth.realm.id,
      eventTypes: args.event_types ?? null,
      allPublicStreams: args.all_public_streams,
      applyMarkdown: args.apply_markdown,
      clientGravatar: args.client_gravatar,
      narrow,
      clientCapabilities: capabilities,
      clientName,
    });
    const wanted = args.fetch_event_types ?? args.event_types ?? null;
    const want = (type: string) => wanted === null || wanted.includes(type);
    const state: Record<string, unknown> = {
      queue_id: queue.id,
      zulip_version: SERVER_VERSION,
      zulip_feature_level: API_FEATURE_LEVEL,
      zulip_merge_base: SERVER_MERGE_BASE,
      service_version: SERVER_VERSION,
      service_feature_level: API_FEATURE_LEVEL,
      service_merge_base: SERVER_MERGE_BASE,
    };
    // A fresh realm object: settings may have changed since the auth cache loaded it.
    const realm = await this.realms.getRealm(auth.realm.id);
    const request: StateRequest = { auth, args, realm, capabilities, wanted, want };
    // The sections are independent reads: run together, the database answers one (unread
    // messages, group members) while this process formats another (10,000 user dicts). Each fills
    // its own object; they are merged in this order, so the keys keep Zulip's order.
    const sections = await Promise.all(
      [
        this.addRealmSections,
        this.addUserSections,
        this.addPresenceAndScheduledSections,
        this.addChannelSections,
        this.addMessageSections,
      ].map(async (add) => {
        const section: Record<string, unknown> = {};
        await add.call(this, section, request);
        return section;
      }),
    );
    for (const section of sections) Object.assign(state, section);
    if (!capabilities.notification_settings_null && Array.isArray(state.subscriptions)) {
      this.fillNotificationSettings(auth, [
        ...(state.subscriptions as ChannelDict[]),
        ...(state.unsubscribed as ChannelDict[]),
      ]);
    }
    // The state above was read after the queue existed, so events that arrived meanwhile are in
    // the queue; the client applies them on top (they may repeat what the state already shows).
    state.last_event_id = queue.lastEventId;
    return state;
  }

  /** The organization: settings, users, groups, defaults, profile fields, emoji, linkifiers, playgrounds. */
  private async addRealmSections(state: Record<string, unknown>, r: StateRequest): Promise<void> {
    const { auth, args, realm, capabilities, want } = r;
    // The three large parts together: the groups' member lists are the database's longest read.
    const [realmPart, usersPart, groups] = await Promise.all([
      want('realm') ? this.realmState(realm) : undefined,
      want('realm_user')
        ? this.realmUserState(auth, realm, args.client_gravatar, capabilities.user_list_incomplete === true)
        : undefined,
      want('realm_user_groups')
        ? this.userGroups.listGroupsForApi(realm.id, {
            includeDeactivated: capabilities.include_deactivated_groups === true,
          })
        : undefined,
    ]);
    if (realmPart) Object.assign(state, realmPart);
    if (usersPart) Object.assign(state, usersPart);
    if (groups) state.realm_user_groups = groups;
    Object.assign(state, this.userSettingsState(auth, want, capabilities.user_settings_object === true));
    if (want('realm_user_settings_defaults')) {
      const defaults = pickUserSettings(await this.realms.userDefaults(realm.id));
      state.realm_user_settings_defaults = {
        ...defaults,
        available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS,
        emojiset_choices: EMOJISET_CHOICES,
      };
    }
    if (want('custom_profile_fields')) {
      state.custom_profile_fields = await this.customProfileFields.listForApi(realm.id);
      state.custom_profile_field_types = CUSTOM_PROFILE_FIELD_TYPES;
    }
    if (want('realm_emoji')) state.realm_emoji = await this.realmEmoji.list(realm.id);
    if (want('realm_linkifiers')) {
      // Templates only reach clients that understand them; the others get none (as Zulip).
      state.realm_linkifiers = capabilities.linkifier_url_template ? await this.linkifiers.list(realm.id) : [];
    }
    if (want('realm_playgrounds')) state.realm_playgrounds = await this.playgrounds.list(realm.id);
  }

  /** The user's own things: navigation views, muted users, bots, alert words, snippets, drafts. */
  private async addUserSections(state: Record<string, unknown>, { auth, realm, want }: StateRequest): Promise<void> {
    if (want('navigation_views')) state.navigation_views = await this.navigationViews.list(auth.user.id);
    if (want('muted_users')) state.muted_users = await this.mutedUsers.list(auth.user.id);
    if (want('realm_bot')) state.realm_bots = await this.users.ownedBotDicts(auth.user, realm);
    if (want('alert_words')) state.alert_words = await this.alertWords.wordsOf(auth.user.id);
    if (want('saved_snippets')) state.saved_snippets = await this.savedSnippets.snippetsOf(auth.user.id);
    if (want('drafts')) state.drafts = await this.drafts.draftsForRegister(auth.user.id);
    Object.assign(state, this.unbackedState(want));
  }

  /** Presence and status (src/presence); scheduled messages and reminders (src/scheduled-messages). */
  private async addPresenceAndScheduledSections(state: Record<string, unknown>, r: StateRequest): Promise<void> {
    const { auth, args, realm, want } = r;
    if (want('presence')) {
      const presence = await this.presence.presenceResponse(realm, {
        slim: args.slim_presence,
        lastUpdateId: null,
        historyLimitDays: args.presence_history_limit_days ?? null,
        viewer: auth.user,
      });
      state.presences = presence.presences;
      state.presence_last_update_id = presence.presence_last_update_id;
      state.server_timestamp = presence.server_timestamp;
    }
    if (want('user_status')) state.user_status = await this.userStatus.realmStatuses(realm, auth.user);
    if (want('scheduled_messages') || want('reminders')) {
      const { scheduled, reminders } = await this.scheduledMessages.stateFor(auth.user.id);
      if (want('scheduled_messages')) state.scheduled_messages = scheduled;
      if (want('reminders')) state.reminders = reminders;
    }
  }

  /** Channels (src/channels): subscriptions, channels, default channels, topic policies, folders. */
  private async addChannelSections(state: Record<string, unknown>, r: StateRequest): Promise<void> {
    const { auth, args, capabilities, wanted, want } = r;
    const archivedChannels = capabilities.archived_channels === true;
    if (want('subscription')) {
      Object.assign(
        state,
        await this.channelQueries.subscriptionState(auth, {
          includeSubscribers: args.include_subscribers !== 'false',
          includeArchived: archivedChannels,
        }),
      );
    }
    if (want('stream')) state.streams = await this.channelQueries.registerStreams(auth, archivedChannels);
    if (want('default_streams')) state.realm_default_streams = await this.channelQueries.defaultStreamIds(auth);
    if (want('user_topic')) {
      const topics = await this.channelQueries.userTopics(auth);
      // post_process_state: clients without empty_topic_name see the empty topic's display name.
      if (!capabilities.empty_topic_name) {
        for (const t of topics) if (t.topic_name === '') t.topic_name = Limits.EMPTY_TOPIC_DISPLAY_NAME;
      }
      state.user_topics = topics;
    }
    // Zulip suppresses the legacy list for clients that fetch user_topic explicitly.
    if (want('muted_topics') && (wanted === null || !want('user_topic'))) {
      state.muted_topics = await this.channelQueries.mutedTopics(auth);
    }
    if (want('channel_folders')) state.channel_folders = await this.channelQueries.channelFolders(auth);
  }

  /** Messages (src/messaging): the newest id, unreads, stars, recent conversations. */
  private async addMessageSections(state: Record<string, unknown>, r: StateRequest): Promise<void> {
    const { auth, capabilities, want } = r;
    const userId = auth.user.id;
    const [maxId, unread, starred, recent] = await Promise.all([
      want('message') ? this.messagingState.maxMessageId(userId) : undefined,
      want('message') && want('update_message_flags')
        ? this.messagingState.unreadMessages(userId, capabilities.empty_topic_name === true)
        : undefined,
      want('starred_messages') ? this.messagingState.starredMessageIds(userId) : undefined,
      want('recent_private_conversations') ? this.messagingState.recentPrivateConversations(userId) : undefined,
    ]);
    if (maxId !== undefined) state.max_message_id = maxId;
    if (unread !== undefined) state.unread_msgs = unread;
    if (starred !== undefined) state.starred_messages = starred;
    if (recent !== undefined) state.recent_private_conversations = recent;
  }

  /**
   * `user_settings` (always the full object), and for clients without the user_settings_object
   * capability the legacy top-level display and notification settings
   * (zerver/lib/events.py fetch_initial_state_data).
   */
  private userSettingsState(
    auth: AuthContext,
    want: (type: string) => boolean,
    userSettingsObject: boolean,
  ): Record<string, unknown> {
    const settings: Record<string, unknown> = { ...pickUserSettings(auth.user.settings), timezone: auth.user.timezone };
    const state: Record<string, unknown> = {};
    if (want('update_display_settings') && !userSettingsObject) {
      for (const name of DISPLAY_SETTINGS_LEGACY) state[name] = settings[name];
      state.emojiset_choices = EMOJISET_CHOICES;
      state.timezone = settings.timezone;
    }
    if (want('update_global_notifications') && !userSettingsObject) {
      for (const name of NOTIFICATION_SETTINGS_LEGACY) state[name] = settings[name];
      state.available_notification_sounds = AVAILABLE_NOTIFICATION_SOUNDS;
    }
    if (want('user_settings')) {
      state.user_settings = {
        ...settings,
        emojiset_choices: EMOJISET_CHOICES,
        available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS,
      };
    }
    return state;
  }

  /**
   * Sections for Zulip features this server does not have (onboarding, default channel groups, Zoom, GIPHY, E2EE push devices, embedded and
   * webhook bots): nothing is stored for them, so they hold Zulip's values for "none".
   */
  private unbackedState(want: (type: string) => boolean): Record<string, unknown> {
    const state: Record<string, unknown> = {};
    if (want('onboarding_steps')) Object.assign(state, { onboarding_steps: [], navigation_tour_video_url: null });
    if (want('realm_domains')) state.realm_domains = [];
    // Linkifiers with URL templates would only go to clients declaring linkifier_url_template;
    // realm_filters is always empty in Zulip (the legacy format cannot express templates).
    if (want('realm_filters')) state.realm_filters = [];
    if (want('realm_embedded_bots')) state.realm_embedded_bots = [];
    if (want('realm_incoming_webhook_bots')) state.realm_incoming_webhook_bots = [];
    if (want('default_stream_groups')) state.realm_default_stream_groups = [];
    if (want('stop_words')) state.stop_words = STOP_WORDS;
    if (want('video_calls')) state.has_zoom_token = false;
    if (want('giphy')) state.giphy_api_key = '';
    if (want('push_device')) state.push_devices = {};
    if (want('realm_billing')) state.realm_billing = { has_pending_sponsorship_request: false };
    return state;
  }

  /**
   * post_process_state for clients without notification_settings_null: a subscription's unset
   * (null) notification settings are replaced by the user's channel-notification defaults.
   */
  private fillNotificationSettings(auth: AuthContext, subs: ChannelDict[]): void {
    const settings = auth.user.settings as unknown as Record<string, unknown>;
    for (const sub of subs) {
      for (const kind of ['desktop', 'audible', 'push', 'email']) {
        const key = `${kind}_notifications`;
        if (sub[key] === null) sub[key] = settings[`enable_stream_${key}`];
      }
    }
  }

  private async realmState(realm: Realm): Promise<Record<string, unknown>> {
    const groupIds = REALM_GROUP_SETTING_NAMES.map((n) => realm[n]);
    const values = await this.groupSettings.valuesForApi(realm.id, groupIds);
    const state: Record<string, unknown> = {
      ...this.serverLimitsState(realm),
      ...this.realmIdentityState(realm),
      ...this.realmSettingsState(realm),
      ...this.serverPoliciesState(realm),
    };
    for (const name of REALM_GROUP_SETTING_NAMES) state[`realm_${name}`] = values.get(realm[name]) ?? realm[name];
    const system = await this.groupSettings.systemGroupIds(realm.id);
    const systemNames = new Map([...system].map(([name, id]) => [id, name]));
    Object.assign(
      state,
      legacyRealmPolicies((setting) => systemNames.get(realm[setting])),
    );
    // Deprecated (feature level 212): the URL calls use.
    state.jitsi_server_url = realm.jitsiServerUrl ?? state.server_jitsi_server_url;
    return state;
  }

  /** realm_state's server section: limits, presence and typing timings, server capabilities. */
  private serverLimitsState(realm: Realm): Record<string, unknown> {
    return {
      max_message_length: Limits.MAX_MESSAGE_LENGTH,
      max_topic_length: Limits.MAX_TOPIC_LENGTH,
      max_stream_name_length: Limits.MAX_STREAM_NAME_LENGTH,
      max_stream_description_length: Limits.MAX_STREAM_DESCRIPTION_LENGTH,
      max_channel_folder_name_length: Limits.MAX_CHANNEL_FOLDER_NAME_LENGTH,
      max_channel_folder_description_length: Limits.MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
      max_reminder_note_length: Limits.MAX_REMINDER_NOTE_LENGTH,
      max_bulk_new_subscription_messages: Limits.MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
      event_queue_longpoll_timeout_seconds: Limits.EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS,
      realm_empty_topic_display_name: Limits.EMPTY_TOPIC_DISPLAY_NAME,
      server_presence_ping_interval_seconds: PresenceSettings.PING_INTERVAL_SECS,
      server_presence_offline_threshold_seconds: PresenceSettings.OFFLINE_THRESHOLD_SECS,
      server_typing_started_expiry_period_milliseconds: 45000,
      server_typing_stopped_wait_period_milliseconds: 12000,
      server_typing_started_wait_period_milliseconds: 30000,
      server_min_deactivated_realm_deletion_days: 14,
      server_max_deactivated_realm_deletion_days: null,
      server_inline_image_preview: true,
      server_inline_url_embed_preview: false,
      server_avatar_changes_disabled: false,
      server_name_changes_disabled: false,
      server_needs_upgrade: false,
      server_web_public_streams_enabled: true,
      // Absolute and content-hashed, as Zulip's production server answers (served by src/static).
      server_emoji_data_url: `${this.realms.realmUrl(realm)}${serverEmojiDataPath()}`,
      // Zulip's default JITSI_SERVER_URL: the realm offers Jitsi Meet calls.
      server_jitsi_server_url: 'https://meet.jit.si',
      server_can_summarize_topics: false,
      server_supported_permission_settings: this.supportedPermissionSettings(),
    };
  }

  /** The organization's name, description, URLs, icon and logos. */
  private realmIdentityState(realm: Realm): Record<string, unknown> {
    return {
      realm_name: realm.name,
      realm_description: renderRealmDescription(realm.description),
      realm_url: this.realms.realmUrl(realm),
      realm_uri: this.realms.realmUrl(realm),
      realm_date_created: Math.floor(realm.dateCreated.getTime() / 1000),
      realm_icon_url: this.realms.realmIconUrl(realm),
      realm_icon_source: realm.iconSource,
      realm_logo_url: '/static/images/logo/zulip-org-logo.svg?version=0',
      realm_logo_source: 'D',
      realm_night_logo_url: '/static/images/logo/zulip-org-logo.svg?version=0',
      realm_night_logo_source: 'D',
    };
  }

  /** The organization's settings (realm_*). */
  private realmSettingsState(realm: Realm): Record<string, unknown> {
    return {
      realm_allow_message_editing: realm.allowMessageEditing,
      realm_message_content_edit_limit_seconds: realm.messageContentEditLimitSeconds,
      realm_message_content_delete_limit_seconds: realm.messageContentDeleteLimitSeconds,
      realm_move_messages_within_stream_limit_seconds: realm.moveMessagesWithinStreamLimitSeconds,
      realm_move_messages_between_streams_limit_seconds: realm.moveMessagesBetweenStreamsLimitSeconds,
      realm_topics_policy: realm.topicsPolicy,
      realm_mandatory_topics: realm.topicsPolicy === 'disable_empty_topic',
      realm_waiting_period_threshold: realm.waitingPeriodThreshold,
      realm_message_retention_days: realm.messageRetentionDays,
      realm_enable_spectator_access: realm.enableSpectatorAccess,
      realm_enable_read_receipts: realm.enableReadReceipts,
      realm_moderation_request_channel_id: realm.moderationRequestChannelId ?? -1,
      realm_new_stream_announcements_stream_id: realm.newStreamAnnouncementsStreamId ?? -1,
      realm_signup_announcements_stream_id: realm.signupAnnouncementsStreamId ?? -1,
      realm_zulip_update_announcements_stream_id: realm.zulipUpdateAnnouncementsStreamId ?? -1,
      realm_default_language: realm.defaultLanguage,
      realm_inline_image_preview: realm.inlineImagePreview,
      realm_inline_url_embed_preview: realm.inlineUrlEmbedPreview,
      realm_invite_required: realm.inviteRequired,
      realm_emails_restricted_to_domains: realm.emailsRestrictedToDomains,
      realm_digest_emails_enabled: realm.digestEmailsEnabled,
      realm_digest_weekday: realm.digestWeekday,
      realm_send_welcome_emails: realm.sendWelcomeEmails,
      realm_message_content_allowed_in_email_notifications: realm.messageContentAllowedInEmailNotifications,
      realm_require_unique_names: realm.requireUniqueNames,
      realm_name_changes_disabled: realm.nameChangesDisabled,
      realm_email_changes_disabled: realm.emailChangesDisabled,
      realm_avatar_changes_disabled: realm.avatarChangesDisabled,
      realm_video_chat_provider: realm.videoChatProvider,
      realm_jitsi_server_url: realm.jitsiServerUrl,
      realm_org_type: realm.orgType,
      realm_plan_type: 1,
      realm_upload_quota_mib: this.realms.uploadQuotaMib(realm),
      realm_presence_disabled: false,
      realm_push_notifications_enabled: pushNotificationsConfigured(this.config),
      realm_push_notifications_enabled_end_timestamp: null,
      realm_email_auth_enabled: realm.authenticationMethods.Email === true,
      realm_password_auth_enabled: realm.authenticationMethods.Email === true,
      realm_authentication_methods: authenticationMethodsForApi(realm.authenticationMethods),
      realm_is_zephyr_mirror_realm: false,
      realm_bot_domain: this.realms.realmHost(realm),
      realm_disallow_disposable_email_addresses: realm.disallowDisposableEmailAddresses,
      realm_default_code_block_language: realm.defaultCodeBlockLanguage,
      realm_want_advertise_in_communities_directory: realm.wantAdvertiseInCommunitiesDirectory,
      realm_enable_guest_user_indicator: realm.enableGuestUserIndicator,
      realm_enable_guest_user_dm_warning: realm.enableGuestUserDmWarning,
      realm_giphy_rating: realm.giphyRating,
      realm_welcome_message_custom_text: realm.welcomeMessageCustomText,
      realm_message_edit_history_visibility_policy: realm.messageEditHistoryVisibilityPolicy,
      realm_allow_edit_history: realm.messageEditHistoryVisibilityPolicy !== 'none',
      realm_available_video_chat_providers: VIDEO_CHAT_PROVIDERS,
      realm_default_external_accounts: defaultExternalAccountsForApi(),
    };
  }

  /** Upload sizes, password rules, plan and server generation (and E2EE push, last as in Zulip). */
  private serverPoliciesState(realm: Realm): Record<string, unknown> {
    return {
      max_file_upload_size_mib: this.config.maxFileUploadSizeMib,
      max_avatar_file_size_mib: 5,
      max_icon_file_size_mib: 5,
      max_logo_file_size_mib: 5,
      development_environment: false,
      password_min_length: 6,
      password_max_length: 100,
      password_min_guesses: 10000,
      settings_send_digest_emails: false,
      zulip_plan_is_not_limited: true,
      upgrade_text_for_wide_organization_logo: UPGRADE_TEXT_STANDARD,
      server_generation: SERVER_GENERATION,
      giphy_rating_options: GIPHY_RATING_OPTIONS,
      // Uploaded images are not thumbnailed by this server.
      server_thumbnail_formats: [],
      realm_require_e2ee_push_notifications: realm.requireE2eePushNotifications,
    };
  }

  private supportedPermissionSettings(): Record<string, unknown> {
    const realm: Record<string, unknown> = {};
    for (const name of REALM_GROUP_SETTING_NAMES) {
      const r = REALM_GROUP_SETTINGS[name];
      realm[name] = {
        require_system_group: Boolean((r as { requireSystemGroup?: boolean }).requireSystemGroup),
        allow_internet_group: false,
        allow_nobody_group: r.allowNobody,
        allow_everyone_group: r.allowEveryone,
        default_group_name: r.default,
        default_for_system_groups: null,
        allowed_system_groups: (r as { allowedSystemGroups?: string[] }).allowedSystemGroups ?? [],
      };
    }
    return { realm, stream: {}, group: {} };
  }

  private async realmUserState(
    auth: AuthContext,
    realm: Realm,
    clientGravatar: boolean,
    userListIncomplete: boolean,
  ): Promise<Record<string, unknown>> {
    // Zulip's get_raw_user_data: users a restricted guest may not see are left out for clients
    // with the user_list_incomplete capability, else sent as "Unknown user" (active) placeholders.
    const me = auth.user;
    const users = await this.realmUsers(auth, realm, clientGravatar, userListIncomplete);
    const createPublic = await this.holds(auth, realm, 'can_create_public_channel_group');
    const createPrivate = await this.holds(auth, realm, 'can_create_private_channel_group');
    const createWebPublic = await this.holds(auth, realm, 'can_create_web_public_channel_group');
    const myAvatarUrl = userAvatarUrl(me, me.settings.email_address_visibility, this.realms.realmHost(realm));
    return {
      realm_users: users.active,
      realm_non_active_users: users.nonActive,
      cross_realm_bots: await this.users.crossRealmBotDicts(realm),
      user_id: me.id,
      email: users.myEmail ?? me.deliveryEmail,
      delivery_email: me.deliveryEmail,
      full_name: me.fullName,
      is_admin: me.role <= Role.ADMINISTRATOR,
      is_owner: me.role === Role.OWNER,
      is_moderator: me.role === Role.MODERATOR,
      is_guest: me.role === Role.GUEST,
      avatar_source: me.avatarSource,
      avatar_url: myAvatarUrl,
      avatar_url_medium: myAvatarUrl + '&s=500',
      can_create_public_streams: createPublic,
      can_create_private_streams: createPrivate,
      can_create_web_public_streams: createWebPublic,
      // Deprecated (feature level 102): any of the three.
      can_create_streams: createPublic || createPrivate || createWebPublic,
      can_subscribe_other_users: await this.holds(auth, realm, 'can_add_subscribers_group'),
      can_invite_others_to_realm: await this.holds(auth, realm, 'can_invite_users_group'),
    };
  }

  /**
   * realm_users and realm_non_active_users, and the viewer's API email as their dict shows it.
   * Sent as they were serialised for the realm's cached rows (RawJson, the bulk of a large realm's
   * answer) unless the viewer is a guest who may not see everyone.
   */
  private async realmUsers(
    auth: AuthContext,
    realm: Realm,
    clientGravatar: boolean,
    userListIncomplete: boolean,
  ): Promise<{ active: unknown; nonActive: unknown; myEmail: string | undefined }> {
    const opts = { clientGravatar, includeCustomProfileFields: true };
    const json = await this.users.listUsersJson(auth.user, realm, { ...opts, split: 'activity' });
    if (json) {
      const mine = json.rows.find((u) => u.id === auth.user.id);
      return {
        active: json.arrays[0],
        nonActive: json.arrays[1],
        myEmail: mine && apiEmail(mine, this.realms.realmHost(realm)),
      };
    }
    const all = await this.users.listUsers(auth.user, realm, { ...opts, userListIncomplete });
    return {
      active: all.filter((u) => u.is_active),
      nonActive: all.filter((u) => !u.is_active),
      myEmail: all.find((u) => u.user_id === auth.user.id)?.email as string | undefined,
    };
  }

  private holds(
    auth: AuthContext,
    realm: Realm,
    setting: (typeof REALM_GROUP_SETTING_NAMES)[number],
  ): Promise<boolean> {
    return this.groupSettings.hasPermission(
      realm.id,
      auth.user,
      realm[setting],
      REALM_GROUP_SETTINGS[setting].allowEveryone,
    );
  }
}
