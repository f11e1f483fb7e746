import { canAccessUser } from '../users/user-access';
import { UserAccessService } from '../users/user-access.service';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { Limits } from '../common/limits';
import { dbIds, isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { ChannelSendCache } from './channel-send-cache';
import { LinkifierService } from '../linkifiers/linkifier.service';
import { RealmService } from '../realm/realm.service';
import { ANY_MENTION_MASK, DEFAULT_HISTORICAL_FLAGS, Flag } from './flags';
import {
  canAccessChannelHistory,
  contentAccessNeedsGroups,
  hasChannelContentAccess,
  isGuest,
} from './message-access.policy';
import { MessageAccessService } from './message-access.service';
import { SubmessageRepository } from './submessage.repository';
import {
  fetchedMessageDict,
  type FormatOptions,
  type MessageRow,
  type ReactionRow,
  type SubmessageRow,
  type UserBrief,
} from './message-format';
import {
  type DisplayedWindow,
  FetchQuery,
  MessageFetchRepository,
  NarrowChannel,
  SqlParams,
  type FetchedRow,
} from './message-fetch.repository';
import { hasNul, topicForClient } from './message-text';
import { MessagesRepository } from './messages.repository';
import { CHANNEL_OPERATORS, CHANNELS_OPERATORS, type NarrowTerm, operandText, parseNarrow } from './narrow';
import { directMessageGroupHash } from './send.policy';
import { renderMarkdown } from './markdown';
import { ChannelErrors } from '../channels/channel.errors';
import { subscriptionsView, userTopicsView } from '../channels/channels.sql';
import { ParamErrors } from '../common/errors/param.errors';
import { MessageErrors, NarrowErrors } from './message.errors';
import { PrincipalService } from '../users/principal.service';

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor "newest" stands for. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

export interface GetMessagesInput {
  anchor: string | undefined;
  includeAnchor: boolean | undefined;
  numBefore: number | undefined;
  numAfter: number | undefined;
  narrow: unknown;
  useFirstUnreadAnchor: boolean | undefined;
  clientGravatar: boolean;
  applyMarkdown: boolean;
  messageIds: number[] | undefined;
  allowEmptyTopicName: boolean;
}

/** Zulip's parse_anchor_value; null means "first unread". */
export function parseAnchor(anchor: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (anchor === undefined) throw MessageErrors.missingAnchor();
  if (anchor === 'oldest') return 0;
  if (anchor === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (anchor === 'first_unread') return null;
  if (!/^\s*[-+]?\d+\s*$/.test(anchor)) throw MessageErrors.invalidAnchor();
  const value = Number(anchor.trim());
  if (value < 0) return 0;
  return Math.min(value, LARGER_THAN_MAX_MESSAGE_ID);
}

interface BuiltQuery {
  query: FetchQuery;
  /** The channel the narrow is limited to (for muting rules), if any. */
  channelRecipientId: number | null;
  /** in:home was requested. */
  excludeMuted: boolean;
}

/**
 * GET /messages, GET /messages/{id} and GET /users/me/{stream_id}/topics (Zulip's
 * message_fetch.py and narrow.py). Narrows to one channel whose history the viewer may read
 * search the message table; every other query searches the viewer's own UserMessage rows,
 * minus channels they can no longer read.
 */
@Injectable()
export class MessageFetchService {
  constructor(
    private readonly fetch: MessageFetchRepository,
    private readonly messages: MessagesRepository,
    private readonly access: MessageAccessService,
    private readonly realms: RealmService,
    private readonly principals: PrincipalService,
    private readonly linkifiers: LinkifierService,
    private readonly submessages: SubmessageRepository,
    private readonly userAccess: UserAccessService,
    private readonly sendCache: ChannelSendCache,
  ) {}

  async getMessages(auth: AuthContext, input: GetMessagesInput): Promise<Record<string, unknown>> {
    const terms = parseNarrow(input.narrow ?? []);
    const numBefore = input.numBefore ?? 0;
    const numAfter = input.numAfter ?? 0;
    const includeAnchor = input.includeAnchor ?? true;
    if (input.messageIds !== undefined) {
      const conflicting = [
        ['anchor', input.anchor],
        ['include_anchor', input.includeAnchor],
        ['num_after', input.numAfter],
        ['num_before', input.numBefore],
        ['use_first_unread_anchor', input.useFirstUnreadAnchor],
      ]
        .filter(([, v]) => v !== undefined)
        .map(([k]) => k as string);
      if (conflicting.length > 0) {
        const parameters = ['message_ids', ...conflicting];
        throw ParamErrors.incompatibleParameterList(parameters);
      }
    }
    const requested = input.messageIds !== undefined ? input.messageIds.length : numBefore + numAfter;
    if (requested > Limits.MAX_MESSAGES_PER_FETCH) {
      throw MessageErrors.tooManyRequested(Limits.MAX_MESSAGES_PER_FETCH);
    }
    if (numBefore > 0 && numAfter > 0 && !includeAnchor) {
      throw MessageErrors.anchorExcludedInside();
    }
    const opts = await this.formatOptions(auth, input);

    if (input.messageIds !== undefined) {
      const built = await this.buildQuery(auth, terms);
      const shown = await this.fetch.fetchIdsForDisplay(built.query, auth.user.id, auth.realm.id, input.messageIds);
      return { messages: await this.formatRows(auth, shown.rows, shown, opts), history_limited: false };
    }

    const anchor = parseAnchor(input.anchor, input.useFirstUnreadAnchor ?? false);
    const built = await this.buildQuery(auth, terms, { hot: isHotNarrow(terms) });
    const window = await this.fetchWindow(auth, built, anchor, { numBefore, numAfter, includeAnchor }, true);
    return {
      messages: await this.formatRows(auth, window.rows, window.shown!, opts),
      anchor: window.anchor,
      found_anchor: window.foundAnchor,
      found_oldest: window.foundOldest,
      found_newest: window.foundNewest,
      history_limited: false,
    };
  }

  /**
   * The ids of a narrow's messages around an anchor, as GET /messages selects them (Zulip's
   * fetch_messages), for POST /messages/flags/narrow. `anchor` null is the first unread message.
   */
  async narrowWindowIds(
    auth: AuthContext,
    narrow: unknown,
    anchor: number | null,
    range: { numBefore: number; numAfter: number; includeAnchor: boolean },
  ): Promise<{ ids: number[]; foundOldest: boolean; foundNewest: boolean }> {
    const built = await this.buildQuery(auth, parseNarrow(narrow ?? []));
    // Only ids are needed: no search highlighting.
    built.query.search = null;
    const window = await this.fetchWindow(auth, built, anchor, range);
    return {
      ids: window.rows.map((r) => r.message_id),
      foundOldest: window.foundOldest,
      foundNewest: window.foundNewest,
    };
  }

  /**
   * GET /messages/matches_narrow (Zulip's messages_in_narrow_backend): which of the given
   * messages the user received match the narrow, each with match_content / match_subject
   * (search highlighting when the narrow searches). Other ids are left out silently.
   */
  async messagesMatchingNarrow(
    auth: AuthContext,
    messageIds: number[],
    narrow: unknown,
  ): Promise<{ messages: Record<string, { match_content: string; match_subject: string }> }> {
    const built = await this.buildQuery(auth, parseNarrow(narrow), { receivedOnly: true });
    const rows = await this.fetch.matchingRows(built.query, auth.user.id, auth.realm.id, messageIds);
    const messages: Record<string, { match_content: string; match_subject: string }> = {};
    for (const r of rows) {
      messages[String(r.message_id)] = { match_content: r.match_content, match_subject: r.match_subject };
    }
    return { messages };
  }

  /** The rows of a narrow around an anchor and what they reached (Zulip's post_process_limited_query). */
  private async fetchWindow(
    auth: AuthContext,
    built: BuiltQuery,
    requestedAnchor: number | null,
    range: { numBefore: number; numAfter: number; includeAnchor: boolean },
    display = false,
  ): Promise<{
    rows: FetchedRow[];
    anchor: number;
    foundAnchor: boolean;
    foundOldest: boolean;
    foundNewest: boolean;
    /** With `display`: the rows' messages and what their dicts show. */
    shown?: DisplayedWindow;
  }> {
    const { numBefore, numAfter, includeAnchor } = range;
    let anchor = requestedAnchor;
    if (anchor === null) {
      const unread: FetchQuery = { ...built.query, params: built.query.params.clone() };
      const first = await this.fetch.firstUnreadId(
        unread,
        auth.user.id,
        auth.realm.id,
        this.mutingConditions(unread.params, auth.user.id, built.channelRecipientId),
      );
      anchor = first ?? LARGER_THAN_MAX_MESSAGE_ID;
    }
    const toLeft = anchor === 0;
    const toRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
    const after = toRight ? 0 : numAfter;
    const windowRange = { anchor, before: numBefore, after, includeAnchor, toLeft, toRight };
    const shown = display
      ? await this.fetch.fetchWindowForDisplay(built.query, auth.user.id, auth.realm.id, windowRange)
      : undefined;
    const rows = shown?.rows ?? (await this.fetch.fetchWindow(built.query, auth.user.id, auth.realm.id, windowRange));

    const at = anchor;
    let beforeRows = toRight ? rows : rows.filter((r) => r.message_id < at);
    const anchorRows = toRight ? [] : rows.filter((r) => r.message_id === at);
    let afterRows = toRight ? [] : rows.filter((r) => r.message_id > at);
    if (numBefore) beforeRows = beforeRows.slice(-numBefore);
    if (after) afterRows = afterRows.slice(0, after);
    return {
      rows: [...beforeRows, ...anchorRows, ...afterRows],
      anchor,
      foundAnchor: anchorRows.length === 1,
      foundOldest: toLeft || beforeRows.length < numBefore,
      foundNewest: toRight || afterRows.length < after,
      shown,
    };
  }

  private async formatOptions(
    auth: AuthContext,
    input: { applyMarkdown: boolean; clientGravatar: boolean; allowEmptyTopicName: boolean },
  ): Promise<FormatOptions> {
    const linkifiers = await this.linkifiers.forRendering(auth.realm.id);
    return {
      applyMarkdown: input.applyMarkdown,
      clientGravatar: input.clientGravatar,
      allowEmptyTopicName: input.allowEmptyTopicName,
      realmStringId: auth.realm.stringId,
      realmHost: this.realms.realmHost(auth.realm),
      editHistoryVisibility: auth.realm.messageEditHistoryVisibilityPolicy,
      topicLinks: linkifiers.topicLinks,
    };
  }

  /** Zulip's exclude_muting_conditions: muted channels (unless narrowed to one) and muted topics. */
  private mutingConditions(params: SqlParams, userId: number, channelRecipientId: number | null): string[] {
    const user = params.add(userId);
    const topicPolicy = (policies: string) => `EXISTS (SELECT 1 FROM ${userTopicsView} ut
        WHERE ut.user_profile_id = ${user} AND ut.recipient_id = m.recipient_id
          AND lower(ut.topic_name) = lower(m.subject) AND ut.visibility_policy IN (${policies}))`;
    const conds = [`NOT (m.is_channel_message AND ${topicPolicy('1')})`];
    if (channelRecipientId === null) {
      conds.push(`NOT (m.is_channel_message AND m.recipient_id IN (
          SELECT sub.recipient_id FROM ${subscriptionsView} sub
           WHERE sub.user_profile_id = ${user} AND sub.active AND sub.is_muted)
        AND NOT ${topicPolicy('2, 3')})`);
    }
    return conds;
  }

  /** Turns narrow terms into SQL conditions (Zulip's NarrowBuilder + ok_to_include_history). */
  private async buildQuery(
    auth: AuthContext,
    terms: NarrowTerm[],
    opts: { receivedOnly?: boolean; hot?: boolean } = {},
  ): Promise<BuiltQuery> {
    const { user, realm } = auth;
    const st = new NarrowState();
    st.params.opaque = opts.hot ?? false;
    for (const term of terms) {
      if (typeof term.operand === 'string' && hasNul(term.operand) && addNulTerm(st, term)) continue;
      await this.addTerm(auth, st, term);
    }
    // Properties of UserMessage rows exist only for messages the user received.
    if (terms.some((t) => t.operator === 'is' && t.operand !== 'resolved' && t.operand !== 'followed'))
      st.includeHistory = false;
    if (opts.receivedOnly) st.includeHistory = false;
    const { params, conditions } = st;
    // Only a channel's history is read with the prepared statement (its plan is the same for every channel).
    if (!st.includeHistory) params.opaque = false;
    if (!st.includeHistory) {
      const excluded = await this.fetch.inaccessibleChannelRecipientIds(realm.id, user.id, isGuest(user));
      if (excluded.length > 0) conditions.push(`m.recipient_id <> ALL(${params.add(excluded)}::int[])`);
    }
    if (st.excludeMuted) conditions.push(...this.mutingConditions(params, user.id, st.channelRecipientId));
    return {
      query: { includeHistory: st.includeHistory, conditions, params, search: st.search },
      channelRecipientId: st.channelRecipientId,
      excludeMuted: st.excludeMuted,
    };
  }

  /** One narrow term's conditions (the operators that need the database go to their own methods). */
  private async addTerm(auth: AuthContext, st: NarrowState, term: NarrowTerm): Promise<void> {
    const { operator, operand, negated } = term;
    if (CHANNEL_OPERATORS.includes(operator)) return this.addChannelTerm(auth, st, term);
    if (CHANNELS_OPERATORS.includes(operator)) return this.addChannelsTerm(auth, st, term);
    switch (operator) {
      case 'topic':
        st.mark('channel');
        st.add(`m.is_channel_message AND upper(m.subject) = upper(${st.params.add(operand)}::text)`, negated);
        return;
      case 'sender': {
        const sender = await this.findUser(auth.realm, operand as string | number);
        if (!sender) throw NarrowErrors.unknownUser(operandText(operand));
        st.add(`m.sender_id = ${st.params.add(sender.id)}`, negated);
        return;
      }
      case 'near':
        return; // Only meaningful to clients.
      case 'id':
        return addIdTerm(st, term);
      case 'search':
        return addSearchTerm(st, term);
      case 'dm':
      case 'pm-with':
      case 'pm_with':
        return this.addDirectTerm(auth, st, term);
      case 'dm-including':
      case 'group-pm-with':
      case 'group_pm_with':
        return this.addDirectIncludingTerm(auth, st, term);
      case 'is':
        return addIsTerm(st, term, auth.user.id);
      case 'in':
        if (operand === 'home') st.excludeMuted = true;
        else if (operand !== 'all') throw NarrowErrors.unknownInOperand(operandText(operand));
        return;
      case 'has':
        return addHasTerm(st, term);
      default:
        throw NarrowErrors.unknownOperator(operator);
    }
  }

  /** channel:<name or id>: its messages; whether its history is readable decides the search. */
  private async addChannelTerm(auth: AuthContext, st: NarrowState, term: NarrowTerm): Promise<void> {
    const { user, realm } = auth;
    st.mark('channel');
    const operand = term.operand as string | number;
    // A channel by id comes from the send cache when no transaction could have changed it.
    const cached =
      typeof operand === 'number' && isDbId(operand) && currentManager() === undefined
        ? await this.sendCache.narrowChannel(realm.id, user.id, operand)
        : undefined;
    const channel: NarrowChannel | null = cached ?? (await this.fetch.channelByOperand(realm.id, user.id, operand));
    if (!channel) throw NarrowErrors.unknownChannel(operandText(term.operand));
    st.add(`m.recipient_id = ${st.params.int(channel.recipientId)}`, term.negated);
    if (term.negated) return;
    if (contentAccessNeedsGroups(user, channel, channel.subscribed) && st.groups === null) {
      st.groups = await this.principals.groupIdsOf(user.id);
    }
    st.includeHistory = canAccessChannelHistory(user, channel, channel.subscribed, st.groups);
    st.channelRecipientId ??= channel.recipientId;
  }

  /** channels:public / channels:web-public. */
  private async addChannelsTerm(auth: AuthContext, st: NarrowState, term: NarrowTerm): Promise<void> {
    const { operand, negated } = term;
    st.mark('channel');
    if (operand !== 'public' && operand !== 'web-public')
      throw NarrowErrors.unknownChannelsOperand(operandText(operand));
    const ids = await this.fetch.publicChannelRecipientIds(auth.realm.id, operand === 'web-public');
    st.add(`m.recipient_id = ANY(${st.params.add(ids)}::int[])`, negated);
    if (!negated && !isGuest(auth.user)) st.includeHistory = true;
  }

  /** dm:<emails or ids>: the direct-message conversation of exactly those users and the viewer. */
  private async addDirectTerm(auth: AuthContext, st: NarrowState, term: NarrowTerm): Promise<void> {
    const { user, realm } = auth;
    const { operand, negated } = term;
    st.mark('dm');
    const users = await this.usersOfDirectOperand(realm, operand);
    if (users.length === 0) throw NarrowErrors.unknownUserIn(operandText(operand));
    const participants = [...new Set([user.id, ...users.map((u) => u.id)])];
    const recipientId = await this.messages.existingDirectMessageRecipient(directMessageGroupHash(participants));
    st.add(recipientId === null ? 'false' : `m.recipient_id = ${st.params.add(recipientId)}`, negated);
  }

  /** The users a dm operand names, in its order; an unknown one is an error. */
  private async usersOfDirectOperand(
    realm: AuthContext['realm'],
    operand: NarrowTerm['operand'],
  ): Promise<UserBrief[]> {
    const host = this.realms.realmHost(realm);
    const users: UserBrief[] = [];
    if (typeof operand === 'string') {
      const emails = operand.split(',').map((e) => e.trim());
      const found = await this.messages.usersByApiEmailsInRealm(realm.id, host, emails);
      for (const email of emails) {
        const u = found.find(
          (f) =>
            (f.emailAddressVisibility === 1 ? f.deliveryEmail : `user${f.id}@${host}`).toLowerCase() ===
            email.toLowerCase(),
        );
        if (!u) throw NarrowErrors.unknownUserIn(operandText(operand));
        users.push(u);
      }
      return users;
    }
    const ids = Array.isArray(operand) ? operand : [operand];
    const found = await this.messages.usersByIdsInRealm(realm.id, ids);
    for (const id of ids) {
      const u = found.find((f) => f.id === id);
      if (!u) throw NarrowErrors.unknownUserIn(operandText(operand));
      users.push(u);
    }
    return users;
  }

  /** dm-including:<user> (and the legacy group-pm-with, group conversations only). */
  private async addDirectIncludingTerm(auth: AuthContext, st: NarrowState, term: NarrowTerm): Promise<void> {
    const { user, realm } = auth;
    const { operator, operand, negated } = term;
    st.mark('dm');
    const other = await this.findUser(realm, operand as string | number);
    if (!other) throw NarrowErrors.unknownUser(operandText(operand));
    const groupsOnly = operator !== 'dm-including';
    if (other.id === user.id && !groupsOnly) {
      st.add('NOT m.is_channel_message', negated);
      return;
    }
    const ids = await this.fetch.sharedDirectMessageRecipientIds(user.id, other.id, groupsOnly);
    st.add(`m.recipient_id = ANY(${st.params.add(ids)}::int[])`, negated);
  }

  /** A user of the realm by id or API email. */
  private async findUser(realm: AuthContext['realm'], operand: string | number): Promise<UserBrief | undefined> {
    if (typeof operand === 'number') return (await this.messages.usersByIdsInRealm(realm.id, [operand]))[0];
    return (await this.messages.usersByApiEmailsInRealm(realm.id, this.realms.realmHost(realm), [operand.trim()]))[0];
  }

  /** Message dicts for fetched rows, from what the fetch statement loaded with them. */
  private async formatRows(
    auth: AuthContext,
    rows: FetchedRow[],
    shown: DisplayedWindow,
    opts: FormatOptions,
  ): Promise<Array<Record<string, unknown>>> {
    if (rows.length === 0) return [];
    const items: Array<{ row: FetchedRow; message: MessageRow }> = [];
    for (const row of rows) {
      const message = shown.messages.get(row.message_id);
      if (message) items.push({ row, message });
    }
    return this.formatMessages(auth, items, opts, shown);
  }

  private async formatMessages(
    auth: AuthContext,
    items: Array<{ row: FetchedRow; message: MessageRow }>,
    opts: FormatOptions,
    /** The items' reactions, submessages and users when already loaded with them. */
    extras?: { reactions: ReactionRow[]; submessages: SubmessageRow[]; users: UserBrief[] },
  ): Promise<Array<Record<string, unknown>>> {
    const users = new Map((extras?.users ?? (await this.usersOf(items))).map((u) => [u.id, u]));
    opts = { ...opts, inaccessibleSenderIds: await this.inaccessibleSenders(auth, items, users) };
    const ids = items.map((i) => i.message.id);
    const byMessage = groupByMessage(extras?.reactions ?? (await this.messages.reactionsForMessages(ids)));
    const submessagesByMessage = groupByMessage(extras?.submessages ?? (await this.submessages.forMessages(ids)));
    return items.map(({ row, message }) => {
      const rendered = message.renderedContent ?? renderMarkdown(message.content).html;
      const dict = fetchedMessageDict(
        message,
        rendered,
        Number(row.flags),
        users,
        byMessage.get(message.id) ?? [],
        opts,
        submessagesByMessage.get(message.id) ?? [],
      );
      if (row.match_content !== undefined) dict.match_content = row.match_content;
      if (row.match_subject !== undefined) dict.match_subject = row.match_subject;
      return dict;
    });
  }

  /** The senders and direct-message participants of the items. */
  private async usersOf(items: Array<{ message: MessageRow }>): Promise<UserBrief[]> {
    const userIds = new Set<number>();
    for (const { message } of items) {
      userIds.add(message.senderId);
      for (const id of message.dmUserIds ?? []) userIds.add(id);
    }
    return await this.messages.usersForDisplay([...userIds]);
  }

  /**
   * Zulip's get_inaccessible_user_ids over the senders (messages_for_ids): for a guest restricted
   * by can_access_all_users_group, the senders they may not see (one query; none for others).
   */
  private async inaccessibleSenders(
    auth: AuthContext,
    items: Array<{ message: MessageRow }>,
    users: ReadonlyMap<number, UserBrief>,
  ): Promise<Set<number>> {
    const hidden = new Set<number>();
    if (!isGuest(auth.user) || items.length === 0) return hidden;
    const senders = [...new Set(items.map((i) => i.message.senderId))].filter((id) => id !== auth.user.id);
    if (senders.length === 0) return hidden;
    const access = await this.userAccess.forViewer(auth.user, auth.realm, senders);
    for (const id of senders) {
      const sender = users.get(id);
      if (sender && !canAccessUser(access, sender)) hidden.add(id);
    }
    return hidden;
  }

  /** GET /messages/{message_id}: the message if the caller may access it, with raw_content. */
  async getMessage(
    auth: AuthContext,
    messageId: number,
    input: { applyMarkdown: boolean; allowEmptyTopicName: boolean },
  ): Promise<Record<string, unknown>> {
    const accessed = await this.access.accessMessage(auth, messageId, { isModifying: false });
    const opts = await this.formatOptions(auth, { ...input, clientGravatar: false });
    const flags = accessed.userMessageFlags ?? DEFAULT_HISTORICAL_FLAGS;
    const [dict] = await this.formatMessages(
      auth,
      [{ row: { message_id: accessed.message.id, flags }, message: accessed.message }],
      opts,
    );
    return { raw_content: accessed.message.content, message: dict };
  }

  /** GET /users/me/{stream_id}/topics. */
  async getTopics(
    auth: AuthContext,
    streamId: number,
    allowEmptyTopicName: boolean,
  ): Promise<Array<{ name: string; max_id: number }>> {
    const { user, realm } = auth;
    const channel = dbIds([streamId]).length ? await this.fetch.channelByOperand(realm.id, user.id, streamId) : null;
    if (!channel) throw ChannelErrors.invalidId();
    const groups = contentAccessNeedsGroups(user, channel, channel.subscribed)
      ? await this.principals.groupIdsOf(user.id)
      : null;
    if (!hasChannelContentAccess(user, channel, channel.subscribed, groups)) throw ChannelErrors.invalidId();
    const rows = await this.fetch.topicHistory(
      realm.id,
      channel.recipientId,
      user.id,
      channel.historyPublicToSubscribers,
    );
    // One entry per case-insensitive topic, named as in its most recent message.
    const canonical = new Map<string, { name: string; max_id: number }>();
    for (const row of [...rows].sort((a, b) => a.max_id - b.max_id)) {
      canonical.set(row.topic.toLowerCase(), { name: row.topic, max_id: row.max_id });
    }
    return [...canonical.values()]
      .map((t) => ({ name: topicForClient(t.name, allowEmptyTopicName), max_id: t.max_id }))
      .sort((a, b) => b.max_id - a.max_id);
  }
}

/**
 * The narrow of the common fetch (a channel's messages by id or name), whose statement is
 * prepared once per connection: its text does not depend on the channel.
 */
function isHotNarrow(terms: NarrowTerm[]): boolean {
  return terms.length === 1 && CHANNEL_OPERATORS.includes(terms[0].operator) && !terms[0].negated;
}

function groupByMessage<T extends { messageId: number }>(rows: readonly T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const list = out.get(r.messageId);
    if (list) list.push(r);
    else out.set(r.messageId, [r]);
  }
  return out;
}

/** What building a narrow's query accumulates (Zulip's NarrowBuilder state). */
class NarrowState {
  readonly params = new SqlParams();
  readonly conditions: string[] = [];
  includeHistory = false;
  search: string | null = null;
  /** The channel the narrow is limited to, if any. */
  channelRecipientId: number | null = null;
  excludeMuted = false;
  /** The viewer's groups, once a term needed them. */
  groups: ReadonlySet<number> | null = null;
  private isChannelNarrow = false;
  private isDmNarrow = false;

  /** A term about channels or about direct messages; a narrow cannot have both. */
  mark(kind: 'channel' | 'dm'): void {
    if (kind === 'channel') this.isChannelNarrow = true;
    else this.isDmNarrow = true;
    if (this.isChannelNarrow && this.isDmNarrow) throw NarrowErrors.channelAndDirectMessage();
  }

  add(cond: string, negated: boolean): void {
    this.conditions.push(negated ? `NOT (${cond})` : `(${cond})`);
  }
}

/**
 * A term whose operand contains NUL: nothing stored contains NUL, so names are unknown or the
 * term matches nothing (and the operand must not reach SQL). Returns whether the term is done.
 */
function addNulTerm(st: NarrowState, term: NarrowTerm): boolean {
  const { operator, operand, negated } = term;
  if (CHANNEL_OPERATORS.includes(operator)) throw NarrowErrors.unknownChannel(operand as string);
  if (['sender', 'dm-including', 'group-pm-with', 'group_pm_with'].includes(operator)) {
    throw NarrowErrors.unknownUser(operand as string);
  }
  if (['dm', 'pm-with', 'pm_with'].includes(operator)) throw NarrowErrors.unknownUserIn(operand as string);
  if (operator !== 'topic' && operator !== 'search') return false;
  if (operator === 'topic') st.mark('channel');
  st.add('false', negated);
  return true;
}

function addIdTerm(st: NarrowState, { operand, negated }: NarrowTerm): void {
  const valid = typeof operand === 'number' ? Number.isInteger(operand) && operand >= 0 : /^\d+$/.test(String(operand));
  if (!valid) throw NarrowErrors.invalidMessageId();
  // An id no message can have (beyond PostgreSQL's integer) matches nothing; it never reaches SQL.
  const id = Number(operand);
  st.add(isDbId(id) ? `m.id = ${st.params.add(id)}` : 'FALSE', negated);
}

/** search:<text>: full-text search, plus a substring match for each "quoted phrase". */
function addSearchTerm(st: NarrowState, { operand, negated }: NarrowTerm): void {
  const text = operand as string;
  for (const match of text.matchAll(/"[^"]+"|\S+/g)) {
    const word = match[0];
    if (word.length > 1 && word.startsWith('"') && word.endsWith('"')) {
      const like = `%${word.slice(1, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const p = st.params.add(like);
      st.add(`m.content ILIKE ${p} OR m.subject ILIKE ${p}`, negated);
    }
  }
  st.add(`m.search_tsvector @@ plainto_tsquery('pg_catalog.english', ${st.params.add(text)}::text)`, negated);
  if (!negated) st.search = text;
}

function addIsTerm(st: NarrowState, { operand, negated }: NarrowTerm, userId: number): void {
  switch (operand) {
    case 'dm':
    case 'private':
      st.mark('dm');
      return st.add('NOT m.is_channel_message', negated);
    case 'starred':
      return st.add(`(um.flags & ${Flag.starred}) <> 0`, negated);
    case 'unread':
      return st.add(`(um.flags & ${Flag.read}) = 0`, negated);
    case 'mentioned':
      return st.add(`(um.flags & ${ANY_MENTION_MASK}) <> 0`, negated);
    case 'alerted':
      return st.add(`(um.flags & ${Flag.has_alert_word}) <> 0`, negated);
    case 'resolved':
      return st.add(`m.is_channel_message AND m.subject LIKE '✔ %'`, negated);
    case 'followed':
      return st.add(
        `m.is_channel_message AND EXISTS (SELECT 1 FROM ${userTopicsView} ut
           WHERE ut.user_profile_id = ${st.params.add(userId)} AND ut.recipient_id = m.recipient_id
             AND lower(ut.topic_name) = lower(m.subject) AND ut.visibility_policy = 3)`,
        negated,
      );
    default:
      throw NarrowErrors.unknownIsOperand(operandText(operand));
  }
}

function addHasTerm(st: NarrowState, { operand, negated }: NarrowTerm): void {
  if (operand === 'reaction') st.add('EXISTS (SELECT 1 FROM reaction r WHERE r.message_id = m.id)', negated);
  else if (operand === 'attachment' || operand === 'image' || operand === 'link') st.add(`m.has_${operand}`, negated);
  else throw NarrowErrors.unknownHasOperand(operandText(operand));
}
