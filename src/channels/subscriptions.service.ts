import { Injectable, OnModuleInit } from '@nestjs/common';
import { UserDirectoryService } from '../users/user-directory.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { Limits } from '../common/limits';
import { Role } from '../common/roles';
import { runInTransaction } from '../database/transaction';
import { DomainEventBus } from '../events/domain-event-bus';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { GroupSettingsService } from '../users/group-settings.service';
import { canSeeDeliveryEmail } from '../users/user-format';
import {
  ConversationPeerPairsRequestedEvent,
  UserHiddenFromGuestsEvent,
  UserReactivatedEvent,
} from '../users/users.domain-events';
import { accessChangesOnSubscriptions, SubscriptionChangeAccess } from '../users/user-access';
import { UserAccessService } from '../users/user-access.service';
import { UserAccessEventsService } from '../users/user-access-events.service';
import type { Stream } from './channel.entity';
import { ChannelAccessService } from './channel-access.service';
import {
  adminUserIds,
  AudienceData,
  creationAudience,
  metadataGroupMembers,
  peerEvents,
  subscribersOf,
} from './channel-audiences';
import { renderDescription } from './channel-description';
import { ChannelEvents } from './channel-events';
import { channelDict, ChannelFormatContext, subscriptionDict } from './channel-format';
import {
  ChannelsCreatedEvent,
  type ChannelUser,
  SubscribedByOthersEvent,
  UsersLeftChannelsEvent,
} from './channels.domain-events';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  CHANNEL_GROUP_SETTINGS,
  ChannelGroupSettingName,
  STREAM_ASSIGNMENT_COLORS,
  SubscriptionPropertyName,
  TopicsPolicy,
  TopicsPolicyName,
  topicsPolicyName,
} from './channel-settings';
import {
  canAccessChannelContent,
  canAccessChannelMetadata,
  canRemoveSubscribers,
  canSubscribeOthers,
  ChannelActor,
  cleanDescription,
  channelNameError,
  defaultHistoryPublicToSubscribers,
  holdsGroupSetting,
  isRealmAdmin,
  parseMessageRetentionDays,
  pickColors,
} from './channels.policy';
import { ChannelsRepository, RealmUserRow, SubscriptionColumn } from './channels.repository';
import { ChannelFoldersRepository } from './channel-folders.repository';
import type { Subscription } from './subscription.entity';
import { UserErrors } from '../users/user.errors';
import { ChannelErrors, ChannelFolderErrors, SubscriptionErrors } from './channel.errors';
import { ParamErrors } from '../common/errors/param.errors';

export interface SubscriptionRequestItem {
  name: string;
  color?: string;
  description?: string;
}

/** What a request says about the channels it may create. */
export interface ChannelCreationSettings {
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefaultStream: boolean;
  historyPublicToSubscribers?: boolean;
  /** Raw value: `realm_default`, `unlimited` or a number of days. */
  messageRetentionDays: unknown;
  topicsPolicy?: TopicsPolicyName;
  groupSettings: Partial<Record<ChannelGroupSettingName, unknown>>;
  announce: boolean;
  folderId?: number;
}

export interface SubscribeInput extends ChannelCreationSettings {
  subscriptions: SubscriptionRequestItem[];
  principals?: number[] | string[];
  authorizationErrorsFatal: boolean;
  sendNewSubscriptionMessages: boolean;
}

export interface CreateChannelInput extends ChannelCreationSettings {
  name: string;
  description: string;
  /** User ids to subscribe. */
  subscribers: number[];
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
  new_subscription_messages_sent?: boolean;
}

/** A checked POST /users/me/subscriptions (buildSubscribeRequest). */
interface SubscribeRequest {
  realm: Realm;
  actor: ChannelActor;
  actorInfo: ChannelUser;
  subscribingOthers: boolean;
  /** The channels to create. */
  specs: NewChannelSpec[];
  /** Ids of the existing channels requested. */
  seen: Set<number>;
  authorized: Stream[];
  unauthorized: Stream[];
  subscribers: RealmUserRow[];
  colorByName: Map<string, string>;
}

/** A channel about to be created, with its settings resolved. */
export interface NewChannelSpec {
  name: string;
  description: string;
  creatorId: number | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  messageRetentionDays: number | null;
  topicsPolicy: number;
  folderId: number | null;
  groups: Record<ChannelGroupSettingName, number>;
  /** Anonymous groups made for this channel (deleted if another request created it first). */
  anonymousGroups: number[];
}

export interface PropertyChange {
  streamId: number;
  property: SubscriptionPropertyName;
  value: boolean | string;
}

const COLUMN_OF: Record<Exclude<SubscriptionPropertyName, 'in_home_view'>, SubscriptionColumn> = {
  is_muted: 'is_muted',
  color: 'color',
  pin_to_top: 'pin_to_top',
  desktop_notifications: 'desktop_notifications',
  audible_notifications: 'audible_notifications',
  push_notifications: 'push_notifications',
  email_notifications: 'email_notifications',
  wildcard_mentions_notify: 'wildcard_mentions_notify',
};

/**
 * Subscribing and unsubscribing, creating channels on the way (zerver/views/streams.py
 * add_subscriptions_backend / remove_subscriptions_backend, zerver/lib/streams.py list_to_streams,
 * zerver/actions/streams.py bulk_add_subscriptions / bulk_remove_subscriptions).
 */
@Injectable()
export class SubscriptionsService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly channels: ChannelsRepository,
    private readonly folders: ChannelFoldersRepository,
    private readonly access: ChannelAccessService,
    private readonly groupSettings: GroupSettingsService,
    private readonly realms: RealmService,
    private readonly events: ChannelEvents,
    private readonly bus: DomainEventBus,
    private readonly directory: UserDirectoryService,
    private readonly userAccess: UserAccessService,
    private readonly accessEvents: UserAccessEventsService,
  ) {}

  onModuleInit(): void {
    // In the reactivation's transaction: the peer_add events follow its realm_user update.
    this.bus.subscribeInTransaction(UserReactivatedEvent, (e) => this.announceReactivated(e.realmId, e.userId));
    // Guests losing sight of a deactivated user drop them from subscriber lists (before the remove).
    this.bus.subscribeInTransaction(UserHiddenFromGuestsEvent, (e) =>
      this.announceHiddenFromGuests(e.realmId, e.userId, e.guestIds),
    );
    // can_access_all_users_group for a batch of users: who shares a channel with each.
    this.bus.subscribeInTransaction(ConversationPeerPairsRequestedEvent, async (e) => {
      for (const pair of await this.channels.channelPeerPairs(e.userIds, e.among, e.excludedSubscriptions)) {
        const set = e.channelPeers.get(pair.userId);
        if (set) set.add(pair.peerId);
        else e.channelPeers.set(pair.userId, new Set([pair.peerId]));
      }
    });
  }

  /**
   * do_reactivate_user: clients dropped a deactivated user from subscriber lists, so the
   * channels the user is still subscribed to get `peer_add` (send_peer_subscriber_events).
   */
  private async announceReactivated(realmId: number, userId: number): Promise<void> {
    const events = await this.peerEventsForUser(realmId, userId);
    if (events.length > 0) this.events.peer(realmId, 'peer_add', events);
  }

  /**
   * do_deactivate_user's peer_remove (feature level 377), for the restricted guests who lose sight
   * of the user (the others drop the user from subscriber lists on the realm_user update): the
   * user's channels whose subscribers those guests may know.
   */
  private async announceHiddenFromGuests(realmId: number, userId: number, guestIds: readonly number[]): Promise<void> {
    const guests = new Set(guestIds);
    const events = (await this.peerEventsForUser(realmId, userId))
      .map((e) => ({ ...e, recipients: new Set([...e.recipients].filter((id) => guests.has(id))) }))
      .filter((e) => e.recipients.size > 0);
    if (events.length > 0) this.events.peer(realmId, 'peer_remove', events);
  }

  /** Peer events about `userId` for each active channel the user is subscribed to, to its audience. */
  private async peerEventsForUser(realmId: number, userId: number): Promise<ReturnType<typeof peerEvents>> {
    const subs = await this.channels.subscriptionsOfUser(userId, true);
    const streams = (
      await this.channels.findByRecipientIds(
        realmId,
        subs.map((s) => s.recipientId),
      )
    ).filter((s) => !s.deactivated);
    if (streams.length === 0) return [];
    const altered = new Map(streams.map((s) => [s.id, new Set([userId])]));
    return peerEvents(streams, altered, await this.access.audienceData(realmId, streams));
  }

  // ---- PATCH /users/me/subscriptions -----------------------------------------------------

  /**
   * update_subscriptions_backend: subscribes to `add` (with POST's defaults) then unsubscribes
   * from `remove`, in one transaction — a refusal of either leaves nothing changed — and
   * answers both results merged (compose_views).
   */
  async addAndRemove(
    auth: AuthContext,
    add: SubscriptionRequestItem[],
    remove: string[],
  ): Promise<SubscribeResult & { removed: string[]; not_removed: string[] }> {
    return runInTransaction(this.dataSource, async () => {
      const added = await this.subscribe(auth, {
        subscriptions: add,
        inviteOnly: false,
        isWebPublic: false,
        isDefaultStream: false,
        messageRetentionDays: 'realm_default',
        groupSettings: {},
        announce: false,
        authorizationErrorsFatal: true,
        sendNewSubscriptionMessages: true,
      });
      return { ...added, ...(await this.unsubscribe(auth, remove, undefined)) };
    });
  }

  // ---- creating channels (shared by POST /users/me/subscriptions and POST /channels/create) ----

  private async resolveFolder(realmId: number, folderId: number | undefined): Promise<number | null> {
    if (folderId === undefined) return null;
    const folder = await this.folders.findByIdInRealm(realmId, folderId);
    if (!folder) throw ChannelFolderErrors.invalidId();
    return folder.id;
  }

  /** The new channels' retention (parsed), after checking the actor may set the topics policy asked for. */
  private creationRetention(realm: Realm, actor: ChannelActor, input: ChannelCreationSettings): number | null {
    const parsed = parseMessageRetentionDays(input.messageRetentionDays);
    if (!parsed.ok) throw Errors.badRequest(parsed.error);
    if (
      input.topicsPolicy !== undefined &&
      input.topicsPolicy !== 'inherit' &&
      !holdsGroupSetting(actor, realm.can_set_topics_policy_group, true)
    ) {
      throw Errors.insufficientPermission();
    }
    return parsed.days;
  }

  /** Specs of the channels to create, with their group settings resolved and creation permitted. */
  private async newChannelSpecs(
    realm: Realm,
    actor: ChannelActor,
    input: ChannelCreationSettings,
    items: Array<{ name: string; description?: string }>,
    resolved: { folderId: number | null; retentionDays: number | null },
  ): Promise<NewChannelSpec[]> {
    const specs: NewChannelSpec[] = [];
    for (const item of items) {
      const groups = await this.resolveGroupSettings(realm, actor, input.groupSettings, {
        inviteOnly: input.inviteOnly,
        historyPublicToSubscribers: input.historyPublicToSubscribers,
      });
      specs.push({
        name: item.name,
        description: item.description ?? '',
        creatorId: actor.id,
        inviteOnly: input.inviteOnly,
        isWebPublic: input.isWebPublic,
        historyPublicToSubscribers: defaultHistoryPublicToSubscribers(
          input.inviteOnly,
          input.historyPublicToSubscribers,
        ),
        messageRetentionDays: resolved.retentionDays,
        topicsPolicy: TopicsPolicy[input.topicsPolicy ?? 'inherit'],
        folderId: resolved.folderId,
        groups: groups.groups,
        anonymousGroups: groups.anonymous,
      });
    }
    for (const spec of specs) this.checkCreationPermission(realm, actor, spec, input.isDefaultStream);
    return specs;
  }

  private async makeDefault(realmId: number, created: Stream[]): Promise<void> {
    await this.channels.addDefaultChannels(
      realmId,
      created.map((s) => s.id),
    );
    await this.sendDefaultStreamsEvent(realmId);
  }

  /** Tells the bus about new channels (the announcement and the channel events notices follow). */
  private async publishCreated(realm: Realm, actor: ChannelUser, created: Stream[], announce: boolean): Promise<void> {
    await this.bus.publish(
      new ChannelsCreatedEvent({
        realmId: realm.id,
        actor,
        channels: created.map((s) => ({
          id: s.id,
          name: s.name,
          recipientId: s.recipientId!,
          inviteOnly: s.inviteOnly,
          historyPublicToSubscribers: s.historyPublicToSubscribers,
          isWebPublic: s.isWebPublic,
          description: s.description,
          topicsPolicy: topicsPolicyName(s.topicsPolicy),
        })),
        announce,
        announcementChannelId: realm.newStreamAnnouncementsStreamId,
        sendChannelEventsMessages: realm.sendChannelEventsMessages,
      }),
    );
  }

  // ---- POST /channels/create ---------------------------------------------------------------

  /**
   * Zulip's create_channel (feature level 417): one channel, which must not exist yet
   * (409 CHANNEL_ALREADY_EXISTS), with the given users subscribed — the creator only if listed.
   */
  async createChannel(auth: AuthContext, input: CreateChannelInput): Promise<{ id: number }> {
    return runInTransaction(this.dataSource, async () => {
      const realm = await this.realms.getRealm(auth.realm.id);
      const actor = await this.access.actorFor(auth.user);
      const name = input.name.trim();
      const nameError = channelNameError(name);
      if (nameError) throw Errors.badRequest(nameError);
      const existing = await this.channels.findByNamesInRealm(realm.id, [name]);
      if (existing.length > 0) throw ChannelErrors.alreadyExists(existing[0].name);
      const folderId = await this.resolveFolder(realm.id, input.folderId);
      const retentionDays = this.creationRetention(realm, actor, input);
      const description = cleanDescription(input.description.replace(/\n/g, ' '));
      const specs = await this.newChannelSpecs(realm, actor, input, [{ name, description }], {
        folderId,
        retentionDays,
      });
      const subscribers =
        input.subscribers.length > 0 ? await this.resolvePrincipals(realm, auth.user.role, input.subscribers) : [];
      const outcome = await this.createChannels(realm, specs);
      // Another request created it between our check and our insert.
      if (outcome.created.length === 0) throw ChannelErrors.alreadyExists(outcome.existing[0].name);
      const stream = outcome.created[0];
      if (input.isDefaultStream) await this.makeDefault(realm.id, [stream]);
      if (subscribers.length > 0) await this.addSubscriptions(realm.id, [stream], subscribers, new Map());
      await this.publishCreated(realm, { id: auth.user.id, fullName: auth.user.fullName }, [stream], input.announce);
      return { id: stream.id };
    });
  }

  // ---- POST /users/me/subscriptions ------------------------------------------------------

  async subscribe(auth: AuthContext, input: SubscribeInput): Promise<SubscribeResult> {
    return runInTransaction(this.dataSource, async () => {
      const request = await this.buildSubscribeRequest(auth, input);
      const { realm } = request;
      const created = await this.doCreateRequestedChannels(request, input);
      const streams = [...request.authorized, ...created];
      if (input.isDefaultStream && created.length > 0) await this.makeDefault(realm.id, created);

      const colorMap = new Map<number, string>();
      for (const s of streams) {
        const color = request.colorByName.get(s.name);
        if (color !== undefined && s.recipientId !== null) colorMap.set(s.recipientId, color);
      }
      const { added, already } = await this.addSubscriptions(realm.id, streams, request.subscribers, colorMap);

      const result: SubscribeResult = { subscribed: {}, already_subscribed: {} };
      const streamOfRecipient = new Map(streams.map((s) => [s.recipientId, s]));
      for (const pair of added) {
        (result.subscribed[String(pair.userId)] ??= []).push(streamOfRecipient.get(pair.recipientId)!.name);
      }
      for (const pair of already) {
        (result.already_subscribed[String(pair.userId)] ??= []).push(streamOfRecipient.get(pair.recipientId)!.name);
      }

      if (created.length > 0) await this.publishCreated(realm, request.actorInfo, created, input.announce);
      if (input.sendNewSubscriptionMessages) {
        result.new_subscription_messages_sent = await this.doNotifySubscribedByOthers(
          request,
          created,
          added,
          streamOfRecipient,
        );
      }
      if (!input.authorizationErrorsFatal) result.unauthorized = request.unauthorized.map((s) => s.name);
      return result;
    });
  }

  /**
   * POST /users/me/subscriptions, parsed, loaded and authorized (every refusal comes from here,
   * in Zulip's order): the folder, the names (list_to_streams), the existing channels and the
   * specs of those to create, the access to the existing ones, and the users to subscribe.
   */
  private async buildSubscribeRequest(auth: AuthContext, input: SubscribeInput): Promise<SubscribeRequest> {
    const realm = await this.realms.getRealm(auth.realm.id);
    const actor = await this.access.actorFor(auth.user);
    const folderId = await this.resolveFolder(realm.id, input.folderId);

    const requested = input.subscriptions.map((s) => ({
      name: s.name.trim(),
      description: s.description === undefined ? undefined : cleanDescription(s.description.replace(/\n/g, ' ')),
      color: s.color,
    }));
    const retentionDays = requested.length > 0 ? this.creationRetention(realm, actor, input) : null;
    const colorByName = new Map<string, string>();
    for (const r of requested) if (r.color !== undefined) colorByName.set(r.name, r.color);

    const subscribingOthers =
      input.principals !== undefined &&
      input.principals.length > 0 &&
      !(input.principals as unknown[]).every((p) => p === auth.user.id);

    // list_to_streams: validate every name, find the existing channels, specify the rest.
    const uniqueNames = [...new Set(requested.map((r) => r.name))];
    for (const name of uniqueNames) {
      const error = channelNameError(name);
      if (error) throw Errors.badRequest(error);
    }
    const existingRows = await this.channels.findByNamesInRealm(realm.id, uniqueNames);
    const byLowerName = new Map(existingRows.map((s) => [s.name.toLowerCase(), s]));
    const existing: Stream[] = [];
    const missing: typeof requested = [];
    const seen = new Set<number>();
    for (const r of requested) {
      const stream = byLowerName.get(r.name.toLowerCase());
      if (stream) {
        if (!seen.has(stream.id)) existing.push(stream);
        seen.add(stream.id);
      } else {
        missing.push(r);
      }
    }
    const specs =
      missing.length > 0 ? await this.newChannelSpecs(realm, actor, input, missing, { folderId, retentionDays }) : [];

    const access = { realm, actor, subscribingOthers };
    const { authorized, unauthorized } = await this.authorizeSubscribing(access, existing, input);
    const subscribers = subscribingOthers
      ? await this.resolvePrincipals(realm, auth.user.role, input.principals!)
      : [await this.selfAsRow(realm.id, auth.user.id)];
    const actorInfo: ChannelUser = { id: auth.user.id, fullName: auth.user.fullName };
    return { ...access, actorInfo, specs, seen, authorized, unauthorized, subscribers, colorByName };
  }

  /**
   * filter_stream_authorization_for_adding_subscribers: the channels the actor may join (content
   * access); with authorization_errors_fatal the first other one refuses the request, and
   * subscribing others needs the right on every channel joined.
   */
  private async authorizeSubscribing(
    { realm, actor, subscribingOthers }: Pick<SubscribeRequest, 'realm' | 'actor' | 'subscribingOthers'>,
    streams: Stream[],
    input: SubscribeInput,
  ): Promise<{ authorized: Stream[]; unauthorized: Stream[] }> {
    const subscribedIds = await this.channels.activeRecipientIdsOfUser(
      actor.id,
      streams.map((s) => s.recipientId).filter((id): id is number => id !== null),
    );
    const authorized: Stream[] = [];
    const unauthorized: Stream[] = [];
    for (const s of streams) {
      const subscribed = s.recipientId !== null && subscribedIds.has(s.recipientId);
      (canAccessChannelContent(actor, s, subscribed) ? authorized : unauthorized).push(s);
    }
    if (unauthorized.length > 0 && input.authorizationErrorsFatal) {
      throw ChannelErrors.unableToAccess(unauthorized[0].name);
    }
    if (subscribingOthers) {
      const realmWide = holdsGroupSetting(actor, realm.can_add_subscribers_group, false);
      if (authorized.some((s) => !canSubscribeOthers(actor, s, realmWide))) throw Errors.insufficientPermission();
    }
    return { authorized, unauthorized };
  }

  /**
   * Creates the requested channels that do not exist. One that another request created between
   * our lookup and our insert is treated as an existing channel: authorized like the others.
   */
  private async doCreateRequestedChannels(request: SubscribeRequest, input: SubscribeInput): Promise<Stream[]> {
    if (request.specs.length === 0) return [];
    const outcome = await this.createChannels(request.realm, request.specs);
    const raced: Stream[] = [];
    for (const dup of outcome.existing) {
      if (!request.seen.has(dup.id)) raced.push(dup);
      request.seen.add(dup.id);
    }
    if (raced.length > 0) {
      const { authorized, unauthorized } = await this.authorizeSubscribing(request, raced, input);
      request.authorized.push(...authorized);
      request.unauthorized.push(...unauthorized);
    }
    return outcome.created;
  }

  /**
   * The Notification Bot messages to users others subscribed (not to the actor, bots, or to
   * channels just created), unless too many users were subscribed; returns whether they went.
   */
  private async doNotifySubscribedByOthers(
    request: SubscribeRequest,
    created: Stream[],
    added: Array<{ userId: number; recipientId: number }>,
    streamOfRecipient: Map<number | null, Stream>,
  ): Promise<boolean> {
    const newlySubscribedUsers = new Set(added.map((p) => p.userId));
    const send = newlySubscribedUsers.size <= Limits.MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
    if (!send) return send;
    const createdIds = new Set(created.map((s) => s.recipientId));
    const bots = new Set(request.subscribers.filter((u) => u.isBot).map((u) => u.id));
    const perUser = new Map<number, string[]>();
    for (const pair of added) {
      if (pair.userId === request.actorInfo.id || bots.has(pair.userId) || createdIds.has(pair.recipientId)) continue;
      const list = perUser.get(pair.userId) ?? [];
      list.push(streamOfRecipient.get(pair.recipientId)!.name);
      perUser.set(pair.userId, list);
    }
    if (perUser.size > 0) {
      await this.bus.publish(
        new SubscribedByOthersEvent({
          realmId: request.realm.id,
          actor: request.actorInfo,
          notifications: [...perUser].map(([userId, channelNames]) => ({
            userId,
            channelNames: channelNames.sort(),
          })),
        }),
      );
    }
    return send;
  }

  /**
   * Values of the channel group settings for a new channel: the requested ones validated
   * (access_user_group_for_setting), the others their defaults; `channel_creator` becomes an
   * anonymous group of the creator (role:nobody without one).
   */
  async resolveGroupSettings(
    realm: Realm,
    actor: ChannelActor | null,
    requested: Partial<Record<ChannelGroupSettingName, unknown>>,
    channel: { inviteOnly: boolean; historyPublicToSubscribers?: boolean },
  ): Promise<{ groups: Record<ChannelGroupSettingName, number>; anonymous: number[] }> {
    const system = await this.groupSettings.systemGroupIds(realm.id);
    const groups = {} as Record<ChannelGroupSettingName, number>;
    const anonymous: number[] = [];
    for (const name of CHANNEL_GROUP_SETTING_NAMES) {
      const rule = CHANNEL_GROUP_SETTINGS[name];
      const value = requested[name];
      if (value !== undefined) {
        const isNamed = typeof value === 'number';
        const id = await this.groupSettings.parseForSetting(realm.id, name, value, {
          allowEveryone: rule.allowEveryone,
          allowNobody: true,
          allowInternet: false,
        });
        if (name === 'can_create_topic_group') {
          const history = defaultHistoryPublicToSubscribers(channel.inviteOnly, channel.historyPublicToSubscribers);
          if (!history && id !== system.get('role:everyone')) {
            throw ParamErrors.incompatibleParameters(['history_public_to_subscribers', 'can_create_topic_group']);
          }
        }
        if (
          (name === 'can_delete_any_message_group' || name === 'can_delete_own_message_group') &&
          id !== system.get('role:nobody') &&
          (actor === null || !holdsGroupSetting(actor, realm.can_set_delete_message_policy_group, false))
        ) {
          throw Errors.insufficientPermission();
        }
        if (!isNamed && (await this.groupSettings.isAnonymousGroup(id))) anonymous.push(id);
        groups[name] = id;
      } else if (rule.default === 'channel_creator') {
        if (actor) {
          const id = await this.groupSettings.parseForSetting(
            realm.id,
            name,
            { direct_members: [actor.id], direct_subgroups: [] },
            { allowEveryone: false, allowNobody: true },
          );
          anonymous.push(id);
          groups[name] = id;
        } else {
          groups[name] = system.get('role:nobody')!;
        }
      } else {
        groups[name] = system.get(rule.default)!;
      }
    }
    return { groups, anonymous };
  }

  /** check_channel_creation_permissions */
  private checkCreationPermission(realm: Realm, actor: ChannelActor, spec: NewChannelSpec, isDefault: boolean): void {
    if (spec.inviteOnly && !holdsGroupSetting(actor, realm.can_create_private_channel_group, false)) {
      throw Errors.insufficientPermission();
    }
    if (!spec.inviteOnly && !holdsGroupSetting(actor, realm.can_create_public_channel_group, false)) {
      throw Errors.insufficientPermission();
    }
    if (isDefault && !isRealmAdmin(actor)) throw Errors.insufficientPermission();
    if (spec.inviteOnly && isDefault) throw ChannelErrors.defaultCannotBePrivate();
    if (spec.isWebPublic) {
      if (!realm.enableSpectatorAccess) throw ChannelErrors.webPublicNotEnabled();
      if (!holdsGroupSetting(actor, realm.can_create_web_public_channel_group, false)) {
        throw Errors.insufficientPermission();
      }
    }
    if (spec.messageRetentionDays !== null && actor.role !== Role.OWNER) throw Errors.mustBeOwner();
  }

  /**
   * Creates the channels that do not exist yet, in name order (so concurrent requests lock the
   * name index in the same order), and tells the users who can see them. Channels another
   * transaction created first come back as `existing`.
   */
  async createChannels(realm: Realm, specs: NewChannelSpec[]): Promise<{ created: Stream[]; existing: Stream[] }> {
    const created: Stream[] = [];
    const existing: Stream[] = [];
    const ordered = [...specs].sort((a, b) => (a.name.toUpperCase() < b.name.toUpperCase() ? -1 : 1));
    for (const spec of ordered) {
      const stream = await this.channels.insertChannelIfAbsent({
        realmId: realm.id,
        name: spec.name,
        creatorId: spec.creatorId,
        description: spec.description,
        renderedDescription: renderDescription(spec.description),
        folderId: spec.folderId,
        inviteOnly: spec.inviteOnly,
        historyPublicToSubscribers: spec.historyPublicToSubscribers,
        isWebPublic: spec.isWebPublic,
        messageRetentionDays: spec.messageRetentionDays,
        topicsPolicy: spec.topicsPolicy,
        canAddSubscribersGroup: spec.groups.can_add_subscribers_group,
        canAdministerChannelGroup: spec.groups.can_administer_channel_group,
        canCreateTopicGroup: spec.groups.can_create_topic_group,
        canDeleteAnyMessageGroup: spec.groups.can_delete_any_message_group,
        canDeleteOwnMessageGroup: spec.groups.can_delete_own_message_group,
        canMoveMessagesOutOfChannelGroup: spec.groups.can_move_messages_out_of_channel_group,
        canMoveMessagesWithinChannelGroup: spec.groups.can_move_messages_within_channel_group,
        canRemoveSubscribersGroup: spec.groups.can_remove_subscribers_group,
        canResolveTopicsGroup: spec.groups.can_resolve_topics_group,
        canSendMessageGroup: spec.groups.can_send_message_group,
        canSubscribeGroup: spec.groups.can_subscribe_group,
      });
      if (stream) {
        created.push(stream);
        continue;
      }
      for (const id of spec.anonymousGroups) await this.groupSettings.deleteAnonymousGroup(realm.id, id);
      const other = await this.channels.findByNameInRealm(realm.id, spec.name);
      if (other && !existing.some((s) => s.id === other.id) && !created.some((s) => s.id === other.id))
        existing.push(other);
    }
    if (created.length > 0) {
      const ctx = await this.access.formatContext(realm.id, created);
      const data = await this.access.audienceData(realm.id, created);
      for (const stream of created) {
        this.events.streamCreate(realm.id, [channelDict(stream, ctx)], creationAudience(stream, data));
      }
    }
    return { created, existing };
  }

  /**
   * bulk_add_subscriptions: subscribes `users` to `streams` (re-activating old subscriptions)
   * and sends Zulip's events: `stream create` to users who could not see the channel before,
   * `subscription add` to each new subscriber, `peer_add` to everyone tracking subscribers.
   */
  async addSubscriptions(
    realmId: number,
    streams: Stream[],
    users: RealmUserRow[],
    colorMap: Map<number, string> = new Map(),
  ): Promise<{
    added: Array<{ userId: number; recipientId: number }>;
    already: Array<{ userId: number; recipientId: number }>;
  }> {
    const recipientIds = streams.map((s) => s.recipientId).filter((id): id is number => id !== null);
    const userIds = users.map((u) => u.id);
    if (recipientIds.length === 0 || userIds.length === 0) return { added: [], already: [] };
    const activeBefore = new Set(
      (await this.channels.activeSubscriptionPairs(userIds, recipientIds)).map((p) => `${p.userId}:${p.recipientId}`),
    );
    const usedColors = await this.channels.usedColors(userIds);
    const rows: Array<{ userId: number; recipientId: number; color: string }> = [];
    for (const user of users) {
      const wanted = recipientIds.filter((rid) => !activeBefore.has(`${user.id}:${rid}`));
      const colors = pickColors(usedColors.get(user.id) ?? new Set(), colorMap, wanted, STREAM_ASSIGNMENT_COLORS);
      for (const rid of wanted) rows.push({ userId: user.id, recipientId: rid, color: colors.get(rid)! });
    }
    const changed = await this.channels.subscribe(rows);
    const changedKeys = new Set(changed.map((p) => `${p.userId}:${p.recipientId}`));
    const added: Array<{ userId: number; recipientId: number }> = [];
    const already: Array<{ userId: number; recipientId: number }> = [];
    for (const user of users) {
      for (const rid of recipientIds) {
        (changedKeys.has(`${user.id}:${rid}`) ? added : already).push({ userId: user.id, recipientId: rid });
      }
    }
    if (added.length > 0) await this.sendSubscriptionAddEvents(realmId, streams, users, added);
    return { added, already };
  }

  private async sendSubscriptionAddEvents(
    realmId: number,
    streams: Stream[],
    users: RealmUserRow[],
    added: Array<{ userId: number; recipientId: number }>,
  ): Promise<void> {
    const byRecipient = new Map(streams.map((s) => [s.recipientId, s]));
    const altered = new Map<number, Set<number>>();
    for (const p of added) {
      const stream = byRecipient.get(p.recipientId)!;
      let set = altered.get(stream.id);
      if (!set) altered.set(stream.id, (set = new Set()));
      set.add(p.userId);
    }
    const alteredStreams = streams.filter((s) => altered.has(s.id));
    const data = await this.access.audienceData(realmId, alteredStreams);
    const ctx = await this.access.formatContext(realmId, alteredStreams);
    const guests = new Set(users.filter((u) => u.role === Role.GUEST).map((u) => u.id));
    const admins = adminUserIds(data);

    // Channels the new subscribers could not see before need a `stream create` first.
    for (const stream of alteredStreams) {
      const newUsers = altered.get(stream.id)!;
      let notify: number[] = [];
      if (stream.inviteOnly) {
        const viaGroups = metadataGroupMembers(stream, data);
        notify = [...newUsers].filter((id) => !admins.has(id) && !viaGroups.has(id));
      } else if (!stream.isWebPublic) {
        notify = [...newUsers].filter((id) => guests.has(id));
      }
      if (notify.length > 0) this.events.streamCreate(realmId, [channelDict(stream, ctx)], notify);
    }

    const perUser = new Map<number, Stream[]>();
    for (const p of added) {
      const list = perUser.get(p.userId) ?? [];
      list.push(byRecipient.get(p.recipientId)!);
      perUser.set(p.userId, list);
    }
    // One query for every new subscription row (not one per user).
    const subsByUser = new Map<number, Map<number, Subscription>>();
    const rows = await this.channels.activeSubscriptionRows(
      [...perUser.keys()],
      alteredStreams.map((s) => s.recipientId!),
    );
    for (const row of rows) {
      let map = subsByUser.get(row.userProfileId);
      if (!map) subsByUser.set(row.userProfileId, (map = new Map<number, Subscription>()));
      map.set(row.recipientId, row);
    }
    for (const [userId, list] of perUser) {
      const subs = subsByUser.get(userId)!;
      const dicts = list.map((stream) =>
        subscriptionDict(stream, subs.get(stream.recipientId!)!, ctx, subscribersOf(stream, data)),
      );
      this.events.subscriptionAdd(realmId, userId, dicts);
    }
    // Restricted guests who now share a channel with someone they could not see (and those
    // someones, when guests) get them as `realm_user` add, before the peer_add events (Zulip's
    // order in bulk_add_subscriptions).
    await this.announceAccessChanges(realmId, alteredStreams, perUser, data, added);
    this.events.peer(realmId, 'peer_add', peerEvents(alteredStreams, altered, data));
  }

  /**
   * send_user_creation_events_on_adding_subscriptions (`added` given: the subscription rows just
   * added, left out of the peers to see how things were before) and
   * send_user_remove_events_on_removing_subscriptions (after an unsubscribe, peers as they are
   * now), when the realm restricts can_access_all_users_group and a guest is involved. No query
   * when no guest is involved; else the realm's row, two queries for the peers of all changed
   * users (subscriptions and direct-message groups), and two for the dicts of the users gained,
   * whatever the number of users and channels.
   */
  private async announceAccessChanges(
    realmId: number,
    streams: Stream[],
    perUser: ReadonlyMap<number, Stream[]>,
    data: AudienceData,
    added?: ReadonlyArray<{ userId: number; recipientId: number }>,
  ): Promise<void> {
    // Everyone involved is an active user of data.users, or a changed user (deactivated ones
    // may be unsubscribed: they gain and lose no one's sight through channels).
    const people = new Map(data.users.map((u) => [u.id, u]));
    const changed = [...perUser.keys()];
    const othersOf = new Map<number, Set<number>>();
    let guestInvolved = changed.some((id) => people.get(id)?.role === Role.GUEST);
    for (const [userId, list] of perUser) {
      const others = new Set<number>();
      for (const stream of list) for (const id of subscribersOf(stream, data)) if (id !== userId) others.add(id);
      othersOf.set(userId, others);
      if (!guestInvolved) guestInvolved = [...others].some((id) => people.get(id)?.role === Role.GUEST);
    }
    if (!guestInvolved || streams.length === 0) return;
    // Only now the realm's setting (a query): most changes involve no guest at all.
    const realm = await this.realms.getRealm(realmId);
    if (!(await this.userAccess.realmRestricts(realm))) return;
    const among = new Set<number>();
    for (const others of othersOf.values()) for (const id of others) among.add(id);
    const peers = await this.userAccess.peerPairs(realmId, changed, [...among], added ?? []);
    const changes: SubscriptionChangeAccess[] = changed.map((userId) => ({
      userId,
      others: othersOf.get(userId)!,
      peers: {
        channelPeers: peers.channelPeers.get(userId) ?? new Set<number>(),
        directPeers: peers.directPeers.get(userId) ?? new Set<number>(),
      },
    }));
    const pairs = accessChangesOnSubscriptions(changes, people);
    if (pairs.length === 0) return;
    if (added) await this.accessEvents.announce(realm, pairs, []);
    else await this.accessEvents.announce(realm, [], pairs);
  }

  /**
   * A user created from an invitation joins the channels it named (those still active), plus the
   * realm's default channels when asked (do_create_user's streams). In the caller's transaction.
   */
  async subscribeNewUser(
    realmId: number,
    userId: number,
    streamIds: number[],
    includeDefaultChannels: boolean,
  ): Promise<void> {
    const ids = new Set(streamIds);
    if (includeDefaultChannels) for (const id of await this.channels.defaultChannelIds(realmId)) ids.add(id);
    if (ids.size === 0) return;
    const streams = (await this.channels.findByIdsInRealm(realmId, [...ids]))
      .filter((s) => !s.deactivated)
      .sort((a, b) => a.id - b.id);
    await this.addSubscriptions(realmId, streams, [await this.selfAsRow(realmId, userId)]);
  }

  private async selfAsRow(realmId: number, userId: number): Promise<RealmUserRow> {
    const [row] = await this.directory.usersByIds(realmId, [userId]);
    return row;
  }

  /**
   * bulk_principals_to_user_profiles: user ids, or API emails (the real address when the caller
   * may see it, or the `user<id>@<host>` form). Unknown users and users of other realms: "No such
   * user"; deactivated ones: "User is deactivated".
   */
  async resolvePrincipals(realm: Realm, viewerRole: number, principals: number[] | string[]): Promise<RealmUserRow[]> {
    const out = new Map<number, RealmUserRow>();
    if (typeof principals[0] === 'number') {
      const ids = principals as number[];
      const rows = new Map((await this.directory.usersByIds(realm.id, ids)).map((u) => [u.id, u]));
      for (const id of ids) {
        const user = rows.get(id);
        if (!user) throw UserErrors.noSuchUser();
        if (!user.isActive) throw UserErrors.deactivated();
        out.set(user.id, user);
      }
      return [...out.values()];
    }
    const emails = principals as string[];
    const host = this.realms.realmHost(realm).toLowerCase();
    const dummyIds = new Map<string, number>();
    for (const email of emails) {
      const m = /^user(\d+)@(.+)$/i.exec(email.trim());
      if (m && m[2].toLowerCase() === host) dummyIds.set(email, Number(m[1]));
    }
    const byEmail = await this.directory.usersByDeliveryEmails(
      realm.id,
      emails.map((e) => e.trim()),
    );
    const byId = new Map((await this.directory.usersByIds(realm.id, [...dummyIds.values()])).map((u) => [u.id, u]));
    for (const email of emails) {
      const lower = email.trim().toLowerCase();
      let user = byEmail.find(
        (u) => u.deliveryEmail.toLowerCase() === lower && canSeeDeliveryEmail(viewerRole, u.emailAddressVisibility),
      );
      const dummy = dummyIds.get(email);
      if (!user && dummy !== undefined) user = byId.get(dummy);
      if (!user) throw UserErrors.noSuchUser();
      if (!user.isActive) throw UserErrors.deactivated();
      out.set(user.id, user);
    }
    return [...out.values()];
  }

  private async sendDefaultStreamsEvent(realmId: number): Promise<void> {
    const ids = await this.channels.defaultChannelIds(realmId);
    const users = await this.directory.activeUsers(realmId);
    this.events.defaultStreams(
      realmId,
      ids,
      users.filter((u) => u.role !== Role.GUEST).map((u) => u.id),
    );
  }

  // ---- DELETE /users/me/subscriptions ----------------------------------------------------

  async unsubscribe(
    auth: AuthContext,
    names: string[],
    principals: number[] | string[] | undefined,
  ): Promise<{ removed: string[]; not_removed: string[] }> {
    return runInTransaction(this.dataSource, async () => {
      const realm = auth.realm;
      const actor = await this.access.actorFor(auth.user);
      let targets: RealmUserRow[];
      let unsubscribingOthers = false;
      if (principals && principals.length > 0) {
        targets = await this.resolvePrincipals(realm, auth.user.role, principals);
        unsubscribingOthers = targets.some((t) => !(t.id === actor.id || (t.isBot && t.botOwnerId === actor.id)));
      } else {
        targets = [await this.selfAsRow(realm.id, auth.user.id)];
      }

      const stripped = names.map((n) => n.trim());
      for (const name of new Set(stripped)) {
        const error = channelNameError(name);
        if (error) throw Errors.badRequest(error);
      }
      const existing = await this.channels.findByNamesInRealm(realm.id, [...new Set(stripped)]);
      const subscribed = await this.channels.activeRecipientIdsOfUser(
        actor.id,
        existing.map((s) => s.recipientId!),
      );
      // A channel whose existence the caller may not know of answers as a missing one would:
      // the endpoint must not tell private channel names apart from unused ones.
      const found = existing.filter((s) => canAccessChannelMetadata(actor, s, subscribed.has(s.recipientId!)));
      const byLower = new Map(found.map((s) => [s.name.toLowerCase(), s]));
      if (unsubscribingOthers) {
        const allowed = canRemoveSubscribers(
          actor,
          found.map((channel) => ({ channel, subscribed: subscribed.has(channel.recipientId!) })),
        );
        if (!allowed) throw Errors.insufficientPermission();
      }
      const missingNames = stripped.filter((n) => !byLower.has(n.toLowerCase()));
      if (missingNames.length > 0) throw ChannelErrors.namesDoNotExist(missingNames);
      const streams: Stream[] = [];
      for (const n of stripped) {
        const s = byLower.get(n.toLowerCase())!;
        if (!streams.includes(s)) streams.push(s);
      }

      const removedPairs = await this.channels.unsubscribe(
        targets.map((t) => t.id),
        streams.map((s) => s.recipientId!),
      );
      const removedKeys = new Set(removedPairs.map((p) => `${p.userId}:${p.recipientId}`));
      const result = { removed: [] as string[], not_removed: [] as string[] };
      for (const t of targets) {
        for (const s of streams) {
          (removedKeys.has(`${t.id}:${s.recipientId}`) ? result.removed : result.not_removed).push(s.name);
        }
      }
      if (removedPairs.length > 0) await this.afterUnsubscribe(realm.id, streams, targets, removedPairs);
      return result;
    });
  }

  private async afterUnsubscribe(
    realmId: number,
    streams: Stream[],
    targets: RealmUserRow[],
    removed: Array<{ userId: number; recipientId: number }>,
  ): Promise<void> {
    const byRecipient = new Map(streams.map((s) => [s.recipientId, s]));
    const altered = new Map<number, Set<number>>();
    const perUser = new Map<number, Stream[]>();
    for (const p of removed) {
      const s = byRecipient.get(p.recipientId)!;
      let users = altered.get(s.id);
      if (!users) altered.set(s.id, (users = new Set()));
      users.add(p.userId);
      const list = perUser.get(p.userId) ?? [];
      list.push(s);
      perUser.set(p.userId, list);
    }
    const alteredStreams = streams.filter((s) => altered.has(s.id));
    const data: AudienceData = await this.access.audienceData(realmId, alteredStreams);
    const targetById = new Map(targets.map((t) => [t.id, t]));
    for (const [userId, list] of perUser) {
      this.events.subscriptionRemove(realmId, userId, list);
      // Users who can no longer see a channel at all are told it is gone (check_basic_stream_access
      // without content access: web-public, public for non-guests, or administrator / member of a
      // metadata-granting group for private channels).
      const target = targetById.get(userId)!;
      if (isRealmAdmin(target)) continue;
      const lost = list.filter((s) => {
        if (s.isWebPublic) return false;
        if (target.role === Role.GUEST) return true;
        if (!s.inviteOnly) return false;
        return !metadataGroupMembers(s, data).has(userId);
      });
      if (lost.length > 0) {
        this.events.streamDelete(
          realmId,
          lost.map((s) => s.id),
          [userId],
        );
      }
    }
    this.events.peer(realmId, 'peer_remove', peerEvents(alteredStreams, altered, data));
    // Restricted guests who no longer share any conversation with someone (either way round)
    // get `realm_user` remove, after the peer_remove events (Zulip's bulk_remove_subscriptions).
    await this.announceAccessChanges(realmId, alteredStreams, perUser, data);
    await this.bus.publish(
      new UsersLeftChannelsEvent({
        realmId,
        removed: [...perUser].map(([userId, list]) => ({ userId, recipientIds: list.map((s) => s.recipientId!) })),
      }),
    );
  }

  // ---- POST /users/me/subscriptions/properties ------------------------------------------

  /**
   * Applies the changes in order, checking each as Zulip does, all in one transaction: a refused
   * request changes nothing (Zulip keeps the changes made before the one it refuses).
   */
  async updateProperties(auth: AuthContext, changes: PropertyChange[]): Promise<void> {
    const actor = await this.access.actorFor(auth.user);
    await runInTransaction(this.dataSource, async () => {
      for (const change of changes) {
        const { stream, sub } = await this.access.accessById(actor, auth.realm.id, change.streamId);
        if (!sub) throw SubscriptionErrors.notSubscribed(change.streamId);
        let property: Exclude<SubscriptionPropertyName, 'in_home_view'>;
        let value = change.value;
        if (change.property === 'in_home_view') {
          property = 'is_muted';
          value = !(change.value as boolean);
        } else {
          property = change.property;
        }
        await this.channels.setSubscriptionProperty(sub.id, COLUMN_OF[property], value);
        if (property === 'is_muted') {
          this.events.subscriptionUpdate(auth.realm.id, auth.user.id, stream.id, 'in_home_view', !(value as boolean));
        }
        this.events.subscriptionUpdate(auth.realm.id, auth.user.id, stream.id, property, value);
      }
    });
  }

  /** Context for formatting, exposed for the seed and queries. */
  formatContext(realmId: number, streams: Stream[]): Promise<ChannelFormatContext> {
    return this.access.formatContext(realmId, streams);
  }
}
