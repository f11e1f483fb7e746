import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { ParamErrors } from '../common/errors/param.errors';
import { runInTransaction } from '../database/transaction';
import type { ReminderDict, ScheduledMessageDict } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { defaultReadBySender } from '../messaging/client-name';
import { Clock } from '../messaging/clock';
import { MessageAccessService } from '../messaging/message-access.service';
import { MessageSendService, type CheckedMessage, type SendMessageInput } from '../messaging/message-send.service';
import { normalizeTopicForSend, truncateTopic } from '../messaging/message-text';
import { MessageErrors } from '../messaging/message.errors';
import { RealmService } from '../realm/realm.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { reminderContent, type ReminderTarget } from './reminder-content';
import { DeliveryType, ScheduledMessage } from './scheduled-message.entity';
import { ScheduledMessageErrors } from './scheduled-message.errors';
import { ScheduledMessagesRepository } from './scheduled-messages.repository';

type RecipientTypeArg = 'direct' | 'private' | 'stream' | 'channel';

/** Python's datetime cannot go past year 9999; such timestamps are refused, not a 500. */
const MAX_TIMESTAMP = 253_402_300_799;

export function toTimestamp(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** The API's dict of a scheduled message (Zulip's ScheduledMessage.to_dict). */
export function scheduledMessageDict(row: ScheduledMessage): ScheduledMessageDict {
  const common = {
    scheduled_message_id: row.id,
    content: row.content,
    rendered_content: row.renderedContent,
    scheduled_delivery_timestamp: toTimestamp(row.scheduledTimestamp),
    failed: row.failed,
  };
  if (row.recipientType === 'stream') {
    return {
      scheduled_message_id: row.id,
      type: 'stream',
      to: row.streamId!,
      topic: row.subject,
      content: common.content,
      rendered_content: common.rendered_content,
      scheduled_delivery_timestamp: common.scheduled_delivery_timestamp,
      failed: common.failed,
    };
  }
  return {
    scheduled_message_id: row.id,
    type: 'private',
    to: row.toUserIds ?? [],
    content: common.content,
    rendered_content: common.rendered_content,
    scheduled_delivery_timestamp: common.scheduled_delivery_timestamp,
    failed: common.failed,
  };
}

/** The API's dict of a reminder (Zulip's ScheduledMessage.to_reminder_dict). */
export function reminderDict(row: ScheduledMessage): ReminderDict {
  return {
    reminder_id: row.id,
    type: 'private',
    to: row.toUserIds ?? [],
    content: row.content,
    rendered_content: row.renderedContent,
    scheduled_delivery_timestamp: toTimestamp(row.scheduledTimestamp),
    failed: row.failed,
    reminder_target_message_id: row.reminderTargetMessageId!,
  };
}

/** PATCH /scheduled_messages/{id}'s parameters. */
export interface ScheduledMessageEditArgs {
  type?: RecipientTypeArg;
  to?: string;
  topic?: string;
  content?: string;
  scheduledDeliveryTimestamp?: number;
}

/** A parsed edit: the stored type when `type` was given, the delivery time when one was. */
interface ScheduledMessageEdit {
  newType: 'stream' | 'private' | undefined;
  to: string | undefined;
  topic: string | undefined;
  content: string | undefined;
  deliverAt: Date | undefined;
}

/** `stream`/`private`, Zulip's stored names for the API's four type words. */
function storedType(type: RecipientTypeArg): 'stream' | 'private' {
  return type === 'stream' || type === 'channel' ? 'stream' : 'private';
}

/** Zulip's extract_stream_id: Python's int() of the text. */
export function extractChannelId(to: string): number {
  const text = to.trim().replace(/(\d)_(?=\d)/g, '$1');
  if (!/^[+-]?\d+$/.test(text)) throw ScheduledMessageErrors.invalidChannelId();
  return Number(text);
}

/** Zulip's extract_direct_message_recipient_ids: a JSON list of integers, deduplicated. */
export function extractUserIds(to: string): number[] {
  let data: unknown;
  try {
    data = JSON.parse(to);
  } catch {
    data = to;
  }
  if (!Array.isArray(data)) throw MessageErrors.invalidRecipientsDataType();
  for (const item of data) {
    if (typeof item !== 'number' || !Number.isInteger(item)) throw ScheduledMessageErrors.onlyUserIds();
  }
  return [...new Set(data as number[])];
}

/**
 * Scheduled messages and reminders (Zulip's zerver/actions/scheduled_messages.py and
 * reminders.py): each is checked by the send path's own checks when it is scheduled or edited
 * (MessageSendService.checkMessage), stored, and announced to the sender's clients.
 * ScheduledDeliveryService sends them when they fall due.
 */
@Injectable()
export class ScheduledMessagesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repo: ScheduledMessagesRepository,
    private readonly sender: MessageSendService,
    private readonly access: MessageAccessService,
    private readonly directory: UserDirectoryService,
    private readonly realms: RealmService,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  /** A delivery time from the API: in the future (by the injectable clock), or refused. */
  deliveryTime(timestamp: number): Date {
    // Compared as numbers first: a timestamp far in the past is no valid Date.
    if (timestamp * 1000 <= this.clock.now().getTime()) throw ScheduledMessageErrors.notInFuture();
    if (timestamp > MAX_TIMESTAMP) throw ParamErrors.invalid('scheduled_delivery_timestamp');
    return new Date(timestamp * 1000);
  }

  async list(auth: AuthContext): Promise<ScheduledMessageDict[]> {
    return (await this.repo.undelivered(auth.user.id, DeliveryType.SEND_LATER)).map(scheduledMessageDict);
  }

  async listReminders(auth: AuthContext): Promise<ReminderDict[]> {
    return (await this.repo.undelivered(auth.user.id, DeliveryType.REMIND)).map(reminderDict);
  }

  /** /register's `scheduled_messages` and `reminders`. */
  async stateFor(userId: number): Promise<{ scheduled: ScheduledMessageDict[]; reminders: ReminderDict[] }> {
    const rows = await this.repo.allUndelivered(userId);
    return {
      scheduled: rows.filter((r) => r.deliveryType === DeliveryType.SEND_LATER).map(scheduledMessageDict),
      reminders: rows.filter((r) => r.deliveryType === DeliveryType.REMIND).map(reminderDict),
    };
  }

  private check(
    auth: AuthContext,
    type: 'stream' | 'private',
    to: number | number[],
    topic: string | undefined,
    content: string,
    clientName: string,
  ): Promise<CheckedMessage> {
    const input: SendMessageInput = {
      type,
      to: JSON.stringify(to),
      topic,
      content,
      queueId: undefined,
      localId: undefined,
      readBySender: undefined,
      clientName,
    };
    return this.sender.checkMessage(auth, input);
  }

  /** POST /scheduled_messages (create_scheduled_message_backend → check_schedule_message). */
  async create(
    auth: AuthContext,
    args: {
      type: RecipientTypeArg;
      to: string;
      topic?: string;
      content: string;
      scheduledDeliveryTimestamp: number;
      readBySender?: boolean;
    },
    clientName: string,
  ): Promise<number> {
    const type = storedType(args.type);
    const deliverAt = this.deliveryTime(args.scheduledDeliveryTimestamp);
    const to = type === 'stream' ? extractChannelId(args.to) : extractUserIds(args.to);
    return runInTransaction(this.dataSource, async () => {
      const checked = await this.check(auth, type, to, args.topic, args.content, clientName);
      const toSelf = checked.toUserIds?.length === 1 && checked.toUserIds[0] === auth.user.id;
      const row = {
        realmId: auth.realm.id,
        senderId: auth.user.id,
        deliveryType: DeliveryType.SEND_LATER,
        recipientType: checked.recipientType,
        streamId: checked.streamId,
        toUserIds: checked.toUserIds,
        subject: checked.topic,
        content: checked.content,
        renderedContent: checked.renderedContent,
        sendingClient: clientName,
        scheduledTimestamp: deliverAt,
        readBySender: args.readBySender ?? (defaultReadBySender(clientName) && !toSelf),
        reminderTargetMessageId: null,
        reminderNote: null,
      };
      const id = await this.repo.insert(row);
      const stored = Object.assign(new ScheduledMessage(), row, {
        id,
        delivered: false,
        deliveredMessageId: null,
        failed: false,
        failureMessage: null,
      });
      this.events.sendOnCommit(
        auth.realm.id,
        { type: 'scheduled_messages', op: 'add', scheduled_messages: [scheduledMessageDict(stored)] },
        [auth.user.id],
      );
      return id;
    });
  }

  /** PATCH /scheduled_messages/{id} (update_scheduled_message_backend → edit_scheduled_message). */
  async edit(auth: AuthContext, id: number, args: ScheduledMessageEditArgs, clientName: string): Promise<void> {
    const request = this.parseEdit(args);
    await runInTransaction(this.dataSource, async () => {
      // Locked: a delivery in progress commits first, and we then see it delivered.
      const row = await this.repo.own(auth.user.id, id, DeliveryType.SEND_LATER, true);
      if (!row) throw ScheduledMessageErrors.doesNotExist();
      if (row.delivered) throw ScheduledMessageErrors.alreadySent();
      if (row.failed && request.deliverAt === undefined) throw ScheduledMessageErrors.notInFuture();
      await this.applyEdit(auth, row, request, clientName);
      if (request.deliverAt !== undefined) row.scheduledTimestamp = request.deliverAt;
      row.sendingClient = clientName;
      row.failed = false;
      row.failureMessage = null;
      await this.repo.save(row);
      this.events.sendOnCommit(
        auth.realm.id,
        { type: 'scheduled_messages', op: 'update', scheduled_message: scheduledMessageDict(row) },
        [auth.user.id],
      );
    });
  }

  /** The edit's parameters, checked before the row is loaded. */
  private parseEdit(args: ScheduledMessageEditArgs): ScheduledMessageEdit {
    const { type: typeArg, to, topic, content, scheduledDeliveryTimestamp } = args;
    if (
      typeArg === undefined &&
      to === undefined &&
      topic === undefined &&
      content === undefined &&
      scheduledDeliveryTimestamp === undefined
    ) {
      throw MessageErrors.nothingToChange();
    }
    let newType: 'stream' | 'private' | undefined;
    if (typeArg) {
      if (to === undefined) throw ScheduledMessageErrors.recipientRequired();
      newType = storedType(typeArg);
    }
    if (newType === 'stream' && topic === undefined) throw ScheduledMessageErrors.topicRequired();
    const deliverAt =
      scheduledDeliveryTimestamp === undefined ? undefined : this.deliveryTime(scheduledDeliveryTimestamp);
    return { newType, to, topic, content, deliverAt };
  }

  /** The new addressee, topic and content, through the send path's checks, onto the row. */
  private async applyEdit(
    auth: AuthContext,
    row: ScheduledMessage,
    edit: ScheduledMessageEdit,
    clientName: string,
  ): Promise<void> {
    const { newType, to, topic, content } = edit;
    const existingType = row.recipientType as 'stream' | 'private';
    if (newType === undefined && to === undefined && content === undefined) {
      // Only the topic: Zulip checks the topic alone (direct messages ignore it).
      if (topic !== undefined && existingType === 'stream') row.subject = truncateTopic(normalizeTopicForSend(topic));
      return;
    }
    const type = newType ?? existingType;
    const recipients =
      to !== undefined
        ? type === 'stream'
          ? extractChannelId(to)
          : extractUserIds(to)
        : existingType === 'stream'
          ? row.streamId!
          : row.toUserIds!;
    const checked = await this.check(auth, type, recipients, topic ?? row.subject, content ?? row.content, clientName);
    if (newType !== undefined || to !== undefined) {
      row.recipientType = checked.recipientType;
      row.streamId = checked.streamId;
      row.toUserIds = checked.toUserIds;
      row.subject = checked.topic;
    } else if (topic !== undefined && existingType === 'stream') {
      row.subject = checked.topic;
    }
    if (content !== undefined) {
      row.content = checked.content;
      row.renderedContent = checked.renderedContent;
    }
  }

  /** DELETE /scheduled_messages/{id}. */
  async delete(auth: AuthContext, id: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const row = await this.repo.own(auth.user.id, id, DeliveryType.SEND_LATER, true);
      if (!row) throw ScheduledMessageErrors.doesNotExist();
      await this.repo.delete(row.id);
      this.events.sendOnCommit(
        auth.realm.id,
        { type: 'scheduled_messages', op: 'remove', scheduled_message_id: row.id },
        [auth.user.id],
      );
    });
  }

  /** What a reminder's text needs about a message the user may access (else `Invalid message(s)`). */
  async reminderTarget(auth: AuthContext, messageId: number): Promise<ReminderTarget> {
    const { message } = await this.access.accessMessage(auth, messageId, { isModifying: false });
    const ids = [message.senderId, ...(message.dmUserIds ?? [])];
    const people = new Map(
      (await this.directory.usersByIds(auth.realm.id, ids)).map((u) => [u.id, { id: u.id, fullName: u.fullName }]),
    );
    const person = (id: number) => people.get(id) ?? { id, fullName: '' };
    return {
      id: message.id,
      content: message.content,
      sender: person(message.senderId),
      channel: message.isChannelMessage
        ? { id: message.streamId!, name: message.streamName!, topic: message.subject }
        : null,
      participants: message.dmUserIds ? message.dmUserIds.map(person) : null,
    };
  }

  /** The reminder's text as of now, for the user (throws when the message is out of reach). */
  async reminderText(auth: AuthContext, messageId: number, note: string | null): Promise<string> {
    const target = await this.reminderTarget(auth, messageId);
    return reminderContent(this.realms.realmUrl(auth.realm), target, note);
  }

  /** POST /reminders (create_reminders_message_backend → schedule_reminder_for_message). */
  async createReminder(
    auth: AuthContext,
    args: { messageId: number; scheduledDeliveryTimestamp: number; note?: string },
    clientName: string,
  ): Promise<number> {
    const deliverAt = this.deliveryTime(args.scheduledDeliveryTimestamp);
    return runInTransaction(this.dataSource, async () => {
      const text = await this.reminderText(auth, args.messageId, args.note ?? null);
      // The sender writing to themself: the send path's checks (Notification Bot delivers it).
      const checked = await this.check(auth, 'private', [auth.user.id], undefined, text, clientName);
      const row = {
        realmId: auth.realm.id,
        senderId: auth.user.id,
        deliveryType: DeliveryType.REMIND,
        recipientType: 'private',
        streamId: null,
        toUserIds: [auth.user.id],
        subject: '',
        content: checked.content,
        renderedContent: checked.renderedContent,
        sendingClient: clientName,
        scheduledTimestamp: deliverAt,
        readBySender: false,
        reminderTargetMessageId: args.messageId,
        reminderNote: args.note ?? null,
      };
      const id = await this.repo.insert(row);
      const stored = Object.assign(new ScheduledMessage(), row, {
        id,
        delivered: false,
        deliveredMessageId: null,
        failed: false,
        failureMessage: null,
      });
      this.events.sendOnCommit(auth.realm.id, { type: 'reminders', op: 'add', reminders: [reminderDict(stored)] }, [
        auth.user.id,
      ]);
      return id;
    });
  }

  /** DELETE /reminders/{id}. */
  async deleteReminder(auth: AuthContext, id: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const row = await this.repo.own(auth.user.id, id, DeliveryType.REMIND, true);
      if (!row) throw ScheduledMessageErrors.reminderDoesNotExist();
      await this.repo.delete(row.id);
      this.events.sendOnCommit(auth.realm.id, { type: 'reminders', op: 'remove', reminder_id: row.id }, [auth.user.id]);
    });
  }
}
