import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
import { EventsService } from '../events/events.service';
import { RealmService } from '../realm/realm.service';
import { RealmEmojiService } from '../realm-emoji/realm-emoji.service';
import { checkEmojiReaction, resolveEmojiName, ZULIP_EXTRA_EMOJI_TYPE_ALIAS } from '../markdown/emoji/emoji';
import { DEFAULT_HISTORICAL_FLAGS } from './flags';
import { AccessedMessage, MessageAccessService } from './message-access.service';
import { apiEmailOf } from './message-format';
import { MessageFlagsRepository } from './message-flags.repository';
import { hasNul } from './message-text';
import { userBriefOf } from './message-send.service';
import { ReactionsRepository } from './reactions.repository';
import { EmojiErrors } from '../markdown/emoji/emoji.errors';
import { ReactionErrors } from './message.errors';

/** `zulip_extra_emoji` is accepted as the old name of `service_extra_emoji` (DECISIONS #4). */
export function normalizeReactionType(type: string): string {
  return type === ZULIP_EXTRA_EMOJI_TYPE_ALIAS ? 'service_extra_emoji' : type;
}

/**
 * Emoji reactions (Zulip's views/reactions.py + actions/reactions.py). The message row is
 * locked while a reaction is added or removed, and the unique index decides races, so
 * concurrent identical requests add one reaction and report REACTION_ALREADY_EXISTS.
 */
@Injectable()
export class ReactionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reactions: ReactionsRepository,
    private readonly access: MessageAccessService,
    private readonly flags: MessageFlagsRepository,
    private readonly realms: RealmService,
    private readonly events: EventsService,
    private readonly realmEmoji: RealmEmojiService,
  ) {}

  async addReaction(
    auth: AuthContext,
    messageId: number,
    emojiName: string,
    emojiCode: string | undefined,
    reactionType: string | undefined,
  ): Promise<void> {
    const { user } = auth;
    await runInTransaction(this.dataSource, async () => {
      const accessed = await this.access.accessMessage(auth, messageId, { lock: true, isModifying: true });
      let code = emojiCode;
      let type = reactionType === undefined ? undefined : normalizeReactionType(reactionType);
      // The realm's emoji this request may name: active by name, any by code (one query).
      const custom = await this.realmEmoji.forReaction(auth.realm.id, emojiName, emojiCode);
      if (code === undefined || type === undefined) {
        const resolved = resolveEmojiName(emojiName, custom);
        if (!resolved) throw EmojiErrors.doesNotExist(emojiName);
        code = resolved.code;
        type = resolved.reactionType;
      }
      if (hasNul(code) || hasNul(type)) {
        throw Errors.badRequest(
          checkEmojiReaction({ name: emojiName, code: '', type }, []) ?? EmojiErrors.invalidCode().message,
        );
      }
      const existing = await this.reactions.findByEmoji(messageId, code, type);
      if (existing.some((r) => r.userId === user.id)) throw ReactionErrors.alreadyExists();
      let name = emojiName;
      if (existing.length > 0) {
        // A vote for an existing reaction keeps that reaction's name.
        name = existing[0].emojiName;
      } else {
        const error = checkEmojiReaction({ name, code, type }, custom);
        if (error) throw Errors.badRequest(error);
      }
      if (accessed.userMessageFlags === null) {
        // Reacting adds the message to the user's history, so they hear about later changes.
        await this.flags.insertHistorical(user.id, [messageId], DEFAULT_HISTORICAL_FLAGS);
      }
      if (!(await this.reactions.insert(user.id, messageId, name, code, type))) throw ReactionErrors.alreadyExists();
      await this.notify(auth, accessed, 'add', name, code, type);
    });
  }

  async removeReaction(
    auth: AuthContext,
    messageId: number,
    emojiName: string | undefined,
    emojiCode: string | undefined,
    reactionType: string,
  ): Promise<void> {
    const { user } = auth;
    await runInTransaction(this.dataSource, async () => {
      const accessed = await this.access.accessMessage(auth, messageId, { lock: true, isModifying: true });
      let code = emojiCode;
      if (code === undefined) {
        if (emojiName === undefined) {
          throw ReactionErrors.nameOrCodeRequired();
        }
        const resolved = resolveEmojiName(
          emojiName,
          await this.realmEmoji.forReaction(auth.realm.id, emojiName, undefined),
        );
        if (!resolved) throw EmojiErrors.doesNotExist(emojiName);
        code = resolved.code;
      }
      const type = normalizeReactionType(reactionType);
      const removedName =
        hasNul(code) || hasNul(type) ? null : await this.reactions.delete(user.id, messageId, code, type);
      if (removedName === null) throw ReactionErrors.doesNotExist();
      await this.notify(auth, accessed, 'remove', removedName, code, type);
    });
  }

  private async notify(
    auth: AuthContext,
    accessed: AccessedMessage,
    op: 'add' | 'remove',
    emojiName: string,
    emojiCode: string,
    reactionType: string,
  ): Promise<void> {
    const { user, realm } = auth;
    const email = apiEmailOf(userBriefOf(user), this.realms.realmHost(realm));
    const recipients = await this.access.eventRecipientIds(accessed);
    this.events.sendOnCommit(
      realm.id,
      {
        type: 'reaction',
        op,
        user_id: user.id,
        user: { user_id: user.id, email, full_name: user.fullName },
        message_id: accessed.message.id,
        emoji_name: emojiName,
        emoji_code: emojiCode,
        reaction_type: reactionType,
      },
      recipients,
    );
  }
}
