import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Limits } from '../common/limits';
import { runInTransaction } from '../database/transaction';
import { ChannelAccessService } from '../channels/channel-access.service';
import { normalizeTopicPlaceholder } from '../channels/channels.policy';
import { UserTopicsService } from '../channels/user-topics.service';
import { Clock } from './clock';
import { MessageDeleteRepository } from './message-delete.repository';
import { MessageDeletion } from './message-deletion';

/**
 * POST /streams/{stream_id}/delete_topic (Zulip's delete_in_topic): an administrator deletes the
 * messages of a topic they can see, newest first, in batches that each commit on their own, so
 * that a topic too large for one request is deleted by repeating it (`complete: false` when the
 * time budget ran out). Once the topic is gone, its visibility policies go too.
 */
@Injectable()
export class TopicDeleteService {
  /** Messages per transaction (Zulip's retention STREAM_MESSAGE_BATCH_SIZE). */
  batchSize = 1000;
  /** How long one request keeps deleting before it answers `complete: false`. */
  timeBudgetMs = 50_000;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: ChannelAccessService,
    private readonly repo: MessageDeleteRepository,
    private readonly deletion: MessageDeletion,
    private readonly userTopics: UserTopicsService,
    private readonly clock: Clock,
  ) {}

  async deleteTopic(auth: AuthContext, streamId: number, rawTopic: string): Promise<{ complete: boolean }> {
    const actor = await this.access.actorFor(auth.user);
    const { stream } = await this.access.accessById(actor, auth.realm.id, streamId);
    const topic = normalizeTopicPlaceholder(rawTopic, Limits.EMPTY_TOPIC_DISPLAY_NAME);
    const channel = { id: stream.id, recipientId: stream.recipientId! };
    // Protected history: only the messages the administrator received (bulk_access_stream_messages_query).
    const viewerId = stream.historyPublicToSubscribers ? null : auth.user.id;
    const deadline = this.clock.now().getTime() + this.timeBudgetMs;

    for (;;) {
      if (this.clock.now().getTime() >= deadline) return { complete: false };
      const deletedAny = await runInTransaction(this.dataSource, async () => {
        const rows = await this.repo.topicBatchForDelete(auth.realm.id, channel, topic, viewerId, this.batchSize);
        if (rows.length === 0) return false;
        const ids = rows.map((r) => r.id);
        const audience = new Set([
          ...(await this.repo.usersWithRows(ids)),
          ...(await this.access.subscriberIds(stream)),
        ]);
        await this.deletion.deleteRows(auth.realm, rows, [...audience]);
        return true;
      });
      if (!deletedAny) break;
    }

    await runInTransaction(this.dataSource, async () => {
      let keep: number[] = [];
      if (!stream.historyPublicToSubscribers) {
        // Who still has messages of the topic (ones the administrator never received) keeps their policy.
        const withPolicy = await this.userTopics.usersWithTopicPolicy(stream.id, topic);
        keep = await this.repo.usersWithRowsInTopic(withPolicy, channel.recipientId, topic);
      }
      await this.userTopics.clearDeletedTopic(auth.realm.id, stream, topic, keep);
    });
    return { complete: true };
  }
}
