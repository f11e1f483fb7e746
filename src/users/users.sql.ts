/**
 * SQL that other modules compose into their own single statements (docs/DEVELOPING.md, "Tables and
 * their owners"): users owns user_profile, so only users writes SQL naming it. A module whose hot
 * query needs a user's columns joins this view instead of paying a query more; everything else
 * calls `UserDirectoryService`.
 */

/**
 * Users (active or not) as other modules may join them:
 * `JOIN ${usersView} u ON u.id = x.user_profile_id WHERE u.is_active …`. These columns are the API;
 * PostgreSQL inlines the subquery, so the plan is that of a join on user_profile.
 */
export const usersView = `(SELECT id, realm_id, role, is_active, is_bot, long_term_idle, receives_typing_notifications,
         presence_enabled, delivery_email, email_address_visibility, date_joined, full_name, avatar_source,
         avatar_version, bot_owner_id, is_mirror_dummy, enable_stream_email_notifications,
         enable_stream_push_notifications
    FROM user_profile)`;

/** `EXISTS` an active user with id `userIdExpr` (an SQL expression of the caller's statement). */
export const isActiveUser = (userIdExpr: string): string =>
  `EXISTS (SELECT 1 FROM user_profile WHERE id = ${userIdExpr} AND is_active)`;

/**
 * A recursive CTE `name(id)` for `WITH RECURSIVE`: the groups user `userIdExpr` is a member of,
 * directly or through subgroups (the walk PrincipalService.recursiveGroupIds does), for a caller
 * whose single statement filters on group-held permissions.
 */
export const userGroupIdsCte = (name: string, userIdExpr: string): string =>
  `${name}(id) AS (
     SELECT user_group_id FROM user_group_membership WHERE user_profile_id = ${userIdExpr}
   UNION
     SELECT ggm.supergroup_id FROM group_group_membership ggm JOIN ${name} ON ggm.subgroup_id = ${name}.id)`;
