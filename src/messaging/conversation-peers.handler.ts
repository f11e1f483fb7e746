import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainEventBus } from '../events/domain-event-bus';
import { ConversationPeerPairsRequestedEvent, ConversationPeersRequestedEvent } from '../users/users.domain-events';
import { MessagesRepository } from './messages.repository';

/**
 * Answers users' question "who shares a conversation with this user?" (can_access_all_users_group,
 * users/user-access.service.ts): messaging owns direct-message groups, so the one query lives here.
 */
@Injectable()
export class ConversationPeersHandler implements OnModuleInit {
  constructor(
    private readonly bus: DomainEventBus,
    private readonly messages: MessagesRepository,
  ) {}

  onModuleInit(): void {
    this.bus.subscribeInTransaction(ConversationPeersRequestedEvent, async (e) => {
      const peers = await this.messages.conversationPeers(e.userId, e.among);
      for (const id of peers.channel) e.channelPeers.add(id);
      for (const id of peers.direct) e.directPeers.add(id);
    });
    // The channel half of the batch form is answered by channels (subscriptions).
    this.bus.subscribeInTransaction(ConversationPeerPairsRequestedEvent, async (e) => {
      for (const pair of await this.messages.directPeerPairs(e.userIds, e.among)) {
        const set = e.directPeers.get(pair.userId);
        if (set) set.add(pair.peerId);
        else e.directPeers.set(pair.userId, new Set([pair.peerId]));
      }
    });
  }
}
