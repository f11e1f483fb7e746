/**
 * Realm linkifiers (Zulip's zerver/tests/test_realm_linkifiers.py and the linkifier parts of
 * test_markdown.py / test_events.py): GET /realm/linkifiers, POST/PATCH/DELETE /realm/filters,
 * PATCH /realm/linkifiers, events, /register, rendering and topic_links.
 */
import type { Response } from 'supertest';
import { Role } from '../../../src/common/roles';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  call,
  callInRealm,
  DEFAULT_BOT,
  DESDEMONA,
  expectError,
  expectSuccess,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  SHIVA,
  userId,
} from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { openQueue, sendChannel, takeEvents } from '../messaging/helpers';
import { expectRegisterMatchesOpenApi } from '../register/helpers';

const LEAR = 'goneril@lear.example';
const TRAC = { pattern: '#(?P<id>[0-9]{2,8})', url_template: 'https://trac.example.com/ticket/{id}' };

type Linkifier = { id: number; pattern: string; url_template: string };

describe('linkifiers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: LEAR, fullName: 'Goneril', role: Role.OWNER });
  });
  afterAll(() => t.close());
  beforeEach(() => t.dataSource.query(`DELETE FROM realm_filter`));

  const api = (
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    email: string,
    params: Record<string, unknown> = {},
    realm?: string,
  ): Promise<Response> =>
    realm ? callInRealm(t, realm, method, path, email, params) : call(t, method, path, email, params);

  const schemaPath = (path: string) =>
    path.replace(/^\/realm\/filters\/\d+$/, '/realm/filters/{filter_id}').replace(/\?.*$/, '');

  /** A call whose answer must match Zulip's document for the route. */
  async function checked(
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    email: string,
    params: Record<string, unknown> = {},
    realm?: string,
  ): Promise<Response> {
    const res = await api(method, path, email, params, realm);
    expectMatchesOpenApi(method, schemaPath(path), res.status, res.body);
    return res;
  }

  async function add(params: Record<string, unknown> = TRAC, email = IAGO, realm?: string): Promise<number> {
    const res = await checked('post', '/realm/filters', email, params, realm);
    expectSuccess(res);
    return (res.body as { id: number }).id;
  }

  async function list(email = HAMLET, realm?: string): Promise<Linkifier[]> {
    const res = await checked('get', '/realm/linkifiers', email, {}, realm);
    expectSuccess(res);
    return (res.body as { linkifiers: Linkifier[] }).linkifiers;
  }

  const rows = async () =>
    t.dataSource.query<Array<{ id: number; pattern: string; order: number }>>(
      `SELECT id, pattern, "order" FROM realm_filter ORDER BY id`,
    );

  describe('GET /realm/linkifiers', () => {
    it('lists the linkifiers in order, for everyone (guests and bots too)', async () => {
      const id = await add();
      const expected = [{ id, ...TRAC }];
      for (const who of [HAMLET, POLONIUS, DEFAULT_BOT, IAGO]) expect(await list(who)).toEqual(expected);
      expect(await list(LEAR, 'lear')).toEqual([]);
    });
  });

  describe('POST /realm/filters', () => {
    it('adds a linkifier (stripped) after the others', async () => {
      const first = await add({
        pattern: '  #(?P<id>[123])  ',
        url_template: ' https://realm.com/my_realm_filter/{id} ',
      });
      const second = await add({
        pattern: 'ZUL2-(?P<id>\\d+)',
        url_template: 'https://realm.com/my_realm_filter/?value={id}',
      });
      expect(await list()).toEqual([
        { id: first, pattern: '#(?P<id>[123])', url_template: 'https://realm.com/my_realm_filter/{id}' },
        { id: second, pattern: 'ZUL2-(?P<id>\\d+)', url_template: 'https://realm.com/my_realm_filter/?value={id}' },
      ]);
      expect((await rows()).map((r) => r.order)).toEqual([0, 1]);
    });

    it.each([
      ['https://realm.com/my_realm_filter/#hashtag/{id}', 'ZUL-(?P<id>\\d+)'],
      ['https://example.com/~user/web#view_type=type&model=model&action=12345&id={id}', 'PR (?P<id>[0-9]+)'],
      ['https://realm.com/index.pl?Action=AgentTicketZoom;TicketNumber={id}', '!(?P<id>[0-9]+)'],
      ['https://realm.com/my_realm_filter/{hello}/{world}', 'ZULZ-(?P<hello>\\d+)-(?P<world>\\d+)'],
      ['https://example.com/%ba/{id}', 'ZUL-URL-(?P<id>\\d+)'],
      ['https://github.com/{org}/{repo}/issue/{id}', '(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)'],
      [
        'https://zone_{zone}{.domain}.net/ticket{/location}{/id}{?name,chapter}{#fragment:5}',
        'FOO_(?P<id>[a-f]{5});(?P<zone>[a-f]);(?P<domain>[a-z]+);(?P<location>[a-z]+);(?P<name>[a-z]{2,8});(?P<chapter>[0-9]{2,3});(?P<fragment>[a-z]{2,8})',
      ],
      ['https://example.com', '3#123'],
    ])('accepts %s for %s (test_create)', async (url_template, pattern) => {
      await add({ pattern, url_template });
    });

    it.each([
      [
        '',
        'https://realm.com/my_realm_filter/{id}',
        'This field cannot be blank.',
        {
          pattern: ['This field cannot be blank.'],
          __all__: ["Group 'id' in URL template is not present in linkifier pattern."],
        },
      ],
      ['(foo', 'https://realm.com/my_realm_filter/{id}', 'Bad regular expression: missing ): (foo', undefined],
      [
        'ZUL-(?P<id>\\d????)',
        'https://realm.com/my_realm_filter/{id}',
        'Bad regular expression: bad repetition operator: ????',
        undefined,
      ],
      ['ZUL-(?P<id>\\d+)', '$fgfg', "Group 'id' in linkifier pattern is not present in URL template.", undefined],
      [
        'ZUL-(?P<id>\\d+)',
        'https://realm.com/my_realm_filter/',
        "Group 'id' in linkifier pattern is not present in URL template.",
        undefined,
      ],
      [
        'ZUL-(?P<id>\\d+)',
        'https://realm.com/my_realm_filter/{hello}',
        "Group 'hello' in URL template is not present in linkifier pattern.",
        undefined,
      ],
      [
        'ZUL-(?P<id>\\d+)-(?P<hello>\\d+)',
        'https://realm.com/my_realm_filter/{hello}',
        "Group 'id' in linkifier pattern is not present in URL template.",
        undefined,
      ],
      [
        'ZUL-(?P<id>\\d+)-(?P<hello>\\d+)-(?P<world>\\d+)',
        'https://realm.com/my_realm_filter/{hello}',
        "Group 'id' in linkifier pattern is not present in URL template.",
        undefined,
      ],
      ['#(?P<id>[123])', '{id', 'Invalid URL template.', { url_template: ['Invalid URL template.'] }],
      [
        '#(?P<id>[123])',
        '   ',
        'This field cannot be blank.',
        {
          url_template: ['This field cannot be blank.'],
          __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
        },
      ],
      ['a{1001}', 'https://x.example', 'Bad regular expression: invalid repetition size: {1001}', undefined],
    ])('refuses %j → %j (test_create)', async (pattern, url_template, msg, errors) => {
      const res = await checked('post', '/realm/filters', IAGO, { pattern, url_template });
      expectError(res, 400, msg);
      expect((res.body as { errors: unknown }).errors).toEqual(errors ?? { __all__: [msg] });
      expect(await rows()).toEqual([]);
    });

    it('refuses a pattern the realm already has, but another realm may have it', async () => {
      await add();
      const res = await checked('post', '/realm/filters', IAGO, {
        ...TRAC,
        url_template: 'https://other.example/{id}',
      });
      expectError(res, 400, 'Realm filter with this Realm and Pattern already exists.');
      await add(TRAC, LEAR, 'lear');
      expect(await list(LEAR, 'lear')).toHaveLength(1);
    });

    it('refuses NUL characters and missing or non-string parameters', async () => {
      expectError(
        await checked('post', '/realm/filters', IAGO, { pattern: 'a\0b', url_template: 'x' }),
        400,
        'Invalid character in pattern, at position 2.',
      );
      expectError(
        await checked('post', '/realm/filters', IAGO, { pattern: 'ab', url_template: 'x\0' }),
        400,
        'Invalid character in url_template, at position 2.',
      );
      expectError(
        await checked('post', '/realm/filters', IAGO, { url_template: 'x' }),
        400,
        "Missing 'pattern' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expectError(
        await checked('post', '/realm/filters', IAGO, { pattern: 'x' }),
        400,
        "Missing 'url_template' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expect(await rows()).toEqual([]);
    });

    it('is for administrators: owners and admins may, others not (test_not_realm_admin)', async () => {
      for (const who of [SHIVA, HAMLET, POLONIUS, DEFAULT_BOT]) {
        expectError(
          await checked('post', '/realm/filters', who, TRAC),
          400,
          'Must be an organization administrator',
          'UNAUTHORIZED_PRINCIPAL',
        );
        expectError(
          await api('post', '/realm/filters', who),
          400,
          'Must be an organization administrator',
          'UNAUTHORIZED_PRINCIPAL',
        );
      }
      await add(TRAC, DESDEMONA);
      await add({ pattern: 'X-(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' }, IAGO);
      expect(await list()).toHaveLength(2);
    });

    it('refuses deactivated administrators', async () => {
      const zulip = (await t.app.get(RealmService).findByStringId('zulip'))!;
      await t.app
        .get(UsersService)
        .createUser(zulip, { email: 'gone-admin@zulip.com', fullName: 'Gone Admin', role: Role.ADMINISTRATOR });
      const auth = await t.auth('gone-admin@zulip.com');
      expectSuccess(await call(t, 'delete', `/users/${await userId(t, 'gone-admin@zulip.com')}`, IAGO));
      const res = await t
        .http()
        .post('/api/v1/realm/filters')
        .auth(...auth)
        .type('form')
        .send(TRAC);
      expect(res.status).toBe(401);
      expect(await rows()).toEqual([]);
    });
  });

  describe('PATCH /realm/filters/{filter_id}', () => {
    it('changes pattern and template (test_update)', async () => {
      const id = await add({ pattern: '#(?P<id>[123])', url_template: 'https://realm.com/my_realm_filter/{id}' });
      expectSuccess(
        await checked('patch', `/realm/filters/${id}`, IAGO, {
          pattern: '#(?P<id>[0-9]+)',
          url_template: 'https://realm.com/my_realm_filter/issues/{id}',
        }),
      );
      expect(await list()).toEqual([
        { id, pattern: '#(?P<id>[0-9]+)', url_template: 'https://realm.com/my_realm_filter/issues/{id}' },
      ]);
      // Its own pattern is no conflict.
      expectSuccess(
        await checked('patch', `/realm/filters/${id}`, IAGO, {
          pattern: '#(?P<id>[0-9]+)',
          url_template: 'https://x.example/{id}',
        }),
      );
    });

    it('refuses bad values, unknown ids, other realms and non-administrators', async () => {
      const id = await add();
      const other = await add({ pattern: 'X-(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' });
      const lear = await add(TRAC, LEAR, 'lear');
      const patch = (email: string, fid: number | string, params: Record<string, unknown>) =>
        checked('patch', `/realm/filters/${fid}`, email, params);
      expectError(
        await patch(IAGO, id, { pattern: 'ZUL-(?P<id>\\d????)', url_template: 'https://x/{id}' }),
        400,
        'Bad regular expression: bad repetition operator: ????',
      );
      expectError(
        await patch(IAGO, id, { pattern: 'ZUL-(?P<id>\\d+)', url_template: '$fgfg' }),
        400,
        "Group 'id' in linkifier pattern is not present in URL template.",
      );
      expectError(
        await patch(IAGO, id, { pattern: '#(?P<id>[123])', url_template: '{id' }),
        400,
        'Invalid URL template.',
      );
      expectError(
        await patch(IAGO, id, { pattern: 'X-(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' }),
        400,
        'Realm filter with this Realm and Pattern already exists.',
      );
      for (const missing of [other + 1000, lear, 0, 99999999999]) {
        expectError(await patch(IAGO, missing, TRAC), 400, 'Linkifier not found.');
      }
      expectError(
        await patch(IAGO, id, { pattern: 'x' }),
        400,
        "Missing 'url_template' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      for (const who of [SHIVA, HAMLET, POLONIUS, DEFAULT_BOT]) {
        expectError(await patch(who, id, TRAC), 400, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
      }
      expect((await api('patch', '/realm/filters/abc', IAGO, TRAC)).status).toBe(404);
      expect(await list()).toEqual([
        { id, ...TRAC },
        { id: other, pattern: 'X-(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' },
      ]);
      expect(await list(LEAR, 'lear')).toEqual([{ id: lear, ...TRAC }]);
    });
  });

  describe('DELETE /realm/filters/{filter_id}', () => {
    it('removes a linkifier; unknown ids, other realms and non-administrators are refused (test_delete)', async () => {
      const id = await add();
      const lear = await add(TRAC, LEAR, 'lear');
      expectError(await checked('delete', `/realm/filters/${id + 1000}`, IAGO), 400, 'Linkifier not found.');
      expectError(await checked('delete', `/realm/filters/${lear}`, IAGO), 400, 'Linkifier not found.');
      for (const who of [SHIVA, HAMLET, POLONIUS, DEFAULT_BOT]) {
        expectError(
          await checked('delete', `/realm/filters/${id}`, who),
          400,
          'Must be an organization administrator',
          'UNAUTHORIZED_PRINCIPAL',
        );
      }
      expectSuccess(await checked('delete', `/realm/filters/${id}`, DESDEMONA));
      expect(await list()).toEqual([]);
      expectError(await checked('delete', `/realm/filters/${id}`, IAGO), 400, 'Linkifier not found.');
      expect(await list(LEAR, 'lear')).toHaveLength(1);
    });
  });

  describe('PATCH /realm/linkifiers', () => {
    const reorder = (ids: unknown, email = IAGO) =>
      checked('patch', '/realm/linkifiers', email, { ordered_linkifier_ids: ids });

    it('reorders; new ones go last and deletion keeps the order (test_reorder_linkifiers)', async () => {
      expectSuccess(await reorder([]));
      const ids = [];
      for (const n of [1, 2, 3])
        ids.push(await add({ pattern: `${n}#(?P<id>[123])`, url_template: `https://filter.com/${n}/{id}` }));
      expect((await list()).map((l) => l.id)).toEqual(ids);
      // Equal orders fall back to the id.
      await t.dataSource.query(`UPDATE realm_filter SET "order" = 0`);
      await t.dataSource.query(`SELECT 1`);
      let order = [ids[2], ids[1], ids[0]];
      expectSuccess(await reorder(order));
      expect((await list()).map((l) => l.id)).toEqual(order);
      const added = await add({ pattern: '3#123', url_template: 'https://example.com' });
      order = [...order, added];
      expect((await list()).map((l) => l.id)).toEqual(order);
      expectSuccess(await checked('delete', `/realm/filters/${order[2]}`, IAGO));
      order = [order[0], order[1], added];
      expect((await list()).map((l) => l.id)).toEqual(order);
      const deleted = ids[0];
      expectError(
        await reorder([deleted, added, order[0], order[1]]),
        400,
        'The ordered list must enumerate all existing linkifiers exactly once',
      );
      expectError(
        await reorder([added, order[0], order[1], added]),
        400,
        'The ordered list must not contain duplicated linkifiers',
      );
      expectError(
        await reorder([added, order[0]]),
        400,
        'The ordered list must enumerate all existing linkifiers exactly once',
      );
      expectError(
        await reorder([added, order[0], 99999999999]),
        400,
        'The ordered list must enumerate all existing linkifiers exactly once',
      );
      expectError(await reorder('nope'), 400, 'ordered_linkifier_ids is not valid JSON');
      expectError(await reorder(['a']), 400, 'ordered_linkifier_ids is not an integer');
      for (const who of [SHIVA, HAMLET, POLONIUS, DEFAULT_BOT]) {
        expectError(await reorder(order, who), 400, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
      }
      expect((await list()).map((l) => l.id)).toEqual(order);
      // Another realm's linkifier is not one of ours.
      const lear = await add(TRAC, LEAR, 'lear');
      expectError(
        await reorder([...order, lear]),
        400,
        'The ordered list must enumerate all existing linkifiers exactly once',
      );
    });
  });

  describe('events and /register', () => {
    it('sends every change as the full list; clients without linkifier_url_template get an empty list', async () => {
      const modern = await openQueue(t, HAMLET, ['realm_linkifiers'], {
        client_capabilities: { linkifier_url_template: true },
      });
      const legacy = await openQueue(t, POLONIUS, ['realm_linkifiers']);
      const id = await add();
      expect(await takeEvents(t, modern)).toEqual([{ type: 'realm_linkifiers', realm_linkifiers: [{ id, ...TRAC }] }]);
      expect(await takeEvents(t, legacy)).toEqual([{ type: 'realm_linkifiers', realm_linkifiers: [] }]);
      const second = await add({ pattern: 'X-(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' });
      await takeEvents(t, modern);
      await checked('patch', '/realm/linkifiers', IAGO, { ordered_linkifier_ids: [second, id] });
      expect((await takeEvents(t, modern)).map((e) => (e.realm_linkifiers as Linkifier[]).map((l) => l.id))).toEqual([
        [second, id],
      ]);
      // A refused change sends nothing.
      await api('post', '/realm/filters', IAGO, TRAC);
      expect(await takeEvents(t, modern)).toEqual([]);
      // Another realm's change is not ours.
      await add(TRAC, LEAR, 'lear');
      expect(await takeEvents(t, modern)).toEqual([]);
    });

    it('/register has realm_linkifiers (with the capability) and realm_filters, gated by fetch_event_types', async () => {
      const id = await add();
      const reg = async (params: Record<string, unknown>) => {
        const res = await call(t, 'post', '/register', HAMLET, params);
        expect(res.status).toBe(200);
        expectRegisterMatchesOpenApi(res.body as Record<string, unknown>);
        return res.body as Record<string, unknown>;
      };
      expect((await reg({ client_capabilities: { linkifier_url_template: true } })).realm_linkifiers).toEqual([
        { id, ...TRAC },
      ]);
      expect((await reg({})).realm_linkifiers).toEqual([]);
      expect((await reg({})).realm_filters).toEqual([]);
      expect(await reg({ fetch_event_types: ['realm_emoji'] })).not.toHaveProperty('realm_linkifiers');
    });
  });

  describe('messages', () => {
    it('renders linkifiers in content and gives topic_links in events and fetches', async () => {
      await add();
      const q = await openQueue(t, HAMLET, ['message', 'update_message'], { apply_markdown: true });
      const msgId = await sendChannel(
        t,
        OTHELLO,
        'Verona',
        'ticket #444 https://zulip.com',
        'We should fix #224 but not `#336` or issue#124.',
      );
      const [event] = await takeEvents(t, q);
      const message = event.message as Record<string, unknown>;
      expect(message.content).toBe(
        '<p>We should fix <a href="https://trac.example.com/ticket/224">#224</a> but not <code>#336</code> or issue#124.</p>',
      );
      const topicLinks = [
        { text: '#444', url: 'https://trac.example.com/ticket/444' },
        { text: 'https://zulip.com', url: 'https://zulip.com' },
      ];
      expect(message.topic_links).toEqual(topicLinks);
      const fetched = await call(t, 'get', `/messages/${msgId}`, HAMLET);
      expect((fetched.body as { message: Record<string, unknown> }).message.topic_links).toEqual(topicLinks);
      const res = await call(t, 'get', '/messages', HAMLET, { anchor: msgId, num_before: 0, num_after: 0, narrow: [] });
      expectMatchesOpenApi('get', '/messages', res.status, res.body);
      expect((res.body as { messages: Array<Record<string, unknown>> }).messages[0].topic_links).toEqual(topicLinks);
      // A new topic gets its links in the edit event.
      expectSuccess(await call(t, 'patch', `/messages/${msgId}`, OTHELLO, { topic: 'now #555' }));
      const [edit] = await takeEvents(t, q);
      expect(edit.topic_links).toEqual([{ text: '#555', url: 'https://trac.example.com/ticket/555' }]);
      // A removed linkifier no longer links new messages.
      const [row] = await rows();
      expectSuccess(await checked('delete', `/realm/filters/${row.id}`, IAGO));
      await sendChannel(t, OTHELLO, 'Verona', 'plain', 'see #777');
      const [later] = await takeEvents(t, q);
      expect((later.message as Record<string, unknown>).content).toBe('<p>see #777</p>');
    });

    it('renders a message matching 1,000 times with a hostile pattern beside it', async () => {
      await add();
      await add({ pattern: '(?P<x>(a+)+)$', url_template: 'https://x.example/{x}' });
      const content = Array.from({ length: 1000 }, (_, i) => `#${i + 10}`).join(' ');
      const q = await openQueue(t, HAMLET, ['message'], { apply_markdown: true });
      await sendChannel(t, OTHELLO, 'Verona', 'many', content);
      const [event] = await takeEvents(t, q);
      const html = (event.message as { content: string }).content;
      expect(html.match(/<a href="https:\/\/trac\.example\.com\/ticket\/\d+">#\d+<\/a>/g)).toHaveLength(1000);
      await sendChannel(t, OTHELLO, 'Verona', 'many', `${'a'.repeat(5000)}!`);
      const [second] = await takeEvents(t, q);
      expect((second.message as { content: string }).content).toBe(`<p>${'a'.repeat(5000)}!</p>`);
    });
  });
});
