import type { TestApp } from '../../helpers/test-app';

import { Queue, registerQueue } from '../../helpers/events';
export {
  call,
  channelId,
  encodeParams,
  expectError,
  expectSuccess,
  groupId as systemGroupId,
  userId,
  type Method,
} from '../../helpers/api';

/** Names of the channels `email` is actively subscribed to. */
export async function subscribedNames(t: TestApp, email: string): Promise<string[]> {
  const rows = await t.dataSource.query<Array<{ name: string }>>(
    `SELECT s.name FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id
       JOIN user_profile u ON u.id = sub.user_profile_id
      WHERE lower(u.delivery_email) = lower($1) AND sub.active ORDER BY s.name`,
    [email],
  );
  return rows.map((r) => r.name);
}

export { expectRegisterMatchesOpenApi } from '../../helpers/openapi';
export type { Queue as EventQueue } from '../../helpers/events';
export { takeEvents } from '../../helpers/events';

/** POST /register for `email` with only `eventTypes` (and optional client capabilities). */
export function openQueue(
  t: TestApp,
  email: string,
  eventTypes: string[],
  capabilities: Record<string, boolean> = {},
): Promise<Queue> {
  return registerQueue(t, email, eventTypes, { client_capabilities: capabilities });
}
