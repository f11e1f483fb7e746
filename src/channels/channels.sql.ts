/**
 * SQL that other modules compose into their own single statements (docs/DEVELOPING.md, "Tables and
 * their owners"): channels owns stream, subscription and user_topic, so only channels writes SQL
 * naming them. A module whose hot query joins a channel, a subscription or a topic policy (message
 * access, unread state, flags, attachments' publicity) composes these instead of paying a query
 * more; everything else calls `ChannelQueriesService` / `UserTopicsService`. The column lists
 * are the API; PostgreSQL inlines the subqueries, so plans are those of plain joins.
 */

/** Channels: `LEFT JOIN ${channelsView} s ON m.is_channel_message AND s.recipient_id = m.recipient_id`. */
export const channelsView = `(SELECT id, realm_id, name, recipient_id, invite_only, is_web_public, history_public_to_subscribers,
         deactivated, topics_policy, first_message_id, can_add_subscribers_group, can_administer_channel_group,
         can_create_topic_group, can_delete_any_message_group, can_delete_own_message_group,
         can_move_messages_out_of_channel_group, can_move_messages_within_channel_group, can_resolve_topics_group,
         can_send_message_group, can_subscribe_group
    FROM stream)`;

/** Subscription rows (active or not): `JOIN ${subscriptionsView} sub ON sub.recipient_id = …`. */
export const subscriptionsView = `(SELECT id, user_profile_id, recipient_id, active, is_muted FROM subscription)`;

/** `EXISTS` an active subscription of user `userIdExpr` to recipient `recipientIdExpr`. */
export const isActiveSubscriber = (userIdExpr: string, recipientIdExpr: string): string =>
  `EXISTS (SELECT 1 FROM subscription WHERE user_profile_id = ${userIdExpr} AND recipient_id = ${recipientIdExpr} AND active)`;

/** Topic visibility policies: `LEFT JOIN ${userTopicsView} ut ON ut.user_profile_id = … AND …`. */
export const userTopicsView = `(SELECT user_profile_id, stream_id, recipient_id, topic_name, visibility_policy FROM user_topic)`;

/**
 * One statement that recomputes the channels' first_message_id (ids in `channelIdsParam`, an
 * `int[]` parameter) from `firstIdOf(s)`, the caller's SQL expression of a channel row `s`
 * (columns realm_id, recipient_id) whose value is that channel's oldest message id; returns the
 * changed channels' id, name and first_message_id, by id. Messaging supplies the expression (it
 * owns message) after deletes and moves.
 */
export const refreshFirstMessageIdsSql = (channelIdsParam: string, firstIdOf: (channel: string) => string): string =>
  `WITH fresh AS (
     SELECT s.id, ${firstIdOf('s')} AS first_id
       FROM stream s WHERE s.id = ANY(${channelIdsParam}::int[])),
   changed AS (
     UPDATE stream s SET first_message_id = fresh.first_id
       FROM fresh
      WHERE s.id = fresh.id AND s.first_message_id IS DISTINCT FROM fresh.first_id
     RETURNING s.id, s.name, s.first_message_id)
   SELECT id, name, first_message_id FROM changed ORDER BY id`;
