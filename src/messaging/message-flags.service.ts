import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
import { flagsAddedEvent, flagsRemovedEvent, type UnreadMessageDetails } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { DEFAULT_HISTORICAL_FLAGS, Flag, type FlagName, flagEditError } from './flags';
import { hasChannelContentAccess, isGuest } from './message-access.policy';
import { AccessedMessage, MessageAccessService } from './message-access.service';
import { MessageFetchRepository } from './message-fetch.repository';
import { MessageFetchService, parseAnchor } from './message-fetch.service';
import { Limits } from '../common/limits';
import { MessageFlagsRepository } from './message-flags.repository';
import { hasNul, topicForClient } from './message-text';
import { MessagesRepository } from './messages.repository';
import { ChannelErrors, TopicErrors } from '../channels/channel.errors';
import { MessageErrors } from './message.errors';
import { PrincipalService } from '../users/principal.service';
import { DomainEventBus } from '../events/domain-event-bus';
import { UserMutedEvent } from '../users/users.domain-events';

/**
 * POST /messages/flags and the mark-as-read endpoints (Zulip's actions/message_flags.py).
 * Flags change with set-based statements; messages the caller may not access behave exactly
 * like messages that do not exist.
 */
export interface FlagsForNarrowInput {
  anchor: string;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  narrow: unknown;
  op: string;
  flag: string;
}

export interface FlagsForNarrowResult {
  processed_count: number;
  updated_count: number;
  first_processed_id: number | null;
  last_processed_id: number | null;
  found_oldest: boolean;
  found_newest: boolean;
  ignored_because_not_subscribed_channels?: number[];
}

@Injectable()
export class MessageFlagsService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly flags: MessageFlagsRepository,
    private readonly access: MessageAccessService,
    private readonly fetch: MessageFetchRepository,
    private readonly messages: MessagesRepository,
    private readonly events: EventsService,
    private readonly fetcher: MessageFetchService,
    private readonly principals: PrincipalService,
    private readonly bus: DomainEventBus,
  ) {}

  onModuleInit(): void {
    this.bus.subscribeInTransaction(UserMutedEvent, (e) => this.markMutedUserMessagesRead(e));
  }

  /** do_mark_muted_user_messages_as_read: the muted user's unread messages become read for the muter. */
  private async markMutedUserMessagesRead(e: UserMutedEvent): Promise<void> {
    const changed = await this.flags.markReadFromSender(e.userId, e.mutedUserId);
    if (changed.length > 0) this.events.sendOnCommit(e.realmId, flagsAddedEvent('read', changed), [e.userId]);
  }

  async updateFlags(
    auth: AuthContext,
    messageIds: number[],
    op: string,
    flag: string,
  ): Promise<{ messages: number[]; ignored_because_not_subscribed_channels?: number[] }> {
    return runInTransaction(this.dataSource, async () => {
      const { changed, ignoredChannels } = await this.changeFlags(auth, messageIds, op, flag);
      const result: { messages: number[]; ignored_because_not_subscribed_channels?: number[] } = { messages: changed };
      if (ignoredChannels) result.ignored_because_not_subscribed_channels = ignoredChannels;
      return result;
    });
  }

  /**
   * POST /messages/flags/narrow (Zulip's update_message_flags_for_narrow): the narrow's messages
   * around the anchor, at most MAX_MESSAGES_PER_UPDATE of them, selected as GET /messages does,
   * then changed as POST /messages/flags does. A constant number of statements whatever the
   * number of messages.
   */
  async updateFlagsForNarrow(auth: AuthContext, input: FlagsForNarrowInput): Promise<FlagsForNarrowResult> {
    const anchor = parseAnchor(input.anchor, false);
    if (input.numBefore > 0 && input.numAfter > 0 && !input.includeAnchor) {
      throw MessageErrors.anchorExcludedInside();
    }
    // Clamped so that num_before + num_after <= MAX_MESSAGES_PER_UPDATE, as Zulip does.
    const max = Limits.MAX_MESSAGES_PER_UPDATE;
    const numBefore = Math.min(input.numBefore, Math.max(max - input.numAfter, Math.floor(max / 2)));
    const numAfter = Math.min(input.numAfter, max - numBefore);
    return runInTransaction(this.dataSource, async () => {
      const window = await this.fetcher.narrowWindowIds(auth, input.narrow, anchor, {
        numBefore,
        numAfter,
        includeAnchor: input.includeAnchor,
      });
      const { changed, ignoredChannels } = await this.changeFlags(auth, window.ids, input.op, input.flag);
      const result: FlagsForNarrowResult = {
        processed_count: window.ids.length,
        updated_count: changed.length,
        first_processed_id: window.ids.length > 0 ? window.ids[0] : null,
        last_processed_id: window.ids.length > 0 ? window.ids[window.ids.length - 1] : null,
        found_oldest: window.foundOldest,
        found_newest: window.foundNewest,
      };
      if (ignoredChannels) result.ignored_because_not_subscribed_channels = ignoredChannels;
      return result;
    });
  }

  /**
   * Zulip's do_update_message_flags, inside the caller's transaction: validates the flag and
   * operation, changes the flag where it differs, sends the update_message_flags event. Returns
   * the ids changed and, when marking unread, the channels skipped for not being subscribed.
   */
  private async changeFlags(
    auth: AuthContext,
    messageIds: number[],
    op: string,
    flag: string,
  ): Promise<{ changed: number[]; ignoredChannels: number[] | null }> {
    const flagError = flagEditError(flag);
    if (flagError) throw Errors.badRequest(flagError);
    if (op !== 'add' && op !== 'remove') throw MessageErrors.invalidFlagOperation(op);
    const isAdding = op === 'add';
    const bit = Flag[flag as FlagName];
    const target = isAdding ? bit : 0;
    const readRemove = flag === 'read' && !isAdding;
    const { user, realm } = auth;

    const requested = [...new Set(messageIds)];
    const accessible = new Map(
      (await this.access.accessibleMessages(auth, requested, { withBodies: false })).map((a) => [a.message.id, a]),
    );
    let candidates = requested;
    const ignoredChannels = new Set<number>();
    if (readRemove) {
      // Unread messages exist only in channels the user is subscribed to.
      candidates = requested.filter((id) => {
        const a = accessible.get(id);
        if (a?.channel && !a.channel.subscribed) {
          ignoredChannels.add(a.channel.id);
          return false;
        }
        return true;
      });
    }
    const withRow: number[] = [];
    const historical: number[] = [];
    for (const id of candidates) {
      const a = accessible.get(id);
      const current = a?.userMessageFlags ?? DEFAULT_HISTORICAL_FLAGS;
      if ((current & bit) === target) continue;
      if (a && a.userMessageFlags !== null) withRow.push(id);
      else if (a) historical.push(id);
      // Without an accessible message there is nothing to change, unless the change would
      // need a historical row: then the request is invalid (as for a missing message).
      else throw MessageErrors.invalidMessages();
    }
    const historicalFlags = isAdding ? DEFAULT_HISTORICAL_FLAGS | bit : DEFAULT_HISTORICAL_FLAGS & ~bit;
    const changed = [
      ...(await this.flags.setFlag(user.id, withRow, bit, isAdding)),
      ...(await this.flags.insertHistorical(user.id, historical, historicalFlags)),
    ].sort((a, b) => a - b);

    if (readRemove) {
      const details = await this.messageDetails(
        auth,
        changed.map((id) => accessible.get(id)!),
      );
      const event = flagsRemovedEvent(flag, changed);
      this.events.sendOnCommit(realm.id, event, [user.id], (queue) => ({
        ...event,
        message_details: this.detailsForClient(details, queue.options.clientCapabilities.empty_topic_name === true),
      }));
    } else {
      const event = isAdding ? flagsAddedEvent(flag, changed) : flagsRemovedEvent(flag, changed);
      this.events.sendOnCommit(realm.id, event, [user.id]);
    }
    return { changed, ignoredChannels: readRemove ? [...ignoredChannels].sort((a, b) => a - b) : null };
  }

  /** Zulip's format_unread_message_details for messages just marked unread. */
  private async messageDetails(
    auth: AuthContext,
    accessed: AccessedMessage[],
  ): Promise<Map<number, UnreadMessageDetails>> {
    const { user } = auth;
    const unmuted = await this.flags.unmutedChannelMessageIds(
      user.id,
      accessed.filter((a) => a.message.isChannelMessage).map((a) => a.message.id),
    );
    const out = new Map<number, UnreadMessageDetails>();
    for (const a of accessed) {
      const m = a.message;
      const flags = a.userMessageFlags ?? 0;
      const mentioned =
        (flags & Flag.mentioned) !== 0 ||
        ((flags & (Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned)) !== 0 &&
          (!m.isChannelMessage || unmuted.has(m.id)));
      const details: UnreadMessageDetails = m.isChannelMessage
        ? { type: 'stream', stream_id: m.streamId!, topic: m.subject, unmuted_stream_msg: unmuted.has(m.id) }
        : { type: 'private', user_ids: (m.dmUserIds ?? []).filter((id) => id !== user.id) };
      if (mentioned) details.mentioned = true;
      out.set(m.id, details);
    }
    return out;
  }

  private detailsForClient(
    details: Map<number, UnreadMessageDetails>,
    allowEmptyTopicName: boolean,
  ): Record<string, UnreadMessageDetails> {
    const out: Record<string, UnreadMessageDetails> = {};
    for (const [id, d] of details) {
      out[String(id)] = d.type === 'stream' ? { ...d, topic: topicForClient(d.topic, allowEmptyTopicName) } : d;
    }
    return out;
  }

  /** POST /mark_all_as_read. */
  async markAllAsRead(auth: AuthContext): Promise<{ complete: boolean }> {
    const { user, realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      const excluded = await this.fetch.inaccessibleChannelRecipientIds(realm.id, user.id, isGuest(user));
      await this.flags.markAllRead(user.id, null, excluded);
      this.events.sendOnCommit(realm.id, flagsAddedEvent('read', [], true), [user.id]);
    });
    return { complete: true };
  }

  /** POST /mark_stream_as_read and /mark_topic_as_read. */
  async markChannelAsRead(auth: AuthContext, streamId: number, topic: string | null): Promise<void> {
    const { user, realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      const channel = await this.fetch.channelByOperand(realm.id, user.id, streamId);
      if (!channel) throw ChannelErrors.invalidId();
      const groups =
        !channel.subscribed && channel.inviteOnly && !isGuest(user) ? await this.principals.groupIdsOf(user.id) : null;
      if (!hasChannelContentAccess(user, channel, channel.subscribed, groups)) throw ChannelErrors.invalidId();
      if (topic && (hasNul(topic) || !(await this.flags.userHasMessageInTopic(user.id, channel.recipientId, topic)))) {
        throw TopicErrors.noSuchTopic(topic);
      }
      const changed = await this.flags.markAllRead(
        user.id,
        { recipientId: channel.recipientId, topic: topic || null },
        [],
      );
      if (changed.length > 0) {
        this.events.sendOnCommit(realm.id, flagsAddedEvent('read', changed), [user.id]);
      }
    });
  }
}
