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
export const subscriptionsView = `(SELECT id, user_profile_id, recipient_id, active, is_muted, email_notifications,
         push_notifications
    FROM subscription)`;

/** `EXISTS` an active subscription of user `userIdExpr` to recipient `recipientIdExpr`. */
export const isActiveSubscriber = (userIdExpr: string, recipientIdExpr: string): string =>
  `EXISTS (SELECT 1 FROM subscription WHERE user_profile_id = ${userIdExpr} AND recipient_id = ${recipientIdExpr} AND active)`;

/**
 * The channels user `userIdExpr` is actively subscribed to, as (recipient_id, stream_id): a
 * statement reading many rows of those channels materialises it once and hash-joins it
 * (`WITH subs AS MATERIALIZED (${activeSubscribedChannels('$1')})`), where a per-row
 * {@link isActiveSubscriber} inside an `OR` runs as a subplan for every row.
 */
export const activeSubscribedChannels = (userIdExpr: string): string =>
  `SELECT sub.recipient_id, s.id AS stream_id FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id
    WHERE sub.user_profile_id = ${userIdExpr} AND sub.active`;

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

/**
 * A data-modifying statement (or CTE body) that sets first_message_id to `idExpr` on the channels
 * that have none yet, matched against the caller's FROM item `from` by `match(channel)`: messaging
 * records a channel's first message in the statement that inserts it.
 */
export const fillFirstMessageIdSql = (from: string, idExpr: string, match: (channel: string) => string): string =>
  `UPDATE stream c SET first_message_id = ${idExpr} FROM ${from} WHERE ${match('c')} AND c.first_message_id IS NULL`;

/**
 * A data-modifying CTE body that creates a recipient row for each `(type, type_id)` row of the
 * caller's `select` and returns `id, type_id`: messaging creates a direct-message group and its
 * recipient in one statement.
 */
export const insertRecipientsSql = (select: string): string =>
  `INSERT INTO recipient (type, type_id) ${select} RETURNING id, type_id`;

/** A statement deleting the recipient of type `type` whose type_id is `$1` (an orphan of a lost race). */
export const deleteRecipientSql = (type: number): string =>
  `DELETE FROM recipient WHERE type = ${type} AND type_id = $1`;
