import { Injectable } from '@nestjs/common';
import { Limits } from '../common/limits';
import {
  type ChannelFolderUpdateEvent,
  type ClientEvent,
  mutedTopicsEvent,
  realmUpdateDictEvent,
  type StreamUpdateEvent,
  streamDeleteEvent,
  streamUpdateEvent,
  type SubscriptionUpdateEvent,
  userTopicEvent,
} from '../events/client-events';
import { EventsService } from '../events/events.service';
import type { ChannelDict } from './channel-format';
import type { PeerEvent } from './channel-audiences';

/** A channel property's new value in a `stream` update. */
export type StreamUpdateValue = StreamUpdateEvent['value'];

/** The fields a `stream` update carries beside the property (description, privacy changes). */
export type StreamUpdateExtra = Pick<
  StreamUpdateEvent,
  'rendered_description' | 'history_public_to_subscribers' | 'is_web_public'
>;

/**
 * The client events channels send (zerver/actions/streams.py), queued with sendOnCommit so they
 * reach queues only after the transaction commits. Shapes: events/client-events.ts.
 */
@Injectable()
export class ChannelEvents {
  constructor(private readonly events: EventsService) {}

  private send(realmId: number, event: ClientEvent, userIds: Iterable<number>): void {
    const recipients = [...userIds];
    if (recipients.length > 0) this.events.sendOnCommit(realmId, event, recipients);
  }

  streamCreate(realmId: number, streams: ChannelDict[], userIds: Iterable<number>): void {
    this.send(realmId, { type: 'stream', op: 'create', streams }, userIds);
  }

  streamDelete(realmId: number, streamIds: number[], userIds: Iterable<number>): void {
    this.send(realmId, streamDeleteEvent(streamIds), userIds);
  }

  streamUpdate(
    realmId: number,
    stream: { id: number; name: string },
    property: string,
    value: StreamUpdateValue,
    userIds: Iterable<number>,
    extra: StreamUpdateExtra = {},
  ): void {
    this.send(realmId, streamUpdateEvent(stream, property, value, extra), userIds);
  }

  /**
   * Archiving and unarchiving: clients that declared the `archived_channels` capability get a
   * stream update of `is_archived`; the others see the channel disappear (delete) or appear
   * (create), as Zulip's event queue does since feature level 378.
   */
  archivedStateChange(
    realmId: number,
    stream: { id: number; name: string },
    archived: boolean,
    createDict: ChannelDict | null,
    userIds: Iterable<number>,
  ): void {
    const recipients = [...userIds];
    if (recipients.length === 0) return;
    const update = streamUpdateEvent(stream, 'is_archived', archived);
    const legacy: ClientEvent | null = archived
      ? streamDeleteEvent([stream.id])
      : createDict
        ? { type: 'stream', op: 'create', streams: [createDict] }
        : null;
    this.events.sendOnCommit(realmId, update, recipients, (queue) =>
      queue.options.clientCapabilities.archived_channels === true || !legacy ? update : legacy,
    );
  }

  subscriptionAdd(realmId: number, userId: number, subscriptions: ChannelDict[]): void {
    this.send(realmId, { type: 'subscription', op: 'add', subscriptions }, [userId]);
  }

  subscriptionRemove(realmId: number, userId: number, streams: Array<{ id: number; name: string }>): void {
    this.send(
      realmId,
      { type: 'subscription', op: 'remove', subscriptions: streams.map((s) => ({ name: s.name, stream_id: s.id })) },
      [userId],
    );
  }

  subscriptionUpdate(
    realmId: number,
    userId: number,
    streamId: number,
    property: string,
    value: SubscriptionUpdateEvent['value'],
  ): void {
    this.send(realmId, { type: 'subscription', op: 'update', stream_id: streamId, property, value }, [userId]);
  }

  peer(realmId: number, op: 'peer_add' | 'peer_remove', events: PeerEvent[]): void {
    for (const e of events) {
      this.send(realmId, { type: 'subscription', op, stream_ids: e.streamIds, user_ids: e.userIds }, e.recipients);
    }
  }

  defaultStreams(realmId: number, streamIds: number[], userIds: Iterable<number>): void {
    this.send(realmId, { type: 'default_streams', default_streams: streamIds }, userIds);
  }

  realmUpdateDict(realmId: number, data: Record<string, unknown>, userIds: Iterable<number>): void {
    this.send(realmId, realmUpdateDictEvent(data), userIds);
  }

  /** The legacy muted_topics event: [channel name, topic, muted at] for every muted topic. */
  mutedTopics(realmId: number, userId: number, mutedTopics: Array<[string, string, number]>): void {
    this.send(realmId, mutedTopicsEvent(mutedTopics), [userId]);
  }

  userTopic(
    realmId: number,
    userId: number,
    e: { streamId: number; topicName: string; lastUpdated: Date; visibilityPolicy: number },
  ): void {
    const event = userTopicEvent(e);
    // Clients without the empty_topic_name capability see the empty topic's display name.
    this.events.sendOnCommit(realmId, event, [userId], (queue) =>
      e.topicName === '' && queue.options.clientCapabilities.empty_topic_name !== true
        ? { ...event, topic_name: Limits.EMPTY_TOPIC_DISPLAY_NAME }
        : event,
    );
  }

  channelFolderAdd(realmId: number, folder: Record<string, unknown>, userIds: Iterable<number>): void {
    this.send(realmId, { type: 'channel_folder', op: 'add', channel_folder: folder }, userIds);
  }

  channelFolderUpdate(
    realmId: number,
    folderId: number,
    data: ChannelFolderUpdateEvent['data'],
    userIds: Iterable<number>,
  ): void {
    this.send(realmId, { type: 'channel_folder', op: 'update', channel_folder_id: folderId, data }, userIds);
  }

  channelFolderReorder(realmId: number, order: number[], userIds: Iterable<number>): void {
    this.send(realmId, { type: 'channel_folder', op: 'reorder', order }, userIds);
  }
}
