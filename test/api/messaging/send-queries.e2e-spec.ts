import { countQueriesDuring, MethodQueryCounter } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { MessageSendService } from '../../../src/messaging/message-send.service';
import { call, channelId, HAMLET, subscribe } from './helpers';

/**
 * The send path issues a constant number of statements whatever the number of recipients, and
 * writes all UserMessage rows in one statement (performance-notes §7.1, §7.4).
 */
describe('POST /messages query count', () => {
  let t: TestApp;
  let counter: MethodQueryCounter;

  beforeAll(async () => {
    t = await startTestApp();
    // Count the statements sent while MessageSendService.sendMessage runs (auth and request
    // parsing happen before it, and their caches would make request-level counts depend on timing).
    counter = countQueriesDuring(t.app.get(MessageSendService), 'sendMessage', {
      transactionControl: true,
      detachedHandlers: true,
    });

    for (const name of ['solo', 'hundred', 'five thousand']) await subscribe(t, HAMLET, name);
    await addBulkSubscribers('hundred', 99);
    await addBulkSubscribers('five thousand', 4999);
  });
  afterAll(async () => {
    counter.restore();
    await t.close();
  });

  /** `count` users created and subscribed with plain SQL (fixtures, not the code under test). */
  async function addBulkSubscribers(channel: string, count: number): Promise<void> {
    const realm = await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM realm WHERE string_id = 'zulip'`);
    const prefix = channel.replace(/\s/g, '');
    const users = await t.dataSource.query<Array<{ id: number }>>(
      `INSERT INTO user_profile (realm_id, delivery_email, full_name, api_key_digest, api_key_ciphertext)
       SELECT $1, $2 || g || '@zulip.com', 'Bulk ' || g, md5($2 || 'a' || g) || md5($2 || 'b' || g), 'x'
         FROM generate_series(1, $3::int) AS g RETURNING id`,
      [realm[0].id, prefix, count],
    );
    const recipient = await t.dataSource.query<Array<{ recipient_id: number }>>(
      `SELECT recipient_id FROM stream WHERE id = $1`,
      [await channelId(t, channel)],
    );
    await t.dataSource.query(
      `INSERT INTO subscription (user_profile_id, recipient_id) SELECT u, $2 FROM unnest($1::int[]) AS u`,
      [users.map((u) => u.id), recipient[0].recipient_id],
    );
  }

  async function measuredSend(
    channel: string,
    content: string,
    topic = 'load',
  ): Promise<{ id: number; statements: string[] }> {
    counter.reset();
    const res = await call(t, 'post', '/messages', HAMLET, { type: 'channel', to: channel, topic, content });
    expect(res.status).toBe(200);
    return { id: (res.body as { id: number }).id, statements: [...counter.statements] };
  }

  async function rowsOf(id: number): Promise<number> {
    const r = await t.dataSource.query<Array<{ n: string }>>(
      `SELECT count(*) AS n FROM user_message WHERE message_id = $1`,
      [id],
    );
    return Number(r[0].n);
  }

  it('issues the same statements for 1 and for 100 subscribers', async () => {
    // Warm up: caches of system groups, prepared statements.
    await measuredSend('solo', 'warm up');
    await measuredSend('hundred', 'warm up');
    const one = await measuredSend('solo', 'hello one');
    const hundred = await measuredSend('hundred', 'hello hundred');
    expect(await rowsOf(one.id)).toBe(1);
    expect(await rowsOf(hundred.id)).toBe(100);
    expect(hundred.statements.length).toBe(one.statements.length);
    expect(hundred.statements).toEqual(one.statements);
    // The channel and the topic are cached after the warm-up (ChannelSendCache): the insert of
    // the message + UserMessage rows is the only statement.
    expect(one.statements.filter((s) => !/^(BEGIN|COMMIT|START TRANSACTION)/i.test(s.trim()))).toHaveLength(1);
  });

  it('runs a plain channel send without BEGIN/COMMIT (its one write is atomic), a send with more writes in a transaction', async () => {
    await measuredSend('solo', 'warm up again');
    const plain = await measuredSend('solo', 'plain');
    // Insert message + UserMessage rows (the channel comes from ChannelSendCache): one round trip.
    expect(plain.statements).toHaveLength(1);
    // A topic not seen yet is read alone (the channel and its subscribers are cached): two.
    const fresh = await measuredSend('solo', 'plain', 'another topic');
    expect(fresh.statements).toHaveLength(2);
    expect(fresh.statements.filter((s) => /SELECT s\.id, s\.realm_id, s\.name/.test(s))).toHaveLength(0);
    expect(fresh.statements.filter((s) => /AS topic_exists/.test(s))).toHaveLength(1);
    expect(plain.statements.some((s) => /^\s*(BEGIN|START TRANSACTION|COMMIT)/i.test(s))).toBe(false);
    // A widget is a second write (its submessage): a transaction.
    const poll = await measuredSend('solo', '/poll Lunch?\nPizza\nSushi');
    expect(poll.statements.filter((s) => /^\s*(BEGIN|START TRANSACTION)/i.test(s))).toHaveLength(1);
    expect(poll.statements.filter((s) => /^\s*COMMIT/i.test(s))).toHaveLength(1);
    expect(poll.statements.filter((s) => /INSERT INTO submessage/i.test(s))).toHaveLength(1);
  });

  it('writes the UserMessage rows of a 5,000-subscriber channel in one statement', async () => {
    await measuredSend('five thousand', 'warm up');
    const small = await measuredSend('solo', 'small again');
    const big = await measuredSend('five thousand', 'to everyone');
    expect(await rowsOf(big.id)).toBe(5000);
    expect(big.statements.length).toBe(small.statements.length);
    expect(big.statements.filter((s) => /INSERT INTO user_message/.test(s))).toHaveLength(1);
  });
});
