import { Injectable } from '@nestjs/common';
import { UserDirectoryService } from '../users/user-directory.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { Role } from '../common/roles';
import { runInTransaction } from '../database/transaction';
import { DomainEventBus } from '../events/domain-event-bus';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { GroupSettingsService, GroupSettingValue } from '../users/group-settings.service';
import type { Stream } from './channel.entity';
import { ChannelAccessService } from './channel-access.service';
import {
  adminUserIds,
  metadataAudience,
  metadataGroupMembers,
  nonGuestUserIds,
  subscribersOf,
} from './channel-audiences';
import { renderDescription } from './channel-description';
import { ChannelEvents, type StreamUpdateExtra, type StreamUpdateValue } from './channel-events';
import { channelDict } from './channel-format';
import {
  channelChangedEvent,
  type ChannelNotice,
  type ChannelUser,
  EmptyTopicOnlyRequestedEvent,
} from './channels.domain-events';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  CHANNEL_GROUP_SETTINGS,
  ChannelGroupSettingName,
  CONTENT_ACCESS_REQUIRED_SETTINGS,
  METADATA_GRANTING_SETTINGS,
  StreamPostPolicy,
  TopicsPolicy,
  TopicsPolicyName,
  topicsPolicyName,
} from './channel-settings';
import {
  canAccessChannelContent,
  channelAdministrationAccess,
  ChannelActor,
  channelNameError,
  cleanDescription,
  holdsGroupSetting,
  isRealmAdmin,
  parseMessageRetentionDays,
  permissionCombinationError,
  streamPostPolicyFor,
} from './channels.policy';
import { isUniqueViolation } from '../common/errors/unique-violation';
import { ChannelsRepository } from './channels.repository';
import { ChannelFoldersRepository } from './channel-folders.repository';
import { ChannelErrors, ChannelFolderErrors } from './channel.errors';
import { ParamErrors } from '../common/errors/param.errors';

export interface GroupSettingChange {
  new: unknown;
  old?: unknown;
}

export interface UpdateChannelInput {
  description?: string;
  isPrivate?: boolean;
  isDefaultStream?: boolean;
  historyPublicToSubscribers?: boolean;
  isWebPublic?: boolean;
  newName?: string;
  messageRetentionDays?: unknown;
  isArchived?: boolean;
  topicsPolicy?: TopicsPolicyName;
  groupSettings: Partial<Record<ChannelGroupSettingName, GroupSettingChange>>;
  /** undefined: not given; null: remove from its folder. */
  folderId?: number | null;
}

const POLICY_NAMES: Record<string, string> = {
  web_public: 'Web-public',
  public: 'Public',
  private_shared_history: 'Private, shared history',
  private_protected_history: 'Private, protected history',
};

function policyName(s: { inviteOnly: boolean; historyPublicToSubscribers: boolean; isWebPublic: boolean }): string {
  if (s.isWebPublic) return POLICY_NAMES.web_public;
  if (!s.inviteOnly) return POLICY_NAMES.public;
  return s.historyPublicToSubscribers ? POLICY_NAMES.private_shared_history : POLICY_NAMES.private_protected_history;
}

/** Canonical form of a group-setting value for comparison (parse_group_setting_value). */
export function normalizeGroupSettingValue(value: GroupSettingValue, nobodyId: number): string {
  if (typeof value === 'number') return String(value);
  const members = [...new Set(value.direct_members)].sort((a, b) => a - b);
  const subgroups = [...new Set(value.direct_subgroups)].sort((a, b) => a - b);
  if (members.length === 0 && subgroups.length === 1) return String(subgroups[0]);
  if (members.length === 0 && subgroups.length === 0) return String(nobodyId);
  return JSON.stringify({ m: members, s: subgroups });
}

function isGroupSettingValue(value: unknown): value is GroupSettingValue {
  if (typeof value === 'number') return Number.isInteger(value);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  const intList = (x: unknown) => Array.isArray(x) && x.every((i) => typeof i === 'number' && Number.isInteger(i));
  return intList(v.direct_members) && intList(v.direct_subgroups);
}

/** PATCH and DELETE /streams/{stream_id} (zerver/views/streams.py update_stream_backend, deactivate_stream_backend). */
@Injectable()
export class ChannelAdminService {
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
  ) {}

  /** access_stream_for_delete_or_update_requiring_metadata_access (archived channels included). */
  private async accessForAdministration(actor: ChannelActor, realmId: number, streamId: number) {
    const found = await this.channels.findByIdInRealm(realmId, streamId);
    if (!found) throw ChannelErrors.invalidId();
    const stream = (await this.channels.lockChannel(found.id))!;
    const sub = await this.channels.activeSubscription(actor.id, stream.recipientId);
    switch (channelAdministrationAccess(actor, stream, sub !== null)) {
      case 'allowed':
        return { stream, subscribed: sub !== null };
      case 'forbidden':
        throw ChannelErrors.cannotAdminister();
      case 'invisible':
        throw ChannelErrors.invalidId();
    }
  }

  private async notice(realm: Realm, actor: ChannelUser, stream: Stream, notice: ChannelNotice): Promise<void> {
    await this.bus.publish(
      channelChangedEvent({
        realmId: realm.id,
        actor,
        channel: {
          id: stream.id,
          name: stream.name,
          recipientId: stream.recipientId!,
          deactivated: stream.deactivated,
          topicsPolicy: topicsPolicyName(stream.topicsPolicy),
        },
        notice,
      }),
    );
  }

  /** Does the channel have messages in a non-empty topic? Messaging answers. */
  private async namedTopicsFound(realmId: number, recipientId: number): Promise<boolean> {
    const question = new EmptyTopicOnlyRequestedEvent(realmId, recipientId);
    await this.bus.publish(question);
    return question.namedTopicsFound;
  }

  private async reload(stream: Stream): Promise<Stream> {
    return (await this.channels.findByIdInRealm(stream.realmId, stream.id))!;
  }

  async update(auth: AuthContext, streamId: number, input: UpdateChannelInput): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const realm = await this.realms.getRealm(auth.realm.id);
      const actor = await this.access.actorFor(auth.user);
      const actorInfo: ChannelUser = { id: auth.user.id, fullName: auth.user.fullName };
      const accessed = await this.accessForAdministration(actor, realm.id, streamId);
      let stream = accessed.stream;
      const subscribed = accessed.subscribed;

      const proposedPrivate = input.isPrivate ?? stream.inviteOnly;
      const proposedWebPublic = input.isWebPublic ?? stream.isWebPublic;
      const defaultIds = await this.channels.defaultChannelIds(realm.id);
      const proposedDefault = input.isDefaultStream ?? defaultIds.includes(stream.id);
      const proposedHistory =
        input.historyPublicToSubscribers ??
        (input.isPrivate !== undefined ? !input.isPrivate : stream.historyPublicToSubscribers);
      const combination = permissionCombinationError({
        inviteOnly: proposedPrivate,
        historyPublicToSubscribers: proposedHistory,
        isWebPublic: proposedWebPublic,
      });
      if (combination) throw Errors.badRequest(combination);
      if (proposedPrivate && proposedDefault) throw ChannelErrors.defaultCannotBePrivate();
      if (!proposedPrivate && realm.moderationRequestChannelId === stream.id) {
        throw ChannelErrors.moderationChannelMustBePrivate();
      }
      if (input.isPrivate !== undefined && !canAccessChannelContent(actor, stream, subscribed)) {
        throw ChannelErrors.contentAccessRequired();
      }
      if (input.isPrivate !== undefined) {
        const setting = input.isPrivate
          ? realm.can_create_private_channel_group
          : realm.can_create_public_channel_group;
        if (!holdsGroupSetting(actor, setting, false)) throw Errors.insufficientPermission();
      }
      if (input.isWebPublic) {
        if (!realm.enableSpectatorAccess) throw ChannelErrors.webPublicNotEnabled();
        if (!holdsGroupSetting(actor, realm.can_create_web_public_channel_group, false)) {
          throw Errors.insufficientPermission();
        }
      }
      if (
        input.isPrivate !== undefined ||
        input.isWebPublic !== undefined ||
        input.historyPublicToSubscribers !== undefined
      ) {
        const canCreateTopic = stream.canCreateTopicGroup;
        const everyone = await this.groupSettings.systemGroupId(realm.id, 'role:everyone');
        if (
          !proposedHistory &&
          canCreateTopic !== everyone &&
          input.groupSettings.can_create_topic_group === undefined
        ) {
          throw ParamErrors.incompatibleParameters(['history_public_to_subscribers', 'can_create_topic_group']);
        }
        stream = await this.changePermission(realm, actorInfo, stream, {
          inviteOnly: proposedPrivate,
          historyPublicToSubscribers: proposedHistory,
          isWebPublic: proposedWebPublic,
        });
      }

      if (input.isDefaultStream !== undefined) {
        if (!isRealmAdmin(actor)) throw Errors.mustBeAdmin();
        if (input.isDefaultStream) await this.channels.addDefaultChannels(realm.id, [stream.id]);
        else await this.channels.removeDefaultChannel(realm.id, stream.id);
        await this.sendDefaultStreams(realm.id);
      }

      if (input.messageRetentionDays !== undefined) {
        if (actor.role !== Role.OWNER) throw Errors.mustBeOwner();
        const parsed = parseMessageRetentionDays(input.messageRetentionDays);
        if (!parsed.ok) throw Errors.badRequest(parsed.error);
        const old = stream.messageRetentionDays;
        await this.channels.updateChannel(stream.id, { messageRetentionDays: parsed.days });
        stream = await this.reload(stream);
        await this.sendUpdate(realm.id, stream, 'message_retention_days', parsed.days);
        await this.notice(realm, actorInfo, stream, {
          kind: 'message_retention_changed',
          oldDays: old,
          newDays: parsed.days,
          realmDays: realm.messageRetentionDays,
        });
      }

      if (input.isArchived === false) stream = await this.unarchive(realm, actorInfo, stream);

      if (input.topicsPolicy !== undefined) {
        if (!holdsGroupSetting(actor, realm.can_set_topics_policy_group, true)) throw Errors.insufficientPermission();
        const code = TopicsPolicy[input.topicsPolicy];
        if (
          code === TopicsPolicy.empty_topic_only &&
          stream.recipientId !== null &&
          (await this.namedTopicsFound(realm.id, stream.recipientId))
        ) {
          throw ChannelErrors.topicsOutsideGeneralChat();
        }
        if (code !== stream.topicsPolicy) {
          const old = topicsPolicyName(stream.topicsPolicy);
          await this.channels.updateChannel(stream.id, { topicsPolicy: code });
          stream = await this.reload(stream);
          await this.sendUpdate(realm.id, stream, 'topics_policy', input.topicsPolicy);
          await this.notice(realm, actorInfo, stream, {
            kind: 'topics_policy_changed',
            oldPolicy: old,
            newPolicy: input.topicsPolicy,
          });
        }
      }

      if (input.description !== undefined) {
        const description = cleanDescription(input.description.replace(/\n/g, ' '));
        const old = stream.description;
        const rendered = renderDescription(description);
        await this.channels.updateChannel(stream.id, { description, renderedDescription: rendered });
        stream = await this.reload(stream);
        await this.sendUpdate(realm.id, stream, 'description', description, { rendered_description: rendered });
        await this.notice(realm, actorInfo, stream, {
          kind: 'description_changed',
          oldDescription: old,
          newDescription: description,
        });
      }

      if (input.newName !== undefined) {
        const newName = input.newName.trim();
        if (stream.name === newName) throw ChannelErrors.alreadyHasName();
        if (stream.name.toLowerCase() !== newName.toLowerCase()) {
          const error = channelNameError(newName);
          if (error) throw Errors.badRequest(error);
          if (await this.channels.findByNameInRealm(realm.id, newName)) throw ChannelErrors.alreadyExists(newName);
        }
        const oldName = stream.name;
        try {
          await this.channels.updateChannel(stream.id, { name: newName });
        } catch (err) {
          if (isUniqueViolation(err)) throw ChannelErrors.alreadyExists(newName);
          throw err;
        }
        stream = await this.reload(stream);
        const audience = metadataAudience(stream, await this.access.audienceData(realm.id, [stream]));
        this.events.streamUpdate(realm.id, { id: stream.id, name: oldName }, 'name', newName, audience);
        await this.notice(realm, actorInfo, stream, { kind: 'renamed', oldName, newName });
      }

      if (input.folderId !== undefined) {
        let folderId: number | null = null;
        if (input.folderId !== null) {
          const folder = await this.folders.findByIdInRealm(realm.id, input.folderId);
          if (!folder) throw ChannelFolderErrors.invalidId();
          folderId = folder.id;
        }
        await this.channels.updateChannel(stream.id, { folderId });
        stream = await this.reload(stream);
        await this.sendUpdate(realm.id, stream, 'folder_id', folderId);
      }

      for (const name of CHANNEL_GROUP_SETTING_NAMES) {
        const change = input.groupSettings[name];
        if (change === undefined) continue;
        stream = await this.changeGroupSetting(realm, actor, actorInfo, stream, subscribed, name, change);
      }
    });
  }

  /** do_change_stream_permission */
  private async changePermission(
    realm: Realm,
    actor: ChannelUser,
    stream: Stream,
    next: { inviteOnly: boolean; historyPublicToSubscribers: boolean; isWebPublic: boolean },
  ): Promise<Stream> {
    const before = { ...stream };
    await this.channels.updateChannel(stream.id, next);
    const after = await this.reload(stream);
    const data = await this.access.audienceData(realm.id, [after]);
    let created = new Set<number>();
    if (before.inviteOnly && !after.inviteOnly) {
      const subscribers = subscribersOf(after, data);
      const hadAccess = new Set([...subscribers, ...adminUserIds(data), ...metadataGroupMembers(after, data)]);
      created = new Set([...nonGuestUserIds(data)].filter((id) => !hadAccess.has(id)));
      const ctx = await this.access.formatContext(realm.id, [after]);
      this.events.streamCreate(realm.id, [channelDict(after, ctx)], created);
      this.events.peer(realm.id, 'peer_add', [
        { streamIds: [after.id], userIds: [...subscribers], recipients: created },
      ]);
    }
    const audience = [...metadataAudience(after, data)].filter((id) => !created.has(id));
    this.events.streamUpdate(realm.id, after, 'invite_only', after.inviteOnly, audience, {
      history_public_to_subscribers: after.historyPublicToSubscribers,
      is_web_public: after.isWebPublic,
    });
    await this.notice(realm, actor, after, {
      kind: 'permission_changed',
      oldPolicyName: policyName(before),
      newPolicyName: policyName(after),
    });
    return after;
  }

  private async changeGroupSetting(
    realm: Realm,
    actor: ChannelActor,
    actorInfo: ChannelUser,
    stream: Stream,
    subscribed: boolean,
    name: ChannelGroupSettingName,
    change: GroupSettingChange,
  ): Promise<Stream> {
    const rule = CHANNEL_GROUP_SETTINGS[name];
    const property = rule.property;
    const nobody = await this.groupSettings.systemGroupId(realm.id, 'role:nobody');
    if (!isGroupSettingValue(change.new)) {
      // Let the shared validator produce Zulip's message for the malformed value.
      await this.groupSettings.parseForSetting(realm.id, name, change.new, {
        allowEveryone: rule.allowEveryone,
        allowNobody: true,
      });
      throw ParamErrors.invalid(name);
    }
    const currentId = stream[property];
    const currentValue = await this.groupSettings.valueForApi(realm.id, currentId);
    const current = normalizeGroupSettingValue(currentValue, nobody);
    if (change.old !== undefined) {
      if (!isGroupSettingValue(change.old) || normalizeGroupSettingValue(change.old, nobody) !== current) {
        throw Errors.oldValueMismatch();
      }
    }
    if (normalizeGroupSettingValue(change.new, nobody) === current) return stream;
    if (CONTENT_ACCESS_REQUIRED_SETTINGS.includes(name) && !canAccessChannelContent(actor, stream, subscribed)) {
      throw ChannelErrors.contentAccessRequired();
    }
    const newId = await this.groupSettings.parseForSetting(realm.id, name, change.new, {
      allowEveryone: rule.allowEveryone,
      allowNobody: true,
      allowInternet: false,
    });
    if (
      (name === 'can_delete_any_message_group' || name === 'can_delete_own_message_group') &&
      newId !== nobody &&
      !holdsGroupSetting(actor, realm.can_set_delete_message_policy_group, false)
    ) {
      throw Errors.insufficientPermission();
    }
    if (name === 'can_create_topic_group' && !stream.historyPublicToSubscribers) {
      const everyone = await this.groupSettings.systemGroupId(realm.id, 'role:everyone');
      if (newId !== everyone)
        throw ParamErrors.incompatibleParameters(['history_public_to_subscribers', 'can_create_topic_group']);
    }

    const grantsMetadata = METADATA_GRANTING_SETTINGS.includes(name);
    const oldAudience = grantsMetadata
      ? metadataAudience(stream, await this.access.audienceData(realm.id, [stream]))
      : null;
    await this.channels.updateChannel(stream.id, { [property]: newId });
    if (await this.groupSettings.isAnonymousGroup(currentId))
      await this.groupSettings.deleteAnonymousGroup(realm.id, currentId);
    const after = await this.reload(stream);
    const newValue = await this.groupSettings.valueForApi(realm.id, newId);
    const data = await this.access.audienceData(realm.id, [after]);
    const audience = metadataAudience(after, data);
    if (oldAudience) {
      const gaining = [...audience].filter((id) => !oldAudience.has(id));
      const losing = [...oldAudience].filter((id) => !audience.has(id));
      this.events.streamUpdate(
        realm.id,
        after,
        name,
        newValue,
        [...audience].filter((id) => oldAudience.has(id)),
      );
      if (gaining.length > 0) {
        const ctx = await this.access.formatContext(realm.id, [after]);
        this.events.streamCreate(realm.id, [channelDict(after, ctx)], gaining);
        this.events.peer(realm.id, 'peer_add', [
          { streamIds: [after.id], userIds: subscribersOf(after, data), recipients: new Set(gaining) },
        ]);
      }
      if (losing.length > 0) this.events.streamDelete(realm.id, [after.id], losing);
    } else {
      this.events.streamUpdate(realm.id, after, name, newValue, audience);
    }
    if (name === 'can_send_message_group') {
      const system = await this.groupSettings.systemGroupIds(realm.id);
      const nameOf = (id: number) => [...system].find(([, v]) => v === id)?.[0];
      const oldPolicy = streamPostPolicyFor(nameOf(currentId));
      const newPolicy = streamPostPolicyFor(nameOf(newId));
      if (oldPolicy !== newPolicy) {
        this.events.streamUpdate(realm.id, after, 'stream_post_policy', newPolicy, audience);
        this.events.streamUpdate(
          realm.id,
          after,
          'is_announcement_only',
          newPolicy === StreamPostPolicy.ADMINS,
          audience,
        );
      }
      await this.notice(realm, actorInfo, after, {
        kind: 'posting_permission_changed',
        oldValue: currentValue,
        newValue,
      });
    }
    return after;
  }

  private async sendUpdate(
    realmId: number,
    stream: Stream,
    property: string,
    value: StreamUpdateValue,
    extra: StreamUpdateExtra = {},
  ): Promise<void> {
    const audience = metadataAudience(stream, await this.access.audienceData(realmId, [stream]));
    this.events.streamUpdate(realmId, stream, property, value, audience, extra);
  }

  private async sendDefaultStreams(realmId: number): Promise<void> {
    const ids = await this.channels.defaultChannelIds(realmId);
    const users = await this.directory.activeUsers(realmId);
    this.events.defaultStreams(
      realmId,
      ids,
      users.filter((u) => u.role !== Role.GUEST).map((u) => u.id),
    );
  }

  // ---- POST/DELETE /default_streams ------------------------------------------------------

  /** add_default_stream: a channel the administrator can access, not private; new ones only notify. */
  async addDefaultChannel(auth: AuthContext, streamId: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const actor = await this.access.actorFor(auth.user);
      const { stream } = await this.access.accessById(actor, auth.realm.id, streamId);
      if (stream.inviteOnly) throw ChannelErrors.privateCannotBeDefault();
      if ((await this.channels.addDefaultChannels(auth.realm.id, [stream.id])) > 0) {
        await this.sendDefaultStreams(auth.realm.id);
      }
    });
  }

  /** remove_default_stream: metadata access is enough. */
  async removeDefaultChannel(auth: AuthContext, streamId: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const actor = await this.access.actorFor(auth.user);
      const { stream } = await this.access.accessById(actor, auth.realm.id, streamId, { requireContentAccess: false });
      if (await this.channels.removeDefaultChannel(auth.realm.id, stream.id))
        await this.sendDefaultStreams(auth.realm.id);
    });
  }

  // ---- DELETE /streams/{stream_id} -------------------------------------------------------

  async archive(auth: AuthContext, streamId: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const realm = await this.realms.getRealm(auth.realm.id);
      const actor = await this.access.actorFor(auth.user);
      const { stream } = await this.accessForAdministration(actor, realm.id, streamId);
      if (stream.deactivated) throw ChannelErrors.alreadyDeactivated();
      const audience = metadataAudience(stream, await this.access.audienceData(realm.id, [stream]));
      await this.channels.updateChannel(stream.id, { deactivated: true });
      const after = await this.reload(stream);

      const cleared: Partial<Realm> = {};
      const data: Record<string, number> = {};
      const fields = [
        ['moderationRequestChannelId', 'moderation_request_channel_id'],
        ['newStreamAnnouncementsStreamId', 'new_stream_announcements_stream_id'],
        ['signupAnnouncementsStreamId', 'signup_announcements_stream_id'],
        ['zulipUpdateAnnouncementsStreamId', 'zulip_update_announcements_stream_id'],
      ] as const;
      for (const [property, apiName] of fields) {
        if (realm[property] === stream.id) {
          cleared[property] = null;
          data[apiName] = -1;
        }
      }
      if (Object.keys(cleared).length > 0) {
        await this.realms.updateRealm(realm.id, cleared);
        const users = await this.directory.activeUsers(realm.id);
        this.events.realmUpdateDict(
          realm.id,
          data,
          users.map((u) => u.id),
        );
      }
      if (await this.channels.removeDefaultChannel(realm.id, stream.id)) await this.sendDefaultStreams(realm.id);

      this.events.archivedStateChange(realm.id, after, true, null, audience);
      await this.notice(realm, { id: auth.user.id, fullName: auth.user.fullName }, after, { kind: 'archived' });
    });
  }

  /** do_unarchive_stream (PATCH is_archived=false). */
  private async unarchive(realm: Realm, actor: ChannelUser, stream: Stream): Promise<Stream> {
    if (!stream.deactivated) throw ChannelErrors.notDeactivated();
    const subscribers = await this.access.subscriberIds(stream);
    if (stream.inviteOnly && subscribers.length === 0) {
      throw ChannelErrors.privateWithoutSubscribers();
    }
    await this.channels.updateChannel(stream.id, {
      deactivated: false,
      isWebPublic: stream.inviteOnly ? false : stream.isWebPublic,
    });
    const after = await this.reload(stream);
    const audience = metadataAudience(after, await this.access.audienceData(realm.id, [after]));
    const ctx = await this.access.formatContext(realm.id, [after]);
    this.events.archivedStateChange(realm.id, after, false, channelDict(after, ctx), audience);
    await this.notice(realm, actor, after, { kind: 'unarchived' });
    return after;
  }
}
