import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Flag } from '../../../src/messaging/flags';
import {
  call,
  CORDELIA,
  expectError,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  sendChannel,
  sendDirect,
  setChannel,
  takeEvents,
  umFlags,
  userId,
  ZOE,
} from './helpers';

describe('reactions', () => {
  let t: TestApp;
  const add = (email: string, id: number, params: Record<string, unknown>) =>
    call(t, 'post', `/messages/${id}/reactions`, email, params);
  const remove = (email: string, id: number, params: Record<string, unknown>) =>
    call(t, 'delete', `/messages/${id}/reactions`, email, params);
  async function reactionsOf(email: string, id: number) {
    const res = await call(t, 'get', `/messages/${id}`, email);
    return (res.body as { message: { reactions: unknown[] } }).message.reactions;
  }

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('POST /messages/{message_id}/reactions', () => {
    it('adds a Unicode emoji by name and shows it on the message', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'reactions', 'react to me');
      const res = await add(OTHELLO, id, { emoji_name: 'octopus' });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/messages/{message_id}/reactions', 200, res.body);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      expect(await reactionsOf(HAMLET, id)).toEqual([
        {
          emoji_name: 'octopus',
          emoji_code: '1f419',
          reaction_type: 'unicode_emoji',
          user_id: await userId(t, OTHELLO),
        },
      ]);
      // With code and type given, the name must match the code.
      expect(
        (await add(HAMLET, id, { emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji' })).status,
      ).toBe(200);
      expectError(
        await add(CORDELIA, id, { emoji_name: 'tada', emoji_code: '1f600', reaction_type: 'unicode_emoji' }),
        400,
        'Invalid emoji name.',
      );
      // Voting for an existing reaction takes its name, whatever name is given.
      expect(
        (await add(CORDELIA, id, { emoji_name: 'tada', emoji_code: '1f419', reaction_type: 'unicode_emoji' })).status,
      ).toBe(200);
      const badCode = await add(CORDELIA, id, {
        emoji_name: 'tada',
        emoji_code: 'ffff',
        reaction_type: 'unicode_emoji',
      });
      expectError(badCode, 400, 'Invalid emoji code.');
      expectMatchesOpenApi('post', '/messages/{message_id}/reactions', 400, badCode.body);
      expectError(
        await add(CORDELIA, id, { emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'bogus' }),
        400,
        'Invalid emoji type.',
      );
      expectError(
        await add(CORDELIA, id, { emoji_name: 'green_tick', emoji_code: '1', reaction_type: 'realm_emoji' }),
        400,
        'Invalid custom emoji.',
      );
      expectError(
        await add(CORDELIA, id, { emoji_name: 'no_such_emoji' }),
        400,
        "Emoji 'no_such_emoji' does not exist",
      );
      expectError(await add(CORDELIA, id, {}), 400, "Missing 'emoji_name' argument", 'REQUEST_VARIABLE_MISSING');
    });

    it('refuses a reaction that already exists; a vote keeps the existing name', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'votes', 'vote');
      expect((await add(OTHELLO, id, { emoji_name: '+1' })).status).toBe(200);
      const again = await add(OTHELLO, id, { emoji_name: 'thumbs_up' });
      expectError(again, 400, 'Reaction already exists.', 'REACTION_ALREADY_EXISTS');
      expectMatchesOpenApi('post', '/messages/{message_id}/reactions', 400, again.body);
      // Another user voting with an alias gets the first reaction's name.
      expect((await add(HAMLET, id, { emoji_name: 'like' })).status).toBe(200);
      expect(await reactionsOf(HAMLET, id)).toEqual([
        expect.objectContaining({ emoji_name: '+1', emoji_code: '1f44d', user_id: await userId(t, OTHELLO) }),
        expect.objectContaining({ emoji_name: '+1', emoji_code: '1f44d', user_id: await userId(t, HAMLET) }),
      ]);
    });

    it('supports the Zulip extra emoji under service_extra_emoji, zulip_extra_emoji as an alias (DECISIONS #4)', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'extra', 'zulip!');
      expect((await add(OTHELLO, id, { emoji_name: 'zulip' })).status).toBe(200);
      expect(
        (await add(HAMLET, id, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }))
          .status,
      ).toBe(200);
      expectError(
        await add(CORDELIA, id, {
          emoji_name: 'zulip',
          emoji_code: 'zulip',
          reaction_type: 'service_extra_emoji',
        }).then(async (r) => {
          expect(r.status).toBe(200);
          return add(CORDELIA, id, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
        }),
        400,
        'Reaction already exists.',
        'REACTION_ALREADY_EXISTS',
      );
      const reactions = (await reactionsOf(HAMLET, id)) as Array<{ reaction_type: string }>;
      expect(reactions.map((r) => r.reaction_type)).toEqual([
        'service_extra_emoji',
        'service_extra_emoji',
        'service_extra_emoji',
      ]);
      expectError(
        await add(ZOE, id, { emoji_name: 'zulip', emoji_code: 'zulipp', reaction_type: 'service_extra_emoji' }),
        400,
        'Invalid emoji code.',
      );
    });

    it('adds the message to the history of a reacting non-recipient', async () => {
      const id = await sendChannel(t, PROSPERO, 'Venice', 'history', 'outsiders welcome');
      expect(await umFlags(t, HAMLET, id)).toBeNull();
      expect((await add(HAMLET, id, { emoji_name: 'heart' })).status).toBe(200);
      expect(await umFlags(t, HAMLET, id)).toBe(Flag.historical | Flag.read);
    });

    it('adds one reaction when identical requests race', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'race', 'race');
      const results = await Promise.all(Array.from({ length: 8 }, () => add(OTHELLO, id, { emoji_name: 'tada' })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
      for (const r of results.filter((x) => x.status === 400))
        expectError(r, 400, 'Reaction already exists.', 'REACTION_ALREADY_EXISTS');
      const rows = await t.dataSource.query<unknown[]>(`SELECT 1 FROM reaction WHERE message_id = $1`, [id]);
      expect(rows).toHaveLength(1);
      // Racing first reactions from a non-recipient create one historical row too.
      const venice = await sendChannel(t, PROSPERO, 'Venice', 'race', 'race');
      const raced = await Promise.all(
        Array.from({ length: 6 }, () => add(CORDELIA, venice, { emoji_name: 'octopus' })),
      );
      expect(raced.filter((r) => r.status === 200)).toHaveLength(1);
      expect(raced.filter((r) => r.status >= 500)).toHaveLength(0);
    });
  });

  describe('DELETE /messages/{message_id}/reactions', () => {
    it('removes by name, by code, and reports a missing reaction', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'remove', 'x');
      await add(OTHELLO, id, { emoji_name: 'octopus' });
      await add(OTHELLO, id, { emoji_name: 'tada' });
      const byName = await remove(OTHELLO, id, { emoji_name: 'octopus' });
      expect(byName.status).toBe(200);
      expectMatchesOpenApi('delete', '/messages/{message_id}/reactions', 200, byName.body);
      expect((await remove(OTHELLO, id, { emoji_code: '1f389' })).status).toBe(200);
      expect(await reactionsOf(HAMLET, id)).toEqual([]);
      const twice = await remove(OTHELLO, id, { emoji_name: 'octopus' });
      expectError(twice, 400, "Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST');
      expectMatchesOpenApi('delete', '/messages/{message_id}/reactions', 400, twice.body);
      const neither = await remove(OTHELLO, id, {});
      expectError(neither, 400, 'At least one of the following arguments must be present: emoji_name, emoji_code');
      expectError(
        await remove(OTHELLO, id, { emoji_name: 'no_such_emoji' }),
        400,
        "Emoji 'no_such_emoji' does not exist",
      );
    });

    it('removes the extra emoji with its type (or the alias), not as a Unicode emoji', async () => {
      const id = await sendChannel(t, HAMLET, 'Verona', 'remove extra', 'x');
      await add(OTHELLO, id, { emoji_name: 'zulip' });
      expectError(
        await remove(OTHELLO, id, { emoji_name: 'zulip' }),
        400,
        "Reaction doesn't exist.",
        'REACTION_DOES_NOT_EXIST',
      );
      expect((await remove(OTHELLO, id, { emoji_name: 'zulip', reaction_type: 'zulip_extra_emoji' })).status).toBe(200);
    });
  });

  describe('access and events', () => {
    it('refuses messages the user cannot access, like missing ones', async () => {
      const core = await sendChannel(t, HAMLET, 'core team', 'x', 'private');
      const dm = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'dm');
      const pub = await sendChannel(t, IAGO, 'Denmark', 'x', 'public');
      for (const [email, id] of [
        [CORDELIA, core],
        [CORDELIA, dm],
        [POLONIUS, pub],
        [CORDELIA, 99999999],
      ] as Array<[string, number]>) {
        expectError(await add(email, id, { emoji_name: 'octopus' }), 400, 'Invalid message(s)');
        expectError(await remove(email, id, { emoji_name: 'octopus' }), 400, 'Invalid message(s)');
      }
      // Archived channels cannot get new reactions.
      const sandbox = await sendChannel(t, HAMLET, 'sandbox', 'x', 'soon archived');
      await setChannel(t, 'sandbox', { deactivated: true });
      expectError(await add(HAMLET, sandbox, { emoji_name: 'octopus' }), 400, 'Invalid message(s)');
      await setChannel(t, 'sandbox', { deactivated: false });
      expect((await call(t, 'post', '/messages/abc/reactions', HAMLET, { emoji_name: 'octopus' })).status).toBe(404);
    });

    it('sends reaction events to those who can see the message', async () => {
      const id = await sendChannel(t, HAMLET, 'Denmark', 'events', 'x');
      const queues = await Promise.all([HAMLET, OTHELLO, CORDELIA, POLONIUS].map((e) => openQueue(t, e, ['reaction'])));
      await add(OTHELLO, id, { emoji_name: 'octopus' });
      const expected = {
        type: 'reaction',
        op: 'add',
        user_id: await userId(t, OTHELLO),
        user: { user_id: await userId(t, OTHELLO), email: OTHELLO, full_name: 'Othello, the Moor of Venice' },
        message_id: id,
        emoji_name: 'octopus',
        emoji_code: '1f419',
        reaction_type: 'unicode_emoji',
      };
      const [h, o, c, p] = await Promise.all(queues.map((q) => takeEvents(t, q)));
      expect(h).toEqual([expected]);
      expect(o).toEqual([expected]);
      // Not subscribed to Denmark.
      expect(c).toEqual([]);
      expect(p).toEqual([]);
      await remove(OTHELLO, id, { emoji_name: 'octopus' });
      expect(await takeEvents(t, queues[0])).toEqual([{ ...expected, op: 'remove' }]);
      // A non-subscriber who reacts now has a UserMessage row and hears about later reactions.
      await add(CORDELIA, id, { emoji_name: 'tada' });
      await add(OTHELLO, id, { emoji_name: 'heart' });
      const cordeliaEvents = await takeEvents(t, queues[2]);
      expect(cordeliaEvents.map((e) => e.emoji_name)).toEqual(['tada', 'heart']);
    });

    it('keeps reactions in private channels among subscribers', async () => {
      const id = await sendChannel(t, HAMLET, 'core team', 'events', 'x');
      const queues = await Promise.all([IAGO, OTHELLO].map((e) => openQueue(t, e, ['reaction'])));
      await add(HAMLET, id, { emoji_name: 'octopus' });
      const [iago, othello] = await Promise.all(queues.map((q) => takeEvents(t, q)));
      expect(iago).toHaveLength(1);
      expect(othello).toEqual([]);
    });
  });
});
