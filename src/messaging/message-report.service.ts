import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Limits } from '../common/limits';
import { runInTransaction } from '../database/transaction';
import { RealmService } from '../realm/realm.service';
/** Zulip's settings.NOTIFICATION_BOT. */
const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
import { TopicsPolicy } from '../channels/channel-settings';
import { MessageAccessService } from './message-access.service';
import { silentMention } from './message-edit.policy';
import { MessageEditRepository } from './message-edit.repository';
import { MessageSendService } from './message-send.service';
import { CONTENT_TRUNCATION_SUFFIX, pyStrip, truncateContent } from './message-text';
import { MessagesRepository } from './messages.repository';
import { REPORT_TYPES } from './dto/message-edit.dto';
import { MessageErrors } from './message.errors';

/** Realm.REPORT_MESSAGE_REASONS. */
export const REPORT_REASONS: Record<(typeof REPORT_TYPES)[number], string> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
};

/** MAX_REPORT_MESSAGE_SNIPPET_LENGTH. */
const SNIPPET_LENGTH = Limits.MAX_MESSAGE_LENGTH - Limits.MAX_REPORT_DESCRIPTION_LENGTH - 500;

/** Zulip's get_unused_fence: a backtick fence longer than any in the content. */
export function unusedFence(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, m[1].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** datetime_to_global_time: `<time:ISO>`. */
export function globalTime(date: Date): string {
  return `<time:${date.toISOString().replace(/\.\d{3}Z$/, '+00:00')}>`;
}

export interface ReportPerson {
  id: number;
  fullName: string;
}

/** The moderation notice text (zerver/lib/message_report.py send_message_report). */
export function reportText(args: {
  reporter: ReportPerson;
  sender: ReportPerson;
  /** Other participants of a direct message (not the sender); null for channel messages. */
  dmOthers: ReportPerson[] | null;
  channel: { id: number; name: string; topic: string } | null;
  messageId: number;
  dateSent: Date;
  content: string;
  reportType: (typeof REPORT_TYPES)[number];
  description: string;
  directMessageLink: string;
}): string {
  const reporting = silentMention(args.reporter);
  const reported = silentMention(args.sender);
  const when = globalTime(args.dateSent);
  let header: string;
  let original: string;
  if (args.channel) {
    header = `${reporting} reported a message sent by ${reported} at ${when}.`;
    original = `Original message at #**${args.channel.name}>${args.channel.topic}@${args.messageId}**`;
  } else {
    const others = args.dmOthers ?? [];
    if (others.length <= 1) {
      if (args.sender.id !== args.reporter.id) {
        header = `${reporting} reported a direct message sent by ${reported} at ${when}.`;
      } else {
        const to = others.length === 1 ? silentMention(others[0]) : reporting;
        header = `${reporting} reported a direct message sent by ${reported} to ${to} at ${when}.`;
      }
    } else {
      const list = others.map(silentMention).sort();
      const last = list.pop()!;
      let users = list.join(', ');
      if (list.length > 1) users += ',';
      header = `${reporting} reported a direct message sent by ${reported} to ${users} and ${last} at ${when}.`;
    }
    original = `[Original message](${args.directMessageLink})`;
  }
  const snippet = truncateContent(args.content, SNIPPET_LENGTH, CONTENT_TRUNCATION_SUFFIX);
  const fence = unusedFence(snippet);
  return (
    header +
    `\n\`\`\`quote\n**${REPORT_REASONS[args.reportType]}**. ${args.description}\n\`\`\`\n\n` +
    `${fence} spoiler ${original}\n${snippet}\n${fence}\n`
  );
}

/** POST /messages/{id}/report (Zulip's report_message_backend). */
@Injectable()
export class MessageReportService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: MessageAccessService,
    private readonly editRepo: MessageEditRepository,
    private readonly messages: MessagesRepository,
    private readonly sender: MessageSendService,
    private readonly realms: RealmService,
  ) {}

  async reportMessage(auth: AuthContext, messageId: number, reportType: string, description: string): Promise<void> {
    if (!(REPORT_TYPES as readonly string[]).includes(reportType)) {
      throw MessageErrors.invalidReportType();
    }
    const type = reportType as (typeof REPORT_TYPES)[number];
    if (type === 'other' && pyStrip(description) === '') throw MessageErrors.explanationRequired();
    const { user, realm } = auth;
    if (realm.moderationRequestChannelId === null) {
      throw MessageErrors.reportingDisabled();
    }
    await runInTransaction(this.dataSource, async () => {
      const accessed = await this.access.accessMessage(auth, messageId, { isModifying: false });
      const message = accessed.message;
      const channel = await this.editRepo.channelForEdit(realm.id, user.id, realm.moderationRequestChannelId!);
      const bot = await this.messages.systemBot(NOTIFICATION_BOT_EMAIL);
      if (!channel || !bot) throw MessageErrors.reportingDisabled();
      const people = await this.messages.usersForDisplay([message.senderId, ...(message.dmUserIds ?? [])]);
      const byId = new Map(people.map((p) => [p.id, { id: p.id, fullName: p.fullName }]));
      const senderPerson = byId.get(message.senderId) ?? { id: message.senderId, fullName: '' };
      const others = message.dmUserIds
        ? message.dmUserIds
            .filter((id) => id !== message.senderId)
            .map((id) => byId.get(id)!)
            .filter(Boolean)
        : null;
      const dmIds = (message.dmUserIds ?? []).join(',');
      const dmSlug = (message.dmUserIds?.length ?? 0) > 2 ? 'group' : 'dm';
      const content = reportText({
        reporter: { id: user.id, fullName: user.fullName },
        sender: senderPerson,
        dmOthers: others,
        channel: message.isChannelMessage
          ? { id: message.streamId!, name: message.streamName!, topic: message.subject }
          : null,
        messageId: message.id,
        dateSent: message.dateSent,
        content: message.content,
        reportType: type,
        description,
        directMessageLink: `${this.realms.realmUrl(realm)}/#narrow/dm/${dmIds}-${dmSlug}/near/${message.id}`,
      });
      const topic = channel.topicsPolicy === TopicsPolicy.empty_topic_only ? '' : `${senderPerson.fullName} moderation`;
      await this.sender.sendInternal(realm, bot, [
        {
          target: {
            kind: 'channel',
            channelId: channel.id,
            recipientId: channel.recipientId,
            name: channel.name,
            topic,
          },
          content,
        },
      ]);
    });
  }
}
