/**
 * Applies events to a POST /register snapshot the way a client keeps its state up to date,
 * mirroring Zulip's zerver/lib/events.py apply_event (the server-side twin of every client's
 * event handling). Used by the verify-action tests: register, act, apply the queued events,
 * register again, and compare.
 *
 * Where Zulip's apply_event consults the database (recomputing the caller's permissions after a
 * realm setting changes, the deprecated *_policy enums), this helper derives the same values
 * from the snapshot itself (realm_user_groups), as a client does.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
export type State = Record<string, Json>;
export type Event = Record<string, Json> & { type: string };

export interface ApplyContext {
  /** The user the snapshot belongs to. */
  userId: number;
  /** The queue was registered with include_subscribers true (or "partial"). */
  includeSubscribers: boolean;
  clientGravatar: boolean;
  /** The empty_topic_name client capability. */
  emptyTopicName: boolean;
  /** The include_deactivated_groups client capability. */
  includeDeactivatedGroups: boolean;
  /** The notification_settings_null client capability. */
  notificationSettingsNull: boolean;
  /** The user_list_incomplete client capability. */
  userListIncomplete?: boolean;
}

const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';
const ROLE = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 };

const byId = (a: { user_id: number }, b: { user_id: number }) => a.user_id - b.user_id;
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const numeric = (a: number, b: number) => a - b;

function unique(ids: number[]): number[] {
  return [...new Set(ids)].sort(numeric);
}

// ---------------------------------------------------------------------------------------------
// Group-setting membership, from the snapshot's realm_user_groups (UserProfile.has_permission).
// ---------------------------------------------------------------------------------------------

function groupsById(state: State): Map<number, Json> {
  return new Map(((state.realm_user_groups ?? []) as Json[]).map((g) => [g.id, g]));
}

function inGroup(state: State, groupId: number, userId: number, seen = new Set<number>()): boolean {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const group = groupsById(state).get(groupId);
  if (!group) return false;
  if ((group.members as number[]).includes(userId)) return true;
  return (group.direct_subgroup_ids as number[]).some((id) => inGroup(state, id, userId, seen));
}

function holdsSetting(state: State, value: Json, userId: number): boolean {
  if (typeof value === 'number') return inGroup(state, value, userId);
  if ((value.direct_members as number[]).includes(userId)) return true;
  return (value.direct_subgroups as number[]).some((id) => inGroup(state, id, userId));
}

function systemGroupName(state: State, value: Json): string | undefined {
  if (typeof value !== 'number') return undefined;
  const group = groupsById(state).get(value);
  return group?.is_system_group ? (group.name as string) : undefined;
}

/** zerver/models/realms.py get_corresponding_policy_value_for_group_setting. */
function legacyPolicy(state: State, setting: string, value: Json): number {
  const name = systemGroupName(state, value);
  if (setting === 'can_mention_many_users_group') {
    const map: Record<string, number> = {
      'role:everyone': 1,
      'role:members': 2,
      'role:fullmembers': 3,
      'role:administrators': 5,
      'role:nobody': 6,
      'role:moderators': 7,
    };
    return (name && map[name]) || 1;
  }
  const map: Record<string, number> = {
    'role:members': 1,
    'role:administrators': 2,
    'role:fullmembers': 3,
    'role:moderators': 4,
    'role:everyone': 5,
    'role:nobody': 6,
    'role:owners': 7,
  };
  const policy = name === undefined ? undefined : map[name];
  if (setting === 'can_create_web_public_channel_group') {
    return policy !== undefined && [2, 4, 6, 7].includes(policy) ? policy : 4;
  }
  return policy !== undefined && [1, 2, 3, 4].includes(policy) ? policy : 1;
}

// ---------------------------------------------------------------------------------------------
// unread_msgs, kept in the aggregated form clients receive.
// ---------------------------------------------------------------------------------------------

function isMutedTopic(state: State, streamId: number, topic: string): boolean {
  const sub = ((state.subscriptions ?? []) as Json[]).find((s) => s.stream_id === streamId);
  const policy = ((state.user_topics ?? []) as Json[]).find(
    (t) => t.stream_id === streamId && String(t.topic_name).toLowerCase() === topic.toLowerCase(),
  )?.visibility_policy as number | undefined;
  if (sub?.is_muted) return !(policy === 2 || policy === 3);
  return policy === 1;
}

function removeUnread(state: State, messageIds: number[]): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  const gone = new Set(messageIds);
  let removedCounted = 0;
  const prune = (lists: Json[], counted: (entry: Json) => boolean) =>
    lists.filter((entry) => {
      const before = entry.unread_message_ids.length;
      entry.unread_message_ids = (entry.unread_message_ids as number[]).filter((id) => !gone.has(id));
      if (counted(entry)) removedCounted += before - entry.unread_message_ids.length;
      return entry.unread_message_ids.length > 0;
    });
  unread.pms = prune(unread.pms, () => true);
  unread.huddles = prune(unread.huddles, () => true);
  unread.streams = prune(unread.streams, (e) => !isMutedTopic(state, e.stream_id, e.topic));
  unread.mentions = (unread.mentions as number[]).filter((id) => !gone.has(id));
  unread.count -= removedCounted;
}

interface UnreadDetails {
  type: 'stream' | 'private';
  stream_id?: number;
  topic?: string;
  user_ids?: number[];
  sender_id?: number;
  mentioned?: boolean;
  unmuted_stream_msg?: boolean;
}

/** zerver/lib/message.py apply_unread_message_event / add_message_to_unread_msgs. */
function addUnread(state: State, ctx: ApplyContext, messageId: number, d: UnreadDetails, wildcard: boolean): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  const push = (entry: Json) => {
    entry.unread_message_ids = unique([...entry.unread_message_ids, messageId]);
  };
  if (d.type === 'stream') {
    const topic = d.topic === '' && !ctx.emptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : d.topic!;
    let entry = (unread.streams as Json[]).find(
      (s) => s.stream_id === d.stream_id && String(s.topic).toLowerCase() === topic.toLowerCase(),
    );
    if (!entry) {
      entry = { stream_id: d.stream_id, topic, unread_message_ids: [] };
      unread.streams.push(entry);
    }
    push(entry);
    const muted = isMutedTopic(state, d.stream_id!, topic);
    if (!muted) unread.count++;
    if (d.mentioned || (wildcard && !muted)) unread.mentions = unique([...unread.mentions, messageId]);
    return;
  }
  const others = (d.user_ids ?? []).filter((id) => id !== ctx.userId);
  if (others.length <= 1) {
    const other = others[0] ?? ctx.userId;
    let entry = (unread.pms as Json[]).find((p) => p.other_user_id === other);
    if (!entry) {
      entry = { other_user_id: other, sender_id: other, unread_message_ids: [] };
      unread.pms.push(entry);
    }
    push(entry);
  } else {
    const key = unique([...others, ctx.userId]).join(',');
    let entry = (unread.huddles as Json[]).find((h) => h.user_ids_string === key);
    if (!entry) {
      entry = { user_ids_string: key, unread_message_ids: [] };
      unread.huddles.push(entry);
    }
    push(entry);
  }
  unread.count++;
  if (d.mentioned || wildcard) unread.mentions = unique([...unread.mentions, messageId]);
}

function applyMessage(state: State, ctx: ApplyContext, event: Event): void {
  const message = event.message;
  const flags = event.flags as string[];
  if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, message.id);
  if (!flags.includes('read')) {
    const wildcard = flags.some((f) => f.endsWith('wildcard_mentioned'));
    const mentioned = flags.includes('mentioned');
    if (message.type === 'stream') {
      addUnread(
        state,
        ctx,
        message.id,
        { type: 'stream', stream_id: message.stream_id, topic: message.subject, mentioned },
        wildcard,
      );
    } else {
      const userIds = (message.display_recipient as Json[]).map((u) => u.id as number);
      addUnread(state, ctx, message.id, { type: 'private', user_ids: userIds, mentioned }, wildcard);
    }
  }
  if (message.type !== 'stream') {
    const conversations = state.recent_private_conversations as Json[] | undefined;
    if (conversations) {
      const userIds = unique(
        (message.display_recipient as Json[]).map((u) => u.id as number).filter((id) => id !== ctx.userId),
      );
      const key = userIds.join(',');
      let conversation = conversations.find((c) => (c.user_ids as number[]).join(',') === key);
      if (!conversation) {
        conversation = { user_ids: userIds, max_message_id: message.id };
        conversations.push(conversation);
      }
      conversation.max_message_id = message.id;
      conversations.sort((a, b) => b.max_message_id - a.max_message_id);
    }
    return;
  }
  for (const list of [state.subscriptions, state.streams]) {
    for (const sub of (list ?? []) as Json[]) {
      if (sub.stream_id === message.stream_id && sub.first_message_id === null) sub.first_message_id = message.id;
    }
  }
}

// ---------------------------------------------------------------------------------------------

function allUsers(state: State): Json[] {
  return [...((state.realm_users ?? []) as Json[]), ...((state.realm_non_active_users ?? []) as Json[])];
}

/** post_process_state: realm_users / realm_non_active_users partitioned by is_active, by id. */
function repartitionUsers(state: State): void {
  if (!('realm_users' in state)) return;
  const users = allUsers(state).sort(byId);
  state.realm_users = users.filter((u) => u.is_active);
  state.realm_non_active_users = users.filter((u) => !u.is_active);
}

/** Zulip's get_data_for_inaccessible_user. */
function inaccessibleUser(userId: number, host: string): Json {
  return {
    email: `user${userId}@${host}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: false,
    full_name: 'Unknown user',
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    role: ROLE.MEMBER,
    avatar_url: '/static/images/unknown-user-avatar.png',
    profile_data: {},
  };
}

function applyRealmUser(state: State, ctx: ApplyContext, event: Event): void {
  const person = event.person;
  if (!('realm_users' in state)) return;
  if (event.op === 'add') {
    const user = structuredClone(person);
    if (
      ctx.clientGravatar &&
      typeof user.avatar_url === 'string' &&
      user.avatar_url.startsWith('https://secure.gravatar.com/')
    ) {
      user.avatar_url = null;
    }
    user.is_active = true;
    // A new user has no profile data yet (Zulip's apply_event sets {}); a user a restricted guest
    // gains sight of comes with theirs.
    if (!user.is_bot) user.profile_data = user.profile_data ?? {};
    state.realm_non_active_users = (state.realm_non_active_users as Json[]).filter((u) => u.user_id !== user.user_id);
    state.realm_users = (state.realm_users as Json[]).filter((u) => u.user_id !== user.user_id);
    state.realm_users.push(user);
    repartitionUsers(state);
    return;
  }
  if (event.op === 'remove') {
    // A restricted guest lost sight of the user: dropped with user_list_incomplete, else shown as
    // the "Unknown user" placeholder (Zulip's apply_event, get_data_for_inaccessible_user).
    state.realm_users = (state.realm_users as Json[]).filter((u) => u.user_id !== person.user_id);
    state.realm_non_active_users = ((state.realm_non_active_users ?? []) as Json[]).filter(
      (u) => u.user_id !== person.user_id,
    );
    if (!ctx.userListIncomplete) {
      const host = new URL(String(state.realm_url ?? state.realm_uri ?? 'http://unknown')).hostname;
      state.realm_users.push(inaccessibleUser(person.user_id, host));
      repartitionUsers(state);
    }
    return;
  }
  // update
  const isMe = person.user_id === ctx.userId;
  if (isMe) {
    if ('avatar_url' in person && 'avatar_url' in state) {
      state.avatar_source = person.avatar_source;
      state.avatar_url = person.avatar_url;
      state.avatar_url_medium = person.avatar_url_medium;
    }
    if ('role' in person) {
      state.is_admin = person.role <= ROLE.ADMINISTRATOR;
      state.is_owner = person.role === ROLE.OWNER;
      state.is_moderator = person.role === ROLE.MODERATOR;
      state.is_guest = person.role === ROLE.GUEST;
    }
    for (const field of ['delivery_email', 'email', 'full_name']) {
      if (field in person && field in state) state[field] = person[field];
    }
    if ('new_email' in person) state.email = person.new_email;
  }
  const user = allUsers(state).find((u) => u.user_id === person.user_id);
  if (user) {
    const update = { ...person };
    if (
      'avatar_url' in update &&
      ctx.clientGravatar &&
      typeof update.avatar_url === 'string' &&
      update.avatar_url.startsWith('https://secure.gravatar.com/')
    ) {
      update.avatar_url = null;
      update.avatar_url_medium = null;
    }
    for (const field of Object.keys(user)) if (field in update) user[field] = update[field];
    if ('role' in person) {
      user.is_admin = person.role <= ROLE.ADMINISTRATOR;
      user.is_owner = person.role === ROLE.OWNER;
      user.is_guest = person.role === ROLE.GUEST;
    }
    if ('custom_profile_field' in person) {
      const field = person.custom_profile_field;
      const id = String(field.id);
      if (field.value === null) {
        if (user.profile_data) delete user.profile_data[id];
      } else if ('rendered_value' in field) {
        user.profile_data[id] = { value: field.value, rendered_value: field.rendered_value };
      } else {
        user.profile_data[id] = { value: field.value };
      }
    }
    if ('new_email' in person) user.email = person.new_email;
    if ('is_active' in person && !person.is_active) {
      if (ctx.includeSubscribers) {
        for (const list of ['subscriptions', 'unsubscribed', 'never_subscribed']) {
          for (const sub of (state[list] ?? []) as Json[]) {
            const key = 'subscribers' in sub ? 'subscribers' : 'partial_subscribers';
            if (sub[key]) sub[key] = (sub[key] as number[]).filter((id) => id !== person.user_id);
          }
        }
      }
      for (const group of (state.realm_user_groups ?? []) as Json[]) {
        group.members = (group.members as number[]).filter((id) => id !== person.user_id);
      }
    }
    repartitionUsers(state);
  }
  if (isMe && 'role' in person) {
    // Recompute what the role decides (Zulip asks the database; the snapshot's groups suffice
    // once the role-group membership events were applied).
    recomputeOwnPermissions(state, ctx);
    if ('realm_default_streams' in state && state.is_guest) state.realm_default_streams = [];
  }
}

function recomputeOwnPermissions(state: State, ctx: ApplyContext): void {
  if (!('can_create_public_streams' in state) || !('realm_can_create_public_channel_group' in state)) return;
  const holds = (setting: string) => holdsSetting(state, state[`realm_${setting}`], ctx.userId);
  state.can_create_public_streams = holds('can_create_public_channel_group');
  state.can_create_private_streams = holds('can_create_private_channel_group');
  state.can_create_web_public_streams = holds('can_create_web_public_channel_group');
  state.can_create_streams =
    state.can_create_public_streams || state.can_create_private_streams || state.can_create_web_public_streams;
  state.can_invite_others_to_realm = holds('can_invite_users_group');
  state.can_subscribe_other_users = holds('can_add_subscribers_group');
}

function applyRealm(state: State, ctx: ApplyContext, event: Event): void {
  if (event.op === 'update') {
    state[`realm_${event.property}`] = event.value;
    if (event.property === 'jitsi_server_url') {
      state.jitsi_server_url = state.realm_jitsi_server_url ?? state.server_jitsi_server_url;
    }
    if (event.property === 'message_edit_history_visibility_policy') {
      state.realm_allow_edit_history = event.value !== 'none';
    }
    return;
  }
  if (event.op !== 'update_dict') return;
  for (const [key, value] of Object.entries(event.data as Record<string, Json>)) {
    if (key === 'max_file_upload_size_mib') {
      state.max_file_upload_size_mib = value;
      continue;
    }
    state[`realm_${key}`] = value;
    if (key === 'authentication_methods') {
      state.realm_password_auth_enabled = Boolean(value.Email?.enabled || value.LDAP?.enabled);
      state.realm_email_auth_enabled = Boolean(value.Email?.enabled);
    }
    if (key === 'can_create_public_channel_group') {
      state.realm_create_public_stream_policy = legacyPolicy(state, key, value);
    } else if (key === 'can_create_private_channel_group') {
      state.realm_create_private_stream_policy = legacyPolicy(state, key, value);
    } else if (key === 'can_create_web_public_channel_group') {
      state.realm_create_web_public_stream_policy = legacyPolicy(state, key, value);
    } else if (key === 'can_mention_many_users_group') {
      state.realm_wildcard_mention_policy = legacyPolicy(state, key, value);
    }
    if (key === 'plan_type') state.zulip_plan_is_not_limited = value !== 2;
  }
  recomputeOwnPermissions(state, ctx);
}

function applyStream(state: State, ctx: ApplyContext, event: Event): void {
  if (event.op === 'create') {
    for (const stream of event.streams as Json[]) {
      const data = structuredClone(stream);
      if (ctx.includeSubscribers) data.subscribers = [];
      if ('never_subscribed' in state) {
        // Zulip puts a channel the user was once subscribed to in `unsubscribed` (it asks the
        // database); a client only knows it was not in its lists.
        const known = [...state.subscriptions, ...state.unsubscribed].some(
          (s: Json) => s.stream_id === stream.stream_id,
        );
        if (!known) state.never_subscribed.push(data);
      }
      if ('streams' in state) state.streams.push(stream);
    }
    for (const list of ['unsubscribed', 'never_subscribed', 'streams']) if (state[list]) state[list].sort(byName);
  } else if (event.op === 'delete') {
    const ids = new Set(((event.streams as Json[]) ?? []).map((s) => s.stream_id as number));
    for (const list of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
      if (state[list]) state[list] = (state[list] as Json[]).filter((s) => !ids.has(s.stream_id));
    }
  } else if (event.op === 'update') {
    const matches = (s: Json) => String(s.name).toLowerCase() === String(event.name).toLowerCase();
    const set = (obj: Json, onlyIfPresent: boolean) => {
      if (onlyIfPresent && !(event.property in obj)) return;
      obj[event.property] = event.value;
      if (event.property === 'description') obj.rendered_description = event.rendered_description;
      if (event.history_public_to_subscribers !== undefined && event.history_public_to_subscribers !== null) {
        obj.history_public_to_subscribers = event.history_public_to_subscribers;
      }
      if (event.is_web_public !== undefined && event.is_web_public !== null) obj.is_web_public = event.is_web_public;
    };
    for (const list of ['subscriptions', 'unsubscribed', 'never_subscribed']) {
      for (const obj of (state[list] ?? []) as Json[]) if (matches(obj)) set(obj, false);
    }
    for (const obj of (state.streams ?? []) as Json[]) if (matches(obj)) set(obj, true);
    if (event.property === 'name') {
      for (const list of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
        if (state[list]) state[list].sort(byName);
      }
    }
  }
}

function applySubscription(state: State, ctx: ApplyContext, event: Event): void {
  if (!('subscriptions' in state)) return;
  if (event.op === 'add') {
    const added = new Set((event.subscriptions as Json[]).map((s) => s.stream_id as number));
    const existing = new Set((state.subscriptions as Json[]).map((s) => s.stream_id as number));
    for (const sub of event.subscriptions as Json[]) {
      if (existing.has(sub.stream_id)) continue;
      const copy = structuredClone(sub);
      const key = 'subscribers' in copy ? 'subscribers' : 'partial_subscribers';
      if (key in copy && !ctx.includeSubscribers) delete copy[key];
      state.subscriptions.push(copy);
    }
    state.unsubscribed = (state.unsubscribed as Json[]).filter((s) => !added.has(s.stream_id));
    state.never_subscribed = (state.never_subscribed as Json[]).filter((s) => !added.has(s.stream_id));
    state.subscriptions.sort(byName);
  } else if (event.op === 'remove') {
    const removed = new Set((event.subscriptions as Json[]).map((s) => s.stream_id as number));
    const subs = (state.subscriptions as Json[]).filter((s) => removed.has(s.stream_id));
    if (ctx.includeSubscribers) {
      for (const sub of subs) {
        const key = 'subscribers' in sub ? 'subscribers' : 'partial_subscribers';
        if (sub[key]) sub[key] = (sub[key] as number[]).filter((id) => id !== ctx.userId);
      }
    }
    state.unsubscribed = [...state.unsubscribed, ...subs].sort(byName);
    state.subscriptions = (state.subscriptions as Json[]).filter((s) => !removed.has(s.stream_id));
  } else if (event.op === 'update') {
    for (const sub of state.subscriptions as Json[]) {
      if (sub.stream_id === event.stream_id) sub[event.property] = event.value;
    }
  } else if (event.op === 'peer_add' || event.op === 'peer_remove') {
    if (!ctx.includeSubscribers) return;
    const streamIds = new Set(event.stream_ids as number[]);
    const userIds = event.user_ids as number[];
    for (const list of ['subscriptions', 'unsubscribed', 'never_subscribed']) {
      for (const sub of state[list] as Json[]) {
        if (!streamIds.has(sub.stream_id)) continue;
        const key = 'subscribers' in sub ? 'subscribers' : 'partial_subscribers';
        const current = (sub[key] ?? []) as number[];
        sub[key] =
          event.op === 'peer_add'
            ? unique([...current, ...userIds])
            : unique(current.filter((id) => !userIds.includes(id)));
      }
    }
  }
}

function applyUserGroup(state: State, event: Event): void {
  const groups = state.realm_user_groups as Json[] | undefined;
  if (!groups) return;
  const group = groups.find((g) => g.id === event.group_id);
  switch (event.op) {
    case 'add':
      groups.push(structuredClone(event.group));
      groups.sort((a, b) => a.id - b.id);
      break;
    case 'update':
      if (group) Object.assign(group, event.data);
      break;
    case 'add_members':
      if (group) group.members = unique([...group.members, ...event.user_ids]);
      break;
    case 'remove_members':
      if (group) group.members = (group.members as number[]).filter((id) => !event.user_ids.includes(id));
      break;
    case 'add_subgroups':
      if (group) group.direct_subgroup_ids = unique([...group.direct_subgroup_ids, ...event.direct_subgroup_ids]);
      break;
    case 'remove_subgroups':
      if (group) {
        group.direct_subgroup_ids = (group.direct_subgroup_ids as number[]).filter(
          (id) => !event.direct_subgroup_ids.includes(id),
        );
      }
      break;
    case 'remove':
      state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
      break;
    default:
      throw new Error(`unexpected user_group op ${String(event.op)}`);
  }
}

function applyUpdateMessageFlags(state: State, ctx: ApplyContext, event: Event): void {
  if (event.flag === 'read' && event.op === 'add' && event.all === true && state.unread_msgs) {
    // Mark-all-as-read sends no ids (Zulip's do_mark_all_as_read); clients clear everything.
    Object.assign(state.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0 });
  }
  if (event.flag === 'read' && event.op === 'add') removeUnread(state, event.messages);
  if (event.flag === 'read' && event.op === 'remove' && event.message_details) {
    for (const [id, details] of Object.entries(event.message_details as Record<string, Json>)) {
      const wildcard = false;
      addUnread(
        state,
        ctx,
        Number(id),
        {
          type: details.type,
          stream_id: details.stream_id,
          topic: details.topic,
          user_ids: details.type === 'private' ? [...(details.user_ids ?? []), ctx.userId] : undefined,
          mentioned: details.mentioned === true,
        },
        wildcard,
      );
    }
  }
  if (event.flag === 'starred' && 'starred_messages' in state) {
    if (event.op === 'add') state.starred_messages = unique([...state.starred_messages, ...event.messages]);
    if (event.op === 'remove') {
      state.starred_messages = (state.starred_messages as number[]).filter((id) => !event.messages.includes(id));
    }
  }
}

/** The unread stream bucket holding a message, if it is unread. */
function unreadBucket(state: State, messageId: number): Json | undefined {
  return ((state.unread_msgs?.streams ?? []) as Json[]).find((s) =>
    (s.unread_message_ids as number[]).includes(messageId),
  );
}

/**
 * update_message: unread messages follow a topic rename or a move to another channel (Zulip's
 * apply_event), and an edited unread message's mention follows its new flags (as clients do).
 */
function applyUpdateMessage(state: State, ctx: ApplyContext, event: Event): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  const ids = (event.message_ids ?? [event.message_id]) as number[];
  if ('new_stream_id' in event || 'subject' in event) {
    for (const id of ids) {
      const bucket = unreadBucket(state, id);
      if (!bucket) continue;
      const mentioned = (unread.mentions as number[]).includes(id);
      removeUnread(state, [id]);
      addUnread(
        state,
        ctx,
        id,
        {
          type: 'stream',
          stream_id: (event.new_stream_id ?? bucket.stream_id) as number,
          topic: (event.subject ?? bucket.topic) as string,
          mentioned,
        },
        false,
      );
    }
  }
  if (Array.isArray(event.flags) && typeof event.message_id === 'number' && 'rendered_content' in event) {
    const id = event.message_id;
    const flags = event.flags as string[];
    const bucket = unreadBucket(state, id);
    const isUnreadDm = [...unread.pms, ...unread.huddles].some((e: Json) => e.unread_message_ids.includes(id));
    if (bucket || isUnreadDm) {
      const wildcard = flags.some((f) => f.endsWith('wildcard_mentioned'));
      const muted = bucket ? isMutedTopic(state, bucket.stream_id, bucket.topic) : false;
      const mentioned = flags.includes('mentioned') || (wildcard && !muted);
      const others = (unread.mentions as number[]).filter((m) => m !== id);
      unread.mentions = mentioned ? unique([...others, id]) : others;
    }
  }
}

/**
 * Keys Zulip's apply_event re-reads from the database for these events rather than deriving
 * them (delete_message: max_message_id, and recent_private_conversations for direct messages).
 */
export function keysRecomputedByServer(events: Event[]): string[] {
  const keys = new Set<string>();
  for (const e of events) {
    // A presence event: apply_event re-reads the user's presence (get_presence_for_user).
    if (e.type === 'presence') {
      keys.add('presences');
      keys.add('presence_last_update_id');
      continue;
    }
    if (e.type !== 'delete_message') continue;
    keys.add('max_message_id');
    if (e.message_type === 'private') keys.add('recent_private_conversations');
  }
  return [...keys];
}

/** Applies one event to `state` in place (zerver/lib/events.py apply_event). */
export function applyEvent(state: State, event: Event, ctx: ApplyContext): void {
  switch (event.type) {
    case 'heartbeat':
    case 'reaction': // clients get reactions with their messages
    case 'typing': // transient
    case 'submessage':
    case 'attachment':
    case 'invites_changed': // no state: clients fetch GET /invites again
      return;
    case 'message':
      return applyMessage(state, ctx, event);
    case 'update_message_flags':
      return applyUpdateMessageFlags(state, ctx, event);
    case 'update_message':
      return applyUpdateMessage(state, ctx, event);
    case 'delete_message': {
      const ids = (event.message_ids ?? [event.message_id]) as number[];
      removeUnread(state, ids);
      // Clients drop deleted messages from their starred list too.
      if (Array.isArray(state.starred_messages)) {
        state.starred_messages = (state.starred_messages as number[]).filter((id) => !ids.includes(id));
      }
      return;
    }
    case 'realm':
      return applyRealm(state, ctx, event);
    case 'realm_user':
      return applyRealmUser(state, ctx, event);
    case 'user_group':
      return applyUserGroup(state, event);
    case 'custom_profile_fields': {
      state.custom_profile_fields = event.fields;
      const ids = new Set((event.fields as Json[]).map((f) => String(f.id)));
      for (const user of allUsers(state)) {
        if (!user.profile_data) continue;
        for (const id of Object.keys(user.profile_data)) if (!ids.has(id)) delete user.profile_data[id];
      }
      return;
    }
    case 'realm_emoji':
      state.realm_emoji = event.realm_emoji;
      return;
    case 'realm_linkifiers':
      state.realm_linkifiers = event.realm_linkifiers;
      return;
    case 'realm_playgrounds':
      state.realm_playgrounds = event.realm_playgrounds;
      return;
    case 'realm_user_settings_defaults':
      if (event.op !== 'update') throw new Error(`unexpected realm_user_settings_defaults op ${String(event.op)}`);
      state.realm_user_settings_defaults[event.property] = event.value;
      return;
    case 'presence': // recomputed (keysRecomputedByServer)
      return;
    case 'user_status':
      return applyUserStatus(state, event);
    case 'alert_words':
      state.alert_words = event.alert_words;
      return;
    case 'drafts': {
      // Zulip's apply_event: append, replace or drop by id (the order is normalized below).
      const drafts = state.drafts as Json[];
      if (event.op === 'add') drafts.push(...(event.drafts as Json[]));
      else if (event.op === 'update') state.drafts = drafts.map((d) => (d.id === event.draft.id ? event.draft : d));
      else if (event.op === 'remove') state.drafts = drafts.filter((d) => d.id !== event.draft_id);
      return;
    }
    case 'saved_snippets': {
      const snippets = state.saved_snippets as Json[];
      const snippet = event.saved_snippet;
      if (event.op === 'add') snippets.push(snippet);
      else if (event.op === 'update') state.saved_snippets = snippets.map((x) => (x.id === snippet!.id ? snippet : x));
      else if (event.op === 'remove') state.saved_snippets = snippets.filter((x) => x.id !== event.saved_snippet_id);
      return;
    }
    case 'user_settings':
      if (event.property in state) state[event.property] = event.value;
      state.user_settings[event.property] = event.value;
      // Turning synchronization off deletes the server's drafts without draft events (Zulip's
      // do_change_user_setting); a client keeps its own copies, the server's list is empty.
      if (event.property === 'enable_drafts_synchronization' && event.value === false && state.drafts) {
        state.drafts = [];
      }
      return;
    // The legacy forms (clients without user_settings_object): top-level keys, as Zulip's apply_event.
    case 'update_display_settings':
      state[event.setting_name as string] = event.setting;
      return;
    case 'update_global_notifications':
      state[event.notification_name as string] = event.setting;
      return;
    case 'muted_users':
      state.muted_users = event.muted_users;
      return;
    case 'navigation_view': {
      const views = state.navigation_views as Json[];
      if (event.op === 'add') views.push(event.navigation_view);
      else if (event.op === 'update') Object.assign(views.find((v) => v.fragment === event.fragment) ?? {}, event.data);
      else if (event.op === 'remove') state.navigation_views = views.filter((v) => v.fragment !== event.fragment);
      return;
    }
    case 'stream':
      return applyStream(state, ctx, event);
    case 'subscription':
      return applySubscription(state, ctx, event);
    case 'default_streams':
      state.realm_default_streams = event.default_streams;
      return;
    case 'user_topic': {
      const topics = state.user_topics as Json[];
      // Zulip keeps one entry per (channel, topic): a new policy replaces the old one.
      const same = (t: Json) =>
        t.stream_id === event.stream_id &&
        String(t.topic_name).toLowerCase() === String(event.topic_name).toLowerCase();
      if (event.visibility_policy === 0) {
        state.user_topics = topics.filter((t) => !same(t));
      } else {
        const entry = {
          stream_id: event.stream_id,
          topic_name: event.topic_name,
          last_updated: event.last_updated,
          visibility_policy: event.visibility_policy,
        };
        const index = topics.findIndex(same);
        if (index >= 0) topics[index] = entry;
        else topics.push(entry);
      }
      return;
    }
    case 'realm_bot': {
      const bots = state.realm_bots as Json[] | undefined;
      if (!bots) return;
      if (event.op === 'add') bots.push(event.bot);
      else if (event.op === 'delete') state.realm_bots = bots.filter((b) => b.user_id !== event.bot.user_id);
      else if (event.op === 'update') {
        const bot = bots.find((b) => b.user_id === event.bot.user_id);
        if (bot && 'owner_id' in event.bot) bot.owner_id = event.bot.owner_id;
        else if (bot) Object.assign(bot, event.bot);
      }
      return;
    }
    case 'muted_topics':
      state.muted_topics = event.muted_topics;
      return;
    case 'channel_folder': {
      const folders = state.channel_folders as Json[];
      if (event.op === 'add') {
        folders.push(event.channel_folder);
        folders.sort((a, b) => a.id - b.id);
      } else if (event.op === 'update') {
        Object.assign(folders.find((f) => f.id === event.channel_folder_id) ?? {}, event.data);
      } else if (event.op === 'reorder') {
        const order = new Map((event.order as number[]).map((id, i) => [id, i]));
        for (const f of folders) f.order = order.get(f.id);
        folders.sort((a, b) => a.order - b.order);
      }
      return;
    }
    case 'scheduled_messages': {
      // Zulip's apply_event: add, replace or drop, kept in delivery-time order (ties by id).
      let list = state.scheduled_messages as Json[];
      if (event.op === 'add') list.push(...(event.scheduled_messages as Json[]));
      else if (event.op === 'update') {
        list = list.map((m) =>
          m.scheduled_message_id === event.scheduled_message.scheduled_message_id ? event.scheduled_message : m,
        );
      } else if (event.op === 'remove') {
        list = list.filter((m) => m.scheduled_message_id !== event.scheduled_message_id);
      }
      state.scheduled_messages = list.sort(
        (a, b) =>
          a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp ||
          a.scheduled_message_id - b.scheduled_message_id,
      );
      return;
    }
    case 'reminders': {
      let list = state.reminders as Json[];
      if (event.op === 'add') list.push(...(event.reminders as Json[]));
      else if (event.op === 'remove') list = list.filter((r) => r.reminder_id !== event.reminder_id);
      state.reminders = list.sort(
        (a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.reminder_id - b.reminder_id,
      );
      return;
    }
    default:
      throw new Error(`applyEvent: unexpected event type ${event.type}`);
  }
}

/** apply_event for user_status: set or drop each field the event carries; drop empty entries. */
function applyUserStatus(state: State, event: Event): void {
  if (!state.user_status) return;
  const key = String(event.user_id);
  const status: Record<string, Json> = state.user_status[key] ?? {};
  if (event.away !== undefined) {
    if (event.away) status.away = true;
    else delete status.away;
  }
  if (event.status_text !== undefined) {
    if (event.status_text === '') delete status.status_text;
    else status.status_text = event.status_text;
  }
  if (event.emoji_name !== undefined) {
    if (event.emoji_name === '') {
      delete status.emoji_name;
      delete status.emoji_code;
      delete status.reaction_type;
    } else {
      status.emoji_name = event.emoji_name;
      status.emoji_code = event.emoji_code;
      status.reaction_type = event.reaction_type;
    }
  }
  if (Object.keys(status).length === 0) delete state.user_status[key];
  else state.user_status[key] = status;
}

/**
 * Zulip's post_process_state, which its verify_action also runs on the updated snapshot: for
 * clients without notification_settings_null, subscriptions' unset notification settings take
 * the user's channel-notification defaults.
 */
export function postProcessState(state: State, ctx: ApplyContext): State {
  if (!ctx.notificationSettingsNull && state.subscriptions && state.user_settings) {
    for (const sub of [...state.subscriptions, ...state.unsubscribed] as Json[]) {
      for (const kind of ['desktop', 'audible', 'push', 'email']) {
        const key = `${kind}_notifications`;
        if (sub[key] === null) sub[key] = state.user_settings[`enable_stream_${key}`];
      }
    }
  }
  return state;
}

export function applyEvents(state: State, events: Event[], ctx: ApplyContext): State {
  for (const event of events) applyEvent(state, event, ctx);
  return postProcessState(state, ctx);
}

/**
 * What a fresh snapshot and an updated one may legitimately differ in: queue bookkeeping,
 * timestamps, and the values Zulip documents as not maintained by events (subscriber counts,
 * channel traffic). Lists whose order carries no meaning are sorted.
 */
export function normalizeState(state: State): State {
  const copy = structuredClone(state);
  for (const key of ['queue_id', 'last_event_id', 'server_timestamp', 'result', 'msg']) delete copy[key];
  // Message events update first_message_id only for subscribers (apply_event); Zulip sends no
  // update when a channel's first message is sent, so other users' copies keep null.
  const subscribed = new Set(((copy.subscriptions ?? []) as Json[]).map((s) => s.stream_id as number));
  for (const list of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
    if (!copy[list]) continue;
    for (const s of copy[list] as Json[]) {
      if (!subscribed.has(s.stream_id)) delete s.first_message_id;
      delete s.subscriber_count;
      delete s.stream_weekly_traffic;
      delete s.is_recently_active;
      if (Array.isArray(s.subscribers)) s.subscribers.sort(numeric);
    }
    (copy[list] as Json[]).sort((a, b) => a.stream_id - b.stream_id);
  }
  if (copy.unread_msgs) {
    const u = copy.unread_msgs;
    u.pms.sort((a: Json, b: Json) => a.other_user_id - b.other_user_id);
    u.huddles.sort((a: Json, b: Json) => (a.user_ids_string < b.user_ids_string ? -1 : 1));
    u.streams.sort(
      (a: Json, b: Json) =>
        a.stream_id - b.stream_id || (String(a.topic).toLowerCase() < String(b.topic).toLowerCase() ? -1 : 1),
    );
    u.mentions.sort(numeric);
  }
  if (Array.isArray(copy.starred_messages)) copy.starred_messages.sort(numeric);
  // /register lists drafts newest first; events append them (Zulip's apply_event does too).
  if (Array.isArray(copy.drafts)) copy.drafts.sort((a, b) => a.id - b.id);
  for (const group of (copy.realm_user_groups ?? []) as Json[]) {
    group.members.sort(numeric);
    group.direct_subgroup_ids.sort(numeric);
  }
  return copy;
}
