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

type ChannelPermission = { inviteOnly: boolean; historyPublicToSubscribers: boolean; isWebPublic: boolean };

interface ResolvedGroupSettingChange {
  name: ChannelGroupSettingName;
  currentId: number;
  currentValue: GroupSettingValue;
  newId: number;
}

/** A checked PATCH /streams/{stream_id}: the channel as found and every change to make. */
interface ChannelUpdateRequest {
  realm: Realm;
  actor: ChannelActor;
  actorInfo: ChannelUser;
  stream: Stream;
  subscribed: boolean;
  permission?: ChannelPermission;
  isDefault?: boolean;
  retentionDays?: { days: number | null };
  unarchive?: boolean;
  topicsPolicy?: { name: TopicsPolicyName; code: number };
  description?: string;
  newName?: string;
  /** null: out of its folder. */
  folderId?: number | null;
  groupChanges: ResolvedGroupSettingChange[];
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
      const request = await this.buildUpdateRequest(auth, streamId, input);
      await this.applyUpdate(request);
    });
  }

  /**
   * PATCH /streams/{stream_id}, parsed, loaded and authorized: every refusal, in Zulip's order,
   * before anything is written (a group setting's new anonymous group excepted: it is stored as
   * it is resolved, and dropped with the transaction on a refusal). Checks see the channel as the
   * earlier changes of the request will have left it.
   */
  private async buildUpdateRequest(
    auth: AuthContext,
    streamId: number,
    input: UpdateChannelInput,
  ): Promise<ChannelUpdateRequest> {
    const realm = await this.realms.getRealm(auth.realm.id);
    const actor = await this.access.actorFor(auth.user);
    const actorInfo: ChannelUser = { id: auth.user.id, fullName: auth.user.fullName };
    const { stream, subscribed } = await this.accessForAdministration(actor, realm.id, streamId);
    const request: ChannelUpdateRequest = { realm, actor, actorInfo, stream, subscribed, groupChanges: [] };
    const permission = await this.checkPermissionChange(request, input);
    if (permission.changed) request.permission = permission.next;

    if (input.isDefaultStream !== undefined) {
      if (!isRealmAdmin(actor)) throw Errors.mustBeAdmin();
      request.isDefault = input.isDefaultStream;
    }
    if (input.messageRetentionDays !== undefined) {
      if (actor.role !== Role.OWNER) throw Errors.mustBeOwner();
      const parsed = parseMessageRetentionDays(input.messageRetentionDays);
      if (!parsed.ok) throw Errors.badRequest(parsed.error);
      request.retentionDays = { days: parsed.days };
    }
    let projected: Stream = { ...stream, ...permission.next };
    if (input.isArchived === false) {
      if (!stream.deactivated) throw ChannelErrors.notDeactivated();
      const subscribers = await this.access.subscriberIds(stream);
      if (projected.inviteOnly && subscribers.length === 0) throw ChannelErrors.privateWithoutSubscribers();
      request.unarchive = true;
      projected = {
        ...projected,
        deactivated: false,
        isWebPublic: projected.inviteOnly ? false : projected.isWebPublic,
      };
    }
    await this.checkTopicsPolicy(request, input);
    if (input.description !== undefined) request.description = cleanDescription(input.description.replace(/\n/g, ' '));
    await this.checkRename(request, input);
    if (input.folderId !== undefined) {
      let folderId: number | null = null;
      if (input.folderId !== null) {
        const folder = await this.folders.findByIdInRealm(realm.id, input.folderId);
        if (!folder) throw ChannelFolderErrors.invalidId();
        folderId = folder.id;
      }
      request.folderId = folderId;
    }
    for (const name of CHANNEL_GROUP_SETTING_NAMES) {
      const change = input.groupSettings[name];
      if (change === undefined) continue;
      const resolved = await this.resolveGroupSettingChange(request, projected, name, change);
      if (resolved === null) continue;
      request.groupChanges.push(resolved);
      projected = { ...projected, [CHANNEL_GROUP_SETTINGS[name].property]: resolved.newId };
    }
    return request;
  }

  /**
   * The channel's privacy (is_private, is_web_public, history_public_to_subscribers): the valid
   * combinations, the realm's creation permissions, and can_create_topic_group's constraint.
   */
  private async checkPermissionChange(
    { realm, actor, stream, subscribed }: ChannelUpdateRequest,
    input: UpdateChannelInput,
  ): Promise<{ changed: boolean; next: ChannelPermission }> {
    const next: ChannelPermission = {
      inviteOnly: input.isPrivate ?? stream.inviteOnly,
      historyPublicToSubscribers:
        input.historyPublicToSubscribers ??
        (input.isPrivate !== undefined ? !input.isPrivate : stream.historyPublicToSubscribers),
      isWebPublic: input.isWebPublic ?? stream.isWebPublic,
    };
    const defaultIds = await this.channels.defaultChannelIds(realm.id);
    const proposedDefault = input.isDefaultStream ?? defaultIds.includes(stream.id);
    const combination = permissionCombinationError(next);
    if (combination) throw Errors.badRequest(combination);
    if (next.inviteOnly && proposedDefault) throw ChannelErrors.defaultCannotBePrivate();
    if (!next.inviteOnly && realm.moderationRequestChannelId === stream.id) {
      throw ChannelErrors.moderationChannelMustBePrivate();
    }
    if (input.isPrivate !== undefined && !canAccessChannelContent(actor, stream, subscribed)) {
      throw ChannelErrors.contentAccessRequired();
    }
    if (input.isPrivate !== undefined) {
      const setting = input.isPrivate ? realm.can_create_private_channel_group : realm.can_create_public_channel_group;
      if (!holdsGroupSetting(actor, setting, false)) throw Errors.insufficientPermission();
    }
    if (input.isWebPublic) {
      if (!realm.enableSpectatorAccess) throw ChannelErrors.webPublicNotEnabled();
      if (!holdsGroupSetting(actor, realm.can_create_web_public_channel_group, false)) {
        throw Errors.insufficientPermission();
      }
    }
    const changed =
      input.isPrivate !== undefined ||
      input.isWebPublic !== undefined ||
      input.historyPublicToSubscribers !== undefined;
    if (changed) {
      const everyone = await this.groupSettings.systemGroupId(realm.id, 'role:everyone');
      if (
        !next.historyPublicToSubscribers &&
        stream.canCreateTopicGroup !== everyone &&
        input.groupSettings.can_create_topic_group === undefined
      ) {
        throw ParamErrors.incompatibleParameters(['history_public_to_subscribers', 'can_create_topic_group']);
      }
    }
    return { changed, next };
  }

  /** topics_policy: the realm's permission; "empty topic only" needs a channel without named topics. */
  private async checkTopicsPolicy(request: ChannelUpdateRequest, input: UpdateChannelInput): Promise<void> {
    if (input.topicsPolicy === undefined) return;
    const { realm, actor, stream } = request;
    if (!holdsGroupSetting(actor, realm.can_set_topics_policy_group, true)) throw Errors.insufficientPermission();
    const code = TopicsPolicy[input.topicsPolicy];
    if (
      code === TopicsPolicy.empty_topic_only &&
      stream.recipientId !== null &&
      (await this.namedTopicsFound(realm.id, stream.recipientId))
    ) {
      throw ChannelErrors.topicsOutsideGeneralChat();
    }
    request.topicsPolicy = { name: input.topicsPolicy, code };
  }

  /** new_name: a different name, valid, and not another channel's (case aside). */
  private async checkRename(request: ChannelUpdateRequest, input: UpdateChannelInput): Promise<void> {
    if (input.newName === undefined) return;
    const { realm, stream } = request;
    const newName = input.newName.trim();
    if (stream.name === newName) throw ChannelErrors.alreadyHasName();
    if (stream.name.toLowerCase() !== newName.toLowerCase()) {
      const error = channelNameError(newName);
      if (error) throw Errors.badRequest(error);
      if (await this.channels.findByNameInRealm(realm.id, newName)) throw ChannelErrors.alreadyExists(newName);
    }
    request.newName = newName;
  }

  /** The changes of a checked request, in Zulip's order, each with its events and notice. */
  private async applyUpdate(request: ChannelUpdateRequest): Promise<void> {
    const { realm, actorInfo } = request;
    let stream = request.stream;
    if (request.permission) stream = await this.changePermission(realm, actorInfo, stream, request.permission);
    if (request.isDefault !== undefined) {
      if (request.isDefault) await this.channels.addDefaultChannels(realm.id, [stream.id]);
      else await this.channels.removeDefaultChannel(realm.id, stream.id);
      await this.sendDefaultStreams(realm.id);
    }
    if (request.retentionDays) stream = await this.doChangeRetention(request, stream, request.retentionDays.days);
    if (request.unarchive) stream = await this.doUnarchive(realm, actorInfo, stream);
    if (request.topicsPolicy && request.topicsPolicy.code !== stream.topicsPolicy) {
      stream = await this.doChangeTopicsPolicy(request, stream, request.topicsPolicy);
    }
    if (request.description !== undefined)
      stream = await this.doChangeDescription(request, stream, request.description);
    if (request.newName !== undefined) stream = await this.doRename(request, stream, request.newName);
    if (request.folderId !== undefined) {
      await this.channels.updateChannel(stream.id, { folderId: request.folderId });
      stream = await this.reload(stream);
      await this.sendUpdate(realm.id, stream, 'folder_id', request.folderId);
    }
    for (const change of request.groupChanges) stream = await this.doChangeGroupSetting(request, stream, change);
  }

  private async doChangeRetention(
    { realm, actorInfo }: ChannelUpdateRequest,
    stream: Stream,
    days: number | null,
  ): Promise<Stream> {
    const old = stream.messageRetentionDays;
    await this.channels.updateChannel(stream.id, { messageRetentionDays: days });
    const after = await this.reload(stream);
    await this.sendUpdate(realm.id, after, 'message_retention_days', days);
    await this.notice(realm, actorInfo, after, {
      kind: 'message_retention_changed',
      oldDays: old,
      newDays: days,
      realmDays: realm.messageRetentionDays,
    });
    return after;
  }

  private async doChangeTopicsPolicy(
    { realm, actorInfo }: ChannelUpdateRequest,
    stream: Stream,
    policy: { name: TopicsPolicyName; code: number },
  ): Promise<Stream> {
    const old = topicsPolicyName(stream.topicsPolicy);
    await this.channels.updateChannel(stream.id, { topicsPolicy: policy.code });
    const after = await this.reload(stream);
    await this.sendUpdate(realm.id, after, 'topics_policy', policy.name);
    await this.notice(realm, actorInfo, after, {
      kind: 'topics_policy_changed',
      oldPolicy: old,
      newPolicy: policy.name,
    });
    return after;
  }

  private async doChangeDescription(
    { realm, actorInfo }: ChannelUpdateRequest,
    stream: Stream,
    description: string,
  ): Promise<Stream> {
    const old = stream.description;
    const rendered = renderDescription(description);
    await this.channels.updateChannel(stream.id, { description, renderedDescription: rendered });
    const after = await this.reload(stream);
    await this.sendUpdate(realm.id, after, 'description', description, { rendered_description: rendered });
    await this.notice(realm, actorInfo, after, {
      kind: 'description_changed',
      oldDescription: old,
      newDescription: description,
    });
    return after;
  }

  /** The rename; a channel another request gave the name meanwhile refuses it (unique index). */
  private async doRename({ realm, actorInfo }: ChannelUpdateRequest, stream: Stream, newName: string): Promise<Stream> {
    const oldName = stream.name;
    try {
      await this.channels.updateChannel(stream.id, { name: newName });
    } catch (err) {
      if (isUniqueViolation(err)) throw ChannelErrors.alreadyExists(newName);
      throw err;
    }
    const after = await this.reload(stream);
    const audience = metadataAudience(after, await this.access.audienceData(realm.id, [after]));
    this.events.streamUpdate(realm.id, { id: after.id, name: oldName }, 'name', newName, audience);
    await this.notice(realm, actorInfo, after, { kind: 'renamed', oldName, newName });
    return after;
  }

  /** do_change_stream_permission */
  private async changePermission(
    realm: Realm,
    actor: ChannelUser,
    stream: Stream,
    next: ChannelPermission,
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

  /**
   * One group setting's {new, old}: Zulip's texts for a malformed value, the old value's check,
   * nothing when the value does not change; else the permission checks and the new group's id.
   * `stream` is the channel as the request's earlier changes leave it.
   */
  private async resolveGroupSettingChange(
    { realm, actor, subscribed }: ChannelUpdateRequest,
    stream: Stream,
    name: ChannelGroupSettingName,
    change: GroupSettingChange,
  ): Promise<ResolvedGroupSettingChange | null> {
    const rule = CHANNEL_GROUP_SETTINGS[name];
    const nobody = await this.groupSettings.systemGroupId(realm.id, 'role:nobody');
    if (!isGroupSettingValue(change.new)) {
      // Let the shared validator produce Zulip's message for the malformed value.
      await this.groupSettings.parseForSetting(realm.id, name, change.new, {
        allowEveryone: rule.allowEveryone,
        allowNobody: true,
      });
      throw ParamErrors.invalid(name);
    }
    const currentId = stream[rule.property];
    const currentValue = await this.groupSettings.valueForApi(realm.id, currentId);
    const current = normalizeGroupSettingValue(currentValue, nobody);
    if (change.old !== undefined) {
      if (!isGroupSettingValue(change.old) || normalizeGroupSettingValue(change.old, nobody) !== current) {
        throw Errors.oldValueMismatch();
      }
    }
    if (normalizeGroupSettingValue(change.new, nobody) === current) return null;
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
    return { name, currentId, currentValue, newId };
  }

  /**
   * A resolved group setting: stored (the old anonymous group dropped), then its events — for the
   * settings granting metadata access, `stream create`/`delete` to the users gaining or losing
   * sight of the channel — and, for can_send_message_group, the legacy posting policy and notice.
   */
  private async doChangeGroupSetting(
    { realm, actorInfo }: ChannelUpdateRequest,
    stream: Stream,
    { name, currentId, currentValue, newId }: ResolvedGroupSettingChange,
  ): Promise<Stream> {
    const grantsMetadata = METADATA_GRANTING_SETTINGS.includes(name);
    const oldAudience = grantsMetadata
      ? metadataAudience(stream, await this.access.audienceData(realm.id, [stream]))
      : null;
    await this.channels.updateChannel(stream.id, { [CHANNEL_GROUP_SETTINGS[name].property]: newId });
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
      await this.sendPostingPolicy(realm, actorInfo, after, { currentId, currentValue, newId, newValue }, audience);
    }
    return after;
  }

  /** can_send_message_group changed: the legacy stream_post_policy events when it moves, and the notice. */
  private async sendPostingPolicy(
    realm: Realm,
    actorInfo: ChannelUser,
    after: Stream,
    change: { currentId: number; currentValue: GroupSettingValue; newId: number; newValue: GroupSettingValue },
    audience: Iterable<number>,
  ): Promise<void> {
    const system = await this.groupSettings.systemGroupIds(realm.id);
    const nameOf = (id: number) => [...system].find(([, v]) => v === id)?.[0];
    const oldPolicy = streamPostPolicyFor(nameOf(change.currentId));
    const newPolicy = streamPostPolicyFor(nameOf(change.newId));
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
      oldValue: change.currentValue,
      newValue: change.newValue,
    });
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

  /** do_unarchive_stream (PATCH is_archived=false; checked in buildUpdateRequest). */
  private async doUnarchive(realm: Realm, actor: ChannelUser, stream: Stream): Promise<Stream> {
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
