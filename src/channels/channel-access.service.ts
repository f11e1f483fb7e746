import { Injectable } from '@nestjs/common';
import { UserDirectoryService } from '../users/user-directory.service';
import { ZulipError } from '../common/errors/zulip-error';
import type { SystemGroupName } from '../realm/system-groups';
import { GroupSettingsService } from '../users/group-settings.service';
import { PrincipalService } from '../users/principal.service';
import type { Stream } from './channel.entity';
import { AudienceData } from './channel-audiences';
import { ChannelFormatContext } from './channel-format';
import { CHANNEL_GROUP_SETTING_NAMES, CHANNEL_GROUP_SETTINGS, METADATA_GRANTING_SETTINGS } from './channel-settings';
import {
  canAccessChannelContent,
  canAccessChannelMetadata,
  ChannelActor,
  firstRefusedChannel,
} from './channels.policy';
import { ChannelsRepository } from './channels.repository';
import type { Subscription } from './subscription.entity';
import { ChannelErrors } from './channel.errors';

export interface AccessOptions {
  /** Refuse channels the user may only see the metadata of (default true). */
  requireContentAccess?: boolean;
  /** Refuse archived channels (default true). */
  requireActive?: boolean;
}

export interface ChannelAccess {
  stream: Stream;
  /** The user's active subscription, if any. */
  sub: Subscription | null;
}

/**
 * Loading what permission checks need, and Zulip's access_stream_by_id / access_stream_by_name:
 * "does not exist" and "no access" give the same error. Exported for the messaging module.
 */
@Injectable()
export class ChannelAccessService {
  constructor(
    private readonly channels: ChannelsRepository,
    private readonly groupSettings: GroupSettingsService,
    private readonly principals: PrincipalService,
    private readonly directory: UserDirectoryService,
  ) {}

  /** The acting user with their recursive group memberships (their principal: one query per request). */
  async actorFor(user: { id: number; role: number }): Promise<ChannelActor> {
    return { id: user.id, role: user.role, groupIds: (await this.principals.of(user)).groupIds };
  }

  async accessById(
    actor: ChannelActor,
    realmId: number,
    streamId: number,
    options: AccessOptions = {},
  ): Promise<ChannelAccess> {
    return (await this.require(actor, realmId, [streamId], options)).get(streamId)!;
  }

  /**
   * Set-based access (`channelAccess.require(principal, channelIds, …)`): loads every channel and
   * the actor's subscriptions to them in two queries whatever their number, and refuses with
   * "Invalid channel ID" the first one, in the caller's order, the actor may not use (pure rule:
   * `firstRefusedChannel`). A principal (users/principal.ts) is a ChannelActor.
   */
  async require(
    actor: ChannelActor,
    realmId: number,
    streamIds: readonly number[],
    options: AccessOptions = {},
  ): Promise<Map<number, ChannelAccess>> {
    const streams = await this.channels.findByIdsInRealm(realmId, [...new Set(streamIds)]);
    const found = new Map(streams.map((s) => [s.id, s]));
    // A missing channel is refused before the subscriptions are read.
    if (streamIds.some((id) => !found.has(id))) throw ChannelErrors.invalidId();
    const recipientIds = streams.map((s) => s.recipientId).filter((id): id is number => id !== null);
    const subs = await this.channels.activeSubscriptionRows([actor.id], recipientIds);
    const subOf = new Map(subs.map((sub) => [sub.recipientId, sub]));
    const refused = firstRefusedChannel(
      actor,
      streamIds,
      found,
      new Set(subOf.keys()),
      (options.requireContentAccess ?? true) ? 'content' : 'metadata',
      options.requireActive ?? true,
    );
    if (refused !== undefined) throw ChannelErrors.invalidId();
    const out = new Map<number, ChannelAccess>();
    for (const stream of streams) {
      out.set(stream.id, { stream, sub: stream.recipientId === null ? null : (subOf.get(stream.recipientId) ?? null) });
    }
    return out;
  }

  async accessByName(
    actor: ChannelActor,
    realmId: number,
    name: string,
    options: AccessOptions = {},
  ): Promise<ChannelAccess> {
    const stream = await this.channels.findByNameInRealm(realmId, name.trim());
    return this.check(actor, stream, () => ChannelErrors.invalidName(name), options);
  }

  private async check(
    actor: ChannelActor,
    stream: Stream | null,
    error: () => ZulipError,
    options: AccessOptions,
  ): Promise<ChannelAccess> {
    if (!stream) throw error();
    const sub = await this.channels.activeSubscription(actor.id, stream.recipientId);
    if ((options.requireActive ?? true) && stream.deactivated) throw error();
    const allowed =
      (options.requireContentAccess ?? true)
        ? canAccessChannelContent(actor, stream, sub !== null)
        : canAccessChannelMetadata(actor, stream, sub !== null);
    if (!allowed) throw error();
    return { stream, sub };
  }

  /** Active subscribers (active users) of a channel, sorted. */
  async subscriberIds(stream: Pick<Stream, 'recipientId'>): Promise<number[]> {
    if (stream.recipientId === null) return [];
    return (await this.channels.subscriberIds([stream.recipientId])).get(stream.recipientId) ?? [];
  }

  /**
   * Everything channel dicts of `streams` need, in four queries whatever their number (three when
   * the caller has the subscriber counts by recipient id already).
   */
  async formatContext(
    realmId: number,
    streams: readonly Stream[],
    knownCounts?: Map<number, number>,
  ): Promise<ChannelFormatContext> {
    const { recipientIds, groupIds, recipientOf } = channelRowFacts(streams);
    // Sequential: inside a transaction every query shares one connection.
    const counts = knownCounts ?? (await this.channels.subscriberCounts(recipientIds));
    const values = await this.groupSettings.valuesForApi(realmId, groupIds);
    const system = await this.groupSettings.systemGroupIds(realmId);
    const systemNames = new Map<number, SystemGroupName>();
    for (const [name, id] of system) systemNames.set(id, name);
    return {
      signature: JSON.stringify([[...values], [...systemNames]]),
      groupValue: (id) => values.get(id) ?? id,
      systemGroupName: (id) => systemNames.get(id),
      subscriberCount: (streamId) => {
        const rid = recipientOf.get(streamId);
        return rid === null || rid === undefined ? 0 : (counts.get(rid) ?? 0);
      },
    };
  }

  /** Users, subscribers and metadata-group members for computing event audiences (three queries). */
  async audienceData(realmId: number, streams: Stream[]): Promise<AudienceData> {
    const recipientIds = streams.map((s) => s.recipientId).filter((id): id is number => id !== null);
    const groupIds: number[] = [];
    for (const s of streams) {
      for (const name of METADATA_GRANTING_SETTINGS) groupIds.push(s[CHANNEL_GROUP_SETTINGS[name].property]);
    }
    const users = await this.directory.activeUsers(realmId);
    const subscribers = await this.channels.subscriberIds(recipientIds);
    const groupMembers = await this.groupSettings.nonGuestMembersOfGroups(groupIds);
    return { users, subscribers, groupMembers };
  }
}

/** What formatContext reads off a list of channel rows. */
interface ChannelRowFacts {
  recipientIds: number[];
  /** Every group the rows' group settings name (once each). */
  groupIds: number[];
  recipientOf: Map<number, number | null>;
}

/**
 * The facts of the listing cache's frozen row arrays, kept while the array lives: GET /streams
 * and POST /register format the realm's 1,000 channels on every request, and walking their group
 * settings again each time cost ~0.3 ms of each.
 */
const rowFacts = new WeakMap<readonly Stream[], ChannelRowFacts>();

function channelRowFacts(streams: readonly Stream[]): ChannelRowFacts {
  const known = rowFacts.get(streams);
  if (known) return known;
  const groupIds = new Set<number>();
  for (const s of streams) {
    for (const name of CHANNEL_GROUP_SETTING_NAMES) groupIds.add(s[CHANNEL_GROUP_SETTINGS[name].property]);
  }
  const facts: ChannelRowFacts = {
    recipientIds: streams.map((s) => s.recipientId).filter((id): id is number => id !== null),
    groupIds: [...groupIds],
    recipientOf: new Map(streams.map((s) => [s.id, s.recipientId])),
  };
  // Only a frozen array (and frozen rows: the listing cache freezes both) cannot change under us.
  if (Object.isFrozen(streams)) rowFacts.set(streams, facts);
  return facts;
}
