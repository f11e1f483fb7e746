import { Injectable } from '@nestjs/common';
import { UserGroupsQueryService } from '../users/user-groups-query.service';
import type { AuthContext } from '../common/auth/auth.types';
import { Limits } from '../common/limits';
import type { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { RealmEmojiService } from '../realm-emoji/realm-emoji.service';
import { AlertWordsService } from '../alert-words/alert-words.service';
import { LinkifierService } from '../linkifiers/linkifier.service';
import { collectReferences, renderMarkdown, type RenderedMessage } from './markdown';
import { isGuest } from './message-access.policy';
import { hasNul } from './message-text';
import { MessagesRepository } from './messages.repository';
import type { UserBrief } from './message-format';
import { canAccessUser } from '../users/user-access';
import { UserAccessService } from '../users/user-access.service';
import type { MentionGroupRow } from '../users/group-membership.repository';

/** Names with NUL characters cannot exist (and must not reach SQL). */
const noNul = (name: string) => !hasNul(name);

/** Version of our Markdown processor, stored as message.rendered_content_version. */
export const MARKDOWN_VERSION = 1;

export interface RenderResult {
  rendered: RenderedMessage;
  /** Users whose alert words the text contains (their `has_alert_word` flag). */
  alertWordUserIds: Set<number>;
  /** The user groups the text could mention (to check can_mention_group). */
  groups: MentionGroupRow[];
}

/**
 * Renders message content for a sender: finds what the text refers to, loads those users,
 * groups, channels and custom emoji in at most four queries (none for plain text) and the realm's
 * linkifiers (cached), then renders; finds whose alert words it contains with the realm's cached
 * matcher (a query only to build it).
 */
@Injectable()
export class MessageRenderService {
  constructor(
    private readonly messages: MessagesRepository,
    private readonly realms: RealmService,
    private readonly realmEmoji: RealmEmojiService,
    private readonly userGroups: UserGroupsQueryService,
    private readonly alertWords: AlertWordsService,
    private readonly linkifiers: LinkifierService,
    private readonly userAccess: UserAccessService,
  ) {}

  async render(auth: AuthContext, content: string): Promise<RenderResult> {
    const refs = collectReferences(content);
    const { user, realm } = auth;
    // Most messages refer to nothing: no call (and no await) for what they don't name.
    const mentions = refs.userNames.length > 0 || refs.userIds.length > 0;
    const candidates = mentions
      ? await this.messages.mentionCandidates(realm.id, refs.userNames.filter(noNul), refs.userIds)
      : [];
    const users = candidates.length > 0 ? await this.visibleTo(auth, candidates) : candidates;
    const groups =
      refs.groupNames.length > 0
        ? await this.userGroups.mentionableGroups(realm.id, refs.groupNames.filter(noNul))
        : [];
    const channels =
      refs.channelNames.length > 0
        ? await this.messages.linkableChannels(realm.id, user.id, isGuest(user), refs.channelNames.filter(noNul))
        : [];
    const realmEmoji = await this.realmEmoji.forRendering(realm.id, refs.emojiNames);
    const linkifiers = (await this.linkifiers.forRendering(realm.id)).compiled;
    const rendered = renderMarkdown(content, {
      realmUrl: this.realms.realmUrl(realm),
      users: users.map((u) => ({ id: u.id, fullName: u.fullName, isActive: u.isActive })),
      groups: groups.map((g) => ({ id: g.id, name: g.name, deactivated: g.deactivated })),
      channels,
      realmEmoji,
      linkifiers,
      translateEmoticons: user.settings.translate_emoticons,
      imagePreviews: realm.inlineImagePreview,
      emptyTopicDisplayName: Limits.EMPTY_TOPIC_DISPLAY_NAME,
    });
    const alertWordUserIds = (await this.alertWords.matcherFor(realm)).usersMatching(content);
    return { rendered, groups, alertWordUserIds };
  }

  /**
   * Zulip's MentionBackend: users the sender may not see (can_access_all_users_group) cannot be
   * mentioned; their mention stays plain text, so the rendering tells nothing about them.
   */
  private async visibleTo(auth: AuthContext, candidates: UserBrief[]): Promise<UserBrief[]> {
    if (candidates.length === 0 || !isGuest(auth.user)) return candidates;
    const access = await this.userAccess.forViewer(
      auth.user,
      auth.realm,
      candidates.map((u) => u.id),
    );
    return candidates.filter((u) => canAccessUser(access, u));
  }

  /**
   * Renders system bot messages: they may link any channel of the realm. One context serves
   * every message of the batch (at most four queries whatever their number).
   */
  async renderAsSystem(
    realm: Realm,
    contents: string[],
  ): Promise<{ rendered: RenderedMessage[]; groups: MentionGroupRow[]; alertWordUserIds: Array<Set<number>> }> {
    const names = {
      users: new Set<string>(),
      ids: new Set<number>(),
      groups: new Set<string>(),
      channels: new Set<string>(),
      emoji: new Set<string>(),
    };
    for (const content of contents) {
      const refs = collectReferences(content);
      refs.userNames.filter(noNul).forEach((n) => names.users.add(n));
      refs.userIds.forEach((n) => names.ids.add(n));
      refs.groupNames.filter(noNul).forEach((n) => names.groups.add(n));
      refs.channelNames.filter(noNul).forEach((n) => names.channels.add(n));
      refs.emojiNames.forEach((n) => names.emoji.add(n));
    }
    const users = await this.messages.mentionCandidates(realm.id, [...names.users], [...names.ids]);
    const groups = await this.userGroups.mentionableGroups(realm.id, [...names.groups]);
    const channels = await this.messages.channelsByNames(realm.id, [...names.channels]);
    const realmEmoji = await this.realmEmoji.forRendering(realm.id, [...names.emoji]);
    const linkifiers = (await this.linkifiers.forRendering(realm.id)).compiled;
    const context = {
      realmUrl: this.realms.realmUrl(realm),
      users: users.map((u) => ({ id: u.id, fullName: u.fullName, isActive: u.isActive })),
      groups: groups.map((g) => ({ id: g.id, name: g.name, deactivated: g.deactivated })),
      channels,
      realmEmoji,
      linkifiers,
      imagePreviews: realm.inlineImagePreview,
      emptyTopicDisplayName: Limits.EMPTY_TOPIC_DISPLAY_NAME,
    };
    const matcher = await this.alertWords.matcherFor(realm);
    return {
      rendered: contents.map((c) => renderMarkdown(c, context)),
      groups,
      alertWordUserIds: contents.map((c) => matcher.usersMatching(c)),
    };
  }
}
