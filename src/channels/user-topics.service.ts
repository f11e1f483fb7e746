import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Limits } from '../common/limits';
import { runInTransaction } from '../database/transaction';
import type { Stream } from './channel.entity';
import { ChannelAccessService } from './channel-access.service';
import { ChannelEvents } from './channel-events';
import { normalizeTopicPlaceholder } from './channels.policy';
import { ChannelsRepository } from './channels.repository';
import { VisibilityPolicy } from './user-topic.entity';
import { UserTopicsRepository } from './user-topics.repository';
import { ChannelErrors, TopicErrors } from './channel.errors';

export type ChannelRef = { id: number } | { name: string };

/** Topic visibility policies (zerver/views/user_topics.py, zerver/actions/user_topics.py). */
@Injectable()
export class UserTopicsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly channels: ChannelsRepository,
    private readonly access: ChannelAccessService,
    private readonly userTopics: UserTopicsRepository,
    private readonly events: ChannelEvents,
  ) {}

  /**
   * Sets a user's visibility policy for a topic without events (the caller sends them: messaging,
   * after a send changed the sender's policy automatically). Returns whether anything changed.
   * Must run inside the caller's transaction.
   */
  setVisibilityPolicy(p: {
    userId: number;
    streamId: number;
    recipientId: number;
    topicName: string;
    policy: number;
    at: Date;
  }): Promise<boolean> {
    return this.userTopics.setPolicy(p);
  }

  /** PATCH /users/me/subscriptions/muted_topics */
  async muteTopic(auth: AuthContext, channel: ChannelRef, topic: string, op: 'add' | 'remove'): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      let stream: Stream;
      if (op === 'add') {
        const actor = await this.access.actorFor(auth.user);
        stream = (
          'id' in channel
            ? await this.access.accessById(actor, auth.realm.id, channel.id)
            : await this.access.accessByName(actor, auth.realm.id, channel.name)
        ).stream;
      } else {
        // Unmuting needs no access to the channel: only that the user could have muted it.
        const found =
          'id' in channel
            ? await this.channels.findByIdInRealm(auth.realm.id, channel.id)
            : await this.channels.findByNameInRealm(auth.realm.id, channel.name);
        if (!found) throw TopicErrors.notMuted();
        stream = found;
      }
      await this.set(auth, stream, topic, op === 'add' ? VisibilityPolicy.MUTED : VisibilityPolicy.INHERIT);
    });
  }

  /** POST /user_topics */
  async updateUserTopic(auth: AuthContext, streamId: number, topic: string, policy: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      let stream: Stream;
      if (policy === VisibilityPolicy.INHERIT) {
        const found = await this.channels.findByIdInRealm(auth.realm.id, streamId);
        if (!found) throw ChannelErrors.invalidId();
        stream = found;
      } else {
        const actor = await this.access.actorFor(auth.user);
        stream = (await this.access.accessById(actor, auth.realm.id, streamId)).stream;
      }
      await this.set(auth, stream, topic, policy);
    });
  }

  private async set(auth: AuthContext, stream: Stream, rawTopic: string, policy: number): Promise<void> {
    const topicName = normalizeTopicPlaceholder(rawTopic, Limits.EMPTY_TOPIC_DISPLAY_NAME);
    const at = new Date();
    const changed = await this.userTopics.setPolicy({
      userId: auth.user.id,
      streamId: stream.id,
      recipientId: stream.recipientId!,
      topicName,
      policy,
      at,
    });
    if (changed) {
      // The deprecated muted_topics event comes first, with the whole legacy list (Zulip's
      // do_set_user_topic_visibility_policy); queues that registered for user_topic skip it.
      const muted = await this.userTopics.mutedTopicsForUser(auth.user.id);
      this.events.mutedTopics(
        auth.realm.id,
        auth.user.id,
        muted.map((m) => [m.streamName, m.topicName, Math.floor(m.lastUpdated.getTime() / 1000)]),
      );
      this.events.userTopic(auth.realm.id, auth.user.id, {
        streamId: stream.id,
        topicName,
        lastUpdated: at,
        visibilityPolicy: policy,
      });
    }
  }

  /** Users who have a visibility policy for the topic. */
  usersWithTopicPolicy(streamId: number, topicName: string): Promise<number[]> {
    return this.userTopics.usersWithPolicy(streamId, topicName);
  }

  /**
   * A deleted topic's policies go (the topic no longer exists), except for `keepUserIds` (who can
   * still see messages of it); each user whose policy went gets Zulip's events. Runs in the
   * caller's transaction (events after its commit).
   */
  async clearDeletedTopic(realmId: number, stream: Stream, topicName: string, keepUserIds: readonly number[]) {
    const cleared = await this.userTopics.clearTopic(stream.id, topicName, keepUserIds);
    if (cleared.length === 0) return;
    const mutedWent = cleared.filter((c) => c.wasMuted).map((c) => c.userId);
    const muted = mutedWent.length > 0 ? await this.userTopics.mutedTopicsForUsers(mutedWent) : new Map();
    const at = new Date();
    for (const { userId, wasMuted } of cleared) {
      if (wasMuted) {
        const list = (muted.get(userId) ?? []) as Array<{ streamName: string; topicName: string; lastUpdated: Date }>;
        this.events.mutedTopics(
          realmId,
          userId,
          list.map((m) => [m.streamName, m.topicName, Math.floor(m.lastUpdated.getTime() / 1000)]),
        );
      }
      this.events.userTopic(realmId, userId, {
        streamId: stream.id,
        topicName,
        lastUpdated: at,
        visibilityPolicy: VisibilityPolicy.INHERIT,
      });
    }
  }
}
