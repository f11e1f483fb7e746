import { RealmService } from '../../../src/realm/realm.service';
import { AuthService } from '../../../src/users/auth.service';
import { UsersService } from '../../../src/users/users.service';
import type { TestApp } from '../../helpers/test-app';

import { call, channelId, userId } from '../../helpers/api';
import { CacheInvalidation } from '../../../src/database/cache-invalidation';
export {
  AARON,
  call,
  channelId,
  CORDELIA,
  DEFAULT_BOT as BOT,
  DESDEMONA,
  encodeParams,
  expectError,
  expectSuccess,
  groupId as systemGroupId,
  HAMLET,
  IAGO,
  type Method,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  SHIVA,
  userId,
  ZOE,
} from '../../helpers/api';

/** Sends a channel message as `email` and returns its id. */
export async function sendChannel(
  t: TestApp,
  email: string,
  channel: string,
  topic: string,
  content: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const res = await call(t, 'post', '/messages', email, { type: 'channel', to: channel, topic, content, ...extra });
  if (res.status !== 200) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: number }).id;
}

/** Sends a direct message as `email` to the given user ids and returns its id. */
export async function sendDirect(t: TestApp, email: string, to: number[], content: string): Promise<number> {
  const res = await call(t, 'post', '/messages', email, { type: 'direct', to, content });
  if (res.status !== 200) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: number }).id;
}

export async function subscribe(t: TestApp, email: string, channel: string, principals?: string[]): Promise<void> {
  const res = await call(t, 'post', '/users/me/subscriptions', email, {
    subscriptions: [{ name: channel }],
    ...(principals ? { principals } : {}),
  });
  if (res.status !== 200) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function unsubscribe(t: TestApp, email: string, channel: string): Promise<void> {
  const res = await call(t, 'delete', '/users/me/subscriptions', email, { subscriptions: [channel] });
  if (res.status !== 200) throw new Error(`unsubscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The UserMessage flags of `email` for a message (null: no row). */
export async function umFlags(t: TestApp, email: string, messageId: number): Promise<number | null> {
  const rows = await t.dataSource.query<Array<{ flags: string }>>(
    `SELECT um.flags FROM user_message um JOIN user_profile u ON u.id = um.user_profile_id
      WHERE lower(u.delivery_email) = lower($1) AND um.message_id = $2 ORDER BY u.id DESC`,
    [email, messageId],
  );
  return rows.length === 0 ? null : Number(rows[0].flags);
}

export type { Queue as EventQueue } from '../../helpers/events';
export { registerQueue as openQueue, takeEvents } from '../../helpers/events';

/** Updates realm columns directly and drops the cached realm rows. */
export async function setRealm(t: TestApp, values: Record<string, unknown>): Promise<void> {
  for (const [column, value] of Object.entries(values)) {
    await t.dataSource.query(`UPDATE realm SET "${column}" = $1 WHERE string_id = 'zulip'`, [value]);
  }
  t.app.get(RealmService).invalidate();
}

/** Updates user_profile columns directly and drops the user's cached auth row. */
export async function setUser(t: TestApp, email: string, values: Record<string, unknown>): Promise<void> {
  const id = await userId(t, email);
  for (const [column, value] of Object.entries(values)) {
    await t.dataSource.query(`UPDATE user_profile SET "${column}" = $1 WHERE id = $2`, [value, id]);
  }
  t.app.get(AuthService).invalidateUser(id);
}

export async function setChannel(t: TestApp, name: string, values: Record<string, unknown>): Promise<void> {
  const id = await channelId(t, name);
  for (const [column, value] of Object.entries(values)) {
    await t.dataSource.query(`UPDATE stream SET "${column}" = $1 WHERE id = $2`, [value, id]);
  }
  await channelsChanged(t);
}

/**
 * After fixture SQL on channels, subscriptions, user topics or messages: drops the send path's
 * cached channels (ChannelSendCache), as the services' own writes do when they commit.
 */
export async function channelsChanged(t: TestApp): Promise<void> {
  const invalidation = t.app.get(CacheInvalidation);
  invalidation.publish('channels', null);
  // The NOTIFY is a statement of its own: wait for it, so that it is not counted in what follows.
  await invalidation.flush();
}

/** Creates active member users in the demo realm (through the users service) and returns their ids. */
export async function createUsers(t: TestApp, prefix: string, count: number): Promise<number[]> {
  const realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const { user } = await t.app
      .get(UsersService)
      .createUser(realm, { email: `${prefix}${i}@zulip.com`, fullName: `${prefix} ${i}` });
    ids.push(user.id);
  }
  return ids;
}

/** Active subscription rows for users, written directly (bulk fixtures). */
export async function addSubscribers(t: TestApp, channel: string, userIds: number[]): Promise<void> {
  const rows = await t.dataSource.query<Array<{ recipient_id: number }>>(
    `SELECT recipient_id FROM stream WHERE id = $1`,
    [await channelId(t, channel)],
  );
  await t.dataSource.query(
    `INSERT INTO subscription (user_profile_id, recipient_id, active) SELECT u, $2, true FROM unnest($1::int[]) AS u
     ON CONFLICT (user_profile_id, recipient_id) DO UPDATE SET active = true`,
    [userIds, rows[0].recipient_id],
  );
  await channelsChanged(t);
}
