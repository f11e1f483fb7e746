import { Injectable } from '@nestjs/common';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import { UserDirectoryService } from '../users/user-directory.service';
import type { PushSettings } from './notifiability';

/** What the notifiability decision needs about one recipient of a message. */
export interface RecipientPushRow {
  userId: number;
  isBot: boolean;
  settings: PushSettings;
  subscription: { isMuted: boolean; pushNotifications: boolean | null; wildcardMentionsNotify: boolean | null } | null;
  topicVisibility: number;
}

/**
 * What the notifiability decision needs about each recipient, from the modules that own it: the
 * user's push settings (users) and, for a channel message, their subscription's settings and
 * topic visibility (channels). Two queries for any number of recipients.
 */
@Injectable()
export class PushRecipientsRepository {
  constructor(
    private readonly directory: UserDirectoryService,
    private readonly channelQueries: ChannelQueriesService,
  ) {}

  async load(
    userIds: readonly number[],
    channel: { recipientId: number; streamId: number; topic: string } | null,
  ): Promise<RecipientPushRow[]> {
    const users = await this.directory.pushSettingsOf([...userIds]);
    if (users.length === 0) return [];
    const state = channel
      ? await this.channelQueries.notificationStateOf(
          users.map((u) => u.userId),
          channel,
        )
      : null;
    return users.map((u) => ({
      userId: u.userId,
      isBot: u.isBot,
      settings: u.settings,
      subscription: state?.get(u.userId)?.subscription ?? null,
      topicVisibility: state?.get(u.userId)?.topicVisibility ?? 0,
    }));
  }
}
