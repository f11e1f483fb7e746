/**
 * The benchmark's realm, built on the demo realm (seeded by the product server) with bulk SQL
 * rather than the API: 10,000 users, 1,000 channels and 1M messages take a minute this way.
 *
 * - users bench0…bench{U-1}@zulip.com, copies of hamlet (same settings and system groups),
 *   with deterministic API keys (see benchKey), digested with the server's secret;
 * - channels created through the API as hamlet: `bench 10`, `bench 1000`, `bench 10000`
 *   (hamlet + bench users, N subscribers in all) and `bench fetch` (10 subscribers), plus
 *   filler channels copied from `bench fetch` (3 bench users each; othello and hamlet in every
 *   tenth) up to the channel count;
 * - messages: one in 50 of the bulk messages goes to `bench fetch` (20k of 1M), the rest round
 *   robin to the filler channels; UserMessage rows for every subscriber (30 % unread).
 *
 * Columns are copied from template rows (hamlet, `bench fetch`) by name, so columns added by
 * later migrations keep their defaults or template values.
 */
import http from 'node:http';
import { Client } from 'pg';
import { ApiKeyCodec } from '../../src/users/api-keys';
import { basicAuth, request } from './http';

export interface DataOptions {
  users: number;
  channels: number;
  messages: number;
  log: (line: string) => void;
}

export interface BenchChannel {
  id: number;
  name: string;
  recipientId: number;
  subscribers: number;
}

export interface BenchData {
  realmId: number;
  hamlet: { id: number; email: string; key: string };
  othello: { id: number; email: string; key: string };
  channels: { c10: BenchChannel; c1000: BenchChannel; c10000: BenchChannel; fetch: BenchChannel };
  users: number;
  messagesInRealm: number;
  messagesInFetchChannel: number;
}

/** The API key of bench user i: 32 characters of [A-Za-z0-9], like every key. */
export function benchKey(i: number): string {
  return `Bench${String(i).padStart(27, '0')}`;
}

export const benchEmail = (i: number) => `bench${i}@zulip.com`;

async function columnsOf(db: Client, table: string): Promise<string[]> {
  const { rows } = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

/** `SELECT` list copying every column of `alias` except `id`, with overrides (SQL expressions). */
function copyList(
  columns: string[],
  alias: string,
  overrides: Record<string, string>,
): { cols: string; exprs: string } {
  const kept = columns.filter((c) => c !== 'id');
  return {
    cols: kept.map((c) => `"${c}"`).join(', '),
    exprs: kept.map((c) => overrides[c] ?? `${alias}."${c}"`).join(', '),
  };
}

export async function buildBenchData(
  port: number,
  databaseUrl: string,
  secretKey: string,
  opts: DataOptions,
): Promise<BenchData> {
  const agent = new http.Agent({ keepAlive: true });
  const keyOf = async (email: string) => {
    const r = await request(agent, port, 'POST', '/api/v1/dev_fetch_api_key', null, { username: email });
    if (r.status !== 200) throw new Error(`dev_fetch_api_key ${email}: ${JSON.stringify(r.body)}`);
    return { id: r.body.user_id as number, email, key: r.body.api_key as string };
  };
  const hamlet = await keyOf('hamlet@zulip.com');
  const othello = await keyOf('othello@zulip.com');
  const hamletAuth = basicAuth(hamlet.email, hamlet.key);

  // Channels through the API, so their rows are exactly what the product creates.
  const names = ['bench 10', 'bench 1000', 'bench 10000', 'bench fetch'];
  for (const name of names) {
    const r = await request(agent, port, 'POST', '/api/v1/users/me/subscriptions', hamletAuth, {
      subscriptions: JSON.stringify([{ name }]),
    });
    if (r.status !== 200) throw new Error(`creating channel ${name}: ${JSON.stringify(r.body)}`);
  }
  agent.destroy();

  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const t0 = Date.now();
    const step = (what: string) => opts.log(`  ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    const { rows: realmRows } = await db.query<{ realm_id: number }>(
      'SELECT realm_id FROM user_profile WHERE id = $1',
      [hamlet.id],
    );
    const realmId = realmRows[0].realm_id;

    // Users.
    const codec = new ApiKeyCodec(secretKey);
    const emails: string[] = [];
    const fullNames: string[] = [];
    const digests: string[] = [];
    const ciphertexts: string[] = [];
    for (let i = 0; i < opts.users; i++) {
      emails.push(benchEmail(i));
      fullNames.push(`Bench User ${i}`);
      digests.push(codec.digest(benchKey(i)));
      ciphertexts.push(codec.encrypt(benchKey(i)));
    }
    const userCopy = copyList(await columnsOf(db, 'user_profile'), 't', {
      delivery_email: 'v.email',
      full_name: 'v.full_name',
      api_key_digest: 'v.digest',
      api_key_ciphertext: 'v.ct',
      password_hash: 'NULL',
      date_joined: 'now()',
    });
    await db.query(
      `INSERT INTO user_profile (${userCopy.cols})
       SELECT ${userCopy.exprs}
         FROM user_profile t,
              unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS v(email, full_name, digest, ct, n)
        WHERE t.id = $1 ORDER BY v.n`,
      [hamlet.id, emails, fullNames, digests, ciphertexts],
    );
    const { rows: userRows } = await db.query<{ id: number; delivery_email: string }>(
      `SELECT id, delivery_email FROM user_profile WHERE realm_id = $1 AND delivery_email LIKE 'bench%@zulip.com'`,
      [realmId],
    );
    const benchIds: number[] = new Array<number>(opts.users);
    for (const r of userRows) benchIds[Number(/^bench(\d+)@/.exec(r.delivery_email)![1])] = r.id;
    await db.query(
      `INSERT INTO user_group_membership (user_group_id, user_profile_id)
       SELECT m.user_group_id, u.id
         FROM user_group_membership m JOIN user_group g ON g.id = m.user_group_id AND g.is_system_group,
              unnest($2::int[]) AS u(id)
        WHERE m.user_profile_id = $1`,
      [hamlet.id, benchIds],
    );
    step(`${opts.users} users`);

    // Channels.
    const { rows: chRows } = await db.query<{ id: number; name: string; recipient_id: number }>(
      `SELECT id, name, recipient_id FROM stream WHERE realm_id = $1 AND name = ANY($2::text[])`,
      [realmId, names],
    );
    const byName = new Map(chRows.map((r) => [r.name, r]));
    const existing = Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM stream WHERE realm_id = $1', [realmId])).rows[0].n,
    );
    const fillers = Math.max(0, opts.channels - existing);
    const streamCopy = copyList(await columnsOf(db, 'stream'), 't', {
      name: `'filler ' || g`,
      recipient_id: 'NULL',
      first_message_id: 'NULL',
      date_created: 'now()',
    });
    await db.query(
      `INSERT INTO stream (${streamCopy.cols})
       SELECT ${streamCopy.exprs} FROM stream t, generate_series(1, $2::int) g WHERE t.id = $1`,
      [byName.get('bench fetch')!.id, fillers],
    );
    await db.query(
      `INSERT INTO recipient (type, type_id)
       SELECT 2, id FROM stream WHERE realm_id = $1 AND recipient_id IS NULL ORDER BY id`,
      [realmId],
    );
    await db.query(
      `UPDATE stream s SET recipient_id = r.id FROM recipient r
        WHERE r.type = 2 AND r.type_id = s.id AND s.recipient_id IS NULL AND s.realm_id = $1`,
      [realmId],
    );
    const { rows: fillerRows } = await db.query<{ recipient_id: number }>(
      `SELECT recipient_id FROM stream WHERE realm_id = $1 AND name LIKE 'filler %' ORDER BY id`,
      [realmId],
    );
    const fillerRecipients = fillerRows.map((r) => r.recipient_id);

    // Subscriptions: the bench channels (hamlet is already subscribed), then the fillers.
    const subUsers: number[] = [];
    const subRecipients: number[] = [];
    const addSubs = (recipientId: number, userIds: number[]) => {
      for (const u of userIds) {
        subUsers.push(u);
        subRecipients.push(recipientId);
      }
    };
    const size = (n: number) => Math.min(n - 1, opts.users);
    addSubs(byName.get('bench 10')!.recipient_id, benchIds.slice(0, size(10)));
    addSubs(byName.get('bench 1000')!.recipient_id, benchIds.slice(0, size(1000)));
    addSubs(byName.get('bench 10000')!.recipient_id, benchIds.slice(0, size(10000)));
    addSubs(byName.get('bench fetch')!.recipient_id, benchIds.slice(0, size(10)));
    fillerRecipients.forEach((rid, k) => {
      const members = [0, 1, 2].map((j) => benchIds[(k * 7 + j * 3331) % opts.users]);
      if (k % 10 === 0) members.push(hamlet.id);
      if (k % 10 === 5) members.push(othello.id);
      addSubs(rid, [...new Set(members)]);
    });
    await db.query(
      `INSERT INTO subscription (user_profile_id, recipient_id, color, active)
       SELECT u, r, '#76ce90', true FROM unnest($1::int[], $2::int[]) AS t(u, r)
       ON CONFLICT DO NOTHING`,
      [subUsers, subRecipients],
    );
    step(`${fillers} filler channels, ${subUsers.length} subscriptions`);

    // Messages: bulk rows without the full-text trigger (search is not benchmarked).
    const fetchChannel = byName.get('bench fetch')!;
    const { rows: maxRows } = await db.query<{ max: number | null }>('SELECT max(id) AS max FROM message');
    const before = maxRows[0].max ?? 0;
    await db.query('ALTER TABLE message DISABLE TRIGGER message_search_tsvector_trigger');
    try {
      const content = 'Benchmark message with a few words of ordinary chat text, about as long as a typical line.';
      await db.query(
        `INSERT INTO message (realm_id, sender_id, recipient_id, subject, content, rendered_content,
                              rendered_content_version, date_sent, sending_client, is_channel_message, type)
         SELECT $1::int, CASE WHEN g % 50 = 0 THEN $2::int ELSE $3::int END,
                CASE WHEN g % 50 = 0 OR cardinality($5::int[]) = 0 THEN $4::int ELSE ($5::int[])[1 + g % cardinality($5::int[])] END,
                'topic ' || (g % 37), $6::text || ' #' || g, '<p>' || $6::text || ' #' || g || '</p>', 1,
                now() - make_interval(secs => $7::int - g), 'bench', true, 1
           FROM generate_series(1, $7::int) g`,
        [realmId, hamlet.id, benchIds[0], fetchChannel.recipient_id, fillerRecipients, content, opts.messages],
      );
    } finally {
      await db.query('ALTER TABLE message ENABLE TRIGGER message_search_tsvector_trigger');
    }
    step(`${opts.messages} messages`);
    await db.query(
      `INSERT INTO user_message (user_profile_id, message_id, flags)
       SELECT sub.user_profile_id, m.id,
              CASE WHEN sub.user_profile_id = m.sender_id OR m.id % 10 < 7 THEN 1 ELSE 0 END
         FROM message m JOIN subscription sub ON sub.recipient_id = m.recipient_id AND sub.active
        WHERE m.id > $1`,
      [before],
    );
    await db.query(
      `UPDATE stream s SET first_message_id = f.id
         FROM (SELECT recipient_id, min(id) AS id FROM message WHERE id > $1 GROUP BY recipient_id) f
        WHERE f.recipient_id = s.recipient_id AND s.first_message_id IS NULL`,
      [before],
    );
    const umCount = (await db.query<{ n: string }>('SELECT count(*) AS n FROM user_message')).rows[0].n;
    step(`${umCount} UserMessage rows`);
    await db.query('VACUUM ANALYZE');
    await db.query('CHECKPOINT');
    step('VACUUM ANALYZE, CHECKPOINT');

    const count = async (recipientId: number) =>
      Number(
        (
          await db.query<{ n: string }>('SELECT count(*) AS n FROM subscription WHERE recipient_id = $1 AND active', [
            recipientId,
          ])
        ).rows[0].n,
      );
    const channel = async (name: string): Promise<BenchChannel> => {
      const r = byName.get(name)!;
      return { id: r.id, name, recipientId: r.recipient_id, subscribers: await count(r.recipient_id) };
    };
    const messagesInRealm = Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM message WHERE realm_id = $1', [realmId])).rows[0].n,
    );
    const messagesInFetchChannel = Number(
      (
        await db.query<{ n: string }>('SELECT count(*) AS n FROM message WHERE recipient_id = $1', [
          fetchChannel.recipient_id,
        ])
      ).rows[0].n,
    );
    return {
      realmId,
      hamlet,
      othello,
      channels: {
        c10: await channel('bench 10'),
        c1000: await channel('bench 1000'),
        c10000: await channel('bench 10000'),
        fetch: await channel('bench fetch'),
      },
      users: opts.users,
      messagesInRealm,
      messagesInFetchChannel,
    };
  } finally {
    await db.end();
  }
}
