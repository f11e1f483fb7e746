import { Injectable } from '@nestjs/common';
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
import { MessageFlagsRepository } from './message-flags.repository';
import { hasNul, topicForClient } from './message-text';
import { MessagesRepository } from './messages.repository';
import { ChannelErrors, TopicErrors } from '../channels/channel.errors';
import { MessageErrors } from './message.errors';
import { PrincipalService } from '../users/principal.service';

/**
 * POST /messages/flags and the mark-as-read endpoints (Zulip's actions/message_flags.py).
 * Flags change with set-based statements; messages the caller may not access behave exactly
 * like messages that do not exist.
 */
@Injectable()
export class MessageFlagsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly flags: MessageFlagsRepository,
    private readonly access: MessageAccessService,
    private readonly fetch: MessageFetchRepository,
    private readonly messages: MessagesRepository,
    private readonly events: EventsService,
    private readonly principals: PrincipalService,
  ) {}

  async updateFlags(
    auth: AuthContext,
    messageIds: number[],
    op: string,
    flag: string,
  ): Promise<{ messages: number[]; ignored_because_not_subscribed_channels?: number[] }> {
    const flagError = flagEditError(flag);
    if (flagError) throw Errors.badRequest(flagError);
    if (op !== 'add' && op !== 'remove') throw MessageErrors.invalidFlagOperation(op);
    const isAdding = op === 'add';
    const bit = Flag[flag as FlagName];
    const target = isAdding ? bit : 0;
    const readRemove = flag === 'read' && !isAdding;
    const { user, realm } = auth;

    return runInTransaction(this.dataSource, async () => {
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
      const result: { messages: number[]; ignored_because_not_subscribed_channels?: number[] } = { messages: changed };
      if (readRemove) result.ignored_because_not_subscribed_channels = [...ignoredChannels].sort((a, b) => a - b);
      return result;
    });
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
