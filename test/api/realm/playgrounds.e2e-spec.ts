/**
 * Code playgrounds (Zulip's zerver/tests/test_realm_playgrounds.py and the playground parts of
 * test_events.py): POST /realm/playgrounds, DELETE /realm/playgrounds/{playground_id}, events and
 * /register.
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
  POLONIUS,
  SHIVA,
} from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { openQueue, takeEvents } from '../messaging/helpers';
import { expectRegisterMatchesOpenApi } from '../register/helpers';

const LEAR = 'goneril@lear.example';
const PYTHON = {
  name: 'Python playground',
  pygments_language: 'Python',
  url_template: 'https://python.example.com?code={code}',
};
const NOT_ADMIN: [string, string, string] = ['Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL', ''];

type Playground = { id: number; name: string; pygments_language: string; url_template: string };

describe('code playgrounds', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: LEAR, fullName: 'Goneril', role: Role.OWNER });
  });
  afterAll(() => t.close());
  beforeEach(() => t.dataSource.query(`DELETE FROM realm_playground`));

  async function api(
    method: 'post' | 'delete',
    path: string,
    email: string,
    params: Record<string, unknown> = {},
    realm?: string,
  ): Promise<Response> {
    const res = realm
      ? await callInRealm(t, realm, method, path, email, params)
      : await call(t, method, path, email, params);
    const schema = path === '/realm/playgrounds' ? path : '/realm/playgrounds/{playground_id}';
    if (/^\/realm\/playgrounds(\/\d+)?$/.test(path)) expectMatchesOpenApi(method, schema, res.status, res.body);
    return res;
  }

  async function add(params: Record<string, unknown> = PYTHON, email = IAGO, realm?: string): Promise<number> {
    const res = await api('post', '/realm/playgrounds', email, params, realm);
    expectSuccess(res);
    return (res.body as { id: number }).id;
  }

  async function registered(email = HAMLET, realm?: string): Promise<Playground[]> {
    const res = realm
      ? await t
          .http()
          .post('/api/v1/register')
          .set('Host', `${realm}.zulip.testserver`)
          .auth(...(await t.auth(email, realm)))
          .type('form')
          .send({ fetch_event_types: '["realm_playgrounds"]' })
      : await call(t, 'post', '/register', email, { fetch_event_types: ['realm_playgrounds'] });
    expect(res.status).toBe(200);
    return (res.body as { realm_playgrounds: Playground[] }).realm_playgrounds;
  }

  const rowCount = async () =>
    Number((await t.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM realm_playground`))[0].n);

  describe('POST /realm/playgrounds', () => {
    it('adds playgrounds, several per language (test_create_multiple_playgrounds_for_same_language)', async () => {
      const a = await add({ ...PYTHON, name: ' Python playground 1 ', pygments_language: ' python ' });
      const b = await add({
        ...PYTHON,
        name: 'Python playground 2',
        pygments_language: 'python',
        url_template: 'https://python2.example.com?code={code}',
      });
      expect(await registered()).toEqual([
        {
          id: a,
          name: 'Python playground 1',
          pygments_language: 'python',
          url_template: 'https://python.example.com?code={code}',
        },
        {
          id: b,
          name: 'Python playground 2',
          pygments_language: 'python',
          url_template: 'https://python2.example.com?code={code}',
        },
      ]);
      await add({ name: 'C++', pygments_language: 'c++', url_template: 'https://cpp.example{/code}' });
      await add({ ...PYTHON, name: 'Upper' });
      await add({ name: 'Spaced', pygments_language: 'Visual Basic', url_template: 'https://template.com{?code}' });
      await add({ name: 'JS', pygments_language: 'javascript', url_template: 'https://js.example/#{code}' });
    });

    it.each([
      // [params, msg, errors]
      [{ pygments_language: 'a$b$c' }, 'Invalid characters in pygments language', undefined],
      [{ pygments_language: 'x'.repeat(41) }, 'pygments_language is too long (limit: 40 characters)', undefined],
      [
        { pygments_language: '  ' },
        'This field cannot be blank.',
        { pygments_language: ['This field cannot be blank.'] },
      ],
      [
        { pygments_language: 'python', name: ' ' },
        'This field cannot be blank.',
        { name: ['This field cannot be blank.'] },
      ],
      [
        { pygments_language: 'python', url_template: 'https://python.example.com?code={code' },
        'Invalid URL template.',
        { url_template: ['Invalid URL template.'] },
      ],
      [
        { pygments_language: 'python', url_template: '' },
        'This field cannot be blank.',
        {
          url_template: ['This field cannot be blank.'],
          __all__: ['Missing the required variable "code" in the URL template'],
        },
      ],
      [
        { pygments_language: 'python', url_template: 'https://python.example.com' },
        'Missing the required variable "code" in the URL template',
        { __all__: ['Missing the required variable "code" in the URL template'] },
      ],
      [
        { pygments_language: 'python', url_template: 'https://python.example.com?code={code}&x={x}' },
        '"code" should be the only variable present in the URL template',
        { __all__: ['"code" should be the only variable present in the URL template'] },
      ],
      [{ pygments_language: 'python', name: 'a\0' }, 'Invalid character in name, at position 2.', undefined],
      [
        { pygments_language: 'python', url_template: 'https://x?c={code}\0' },
        'Invalid character in url_template, at position 19.',
        undefined,
      ],
      [
        { url_template: 'https://template.com{?test,code}' },
        '"code" should be the only variable present in the URL template',
        { __all__: ['"code" should be the only variable present in the URL template'] },
      ],
      [
        { url_template: 'https://template.com{?test}' },
        'Missing the required variable "code" in the URL template',
        { __all__: ['Missing the required variable "code" in the URL template'] },
      ],
    ])('refuses %j (test_invalid_params)', async (params, msg, errors) => {
      const res = await api('post', '/realm/playgrounds', IAGO, { ...PYTHON, ...params });
      expectError(res, 400, msg);
      expect((res.body as { errors?: unknown }).errors).toEqual(errors);
      expect(await rowCount()).toBe(0);
    });

    it('refuses missing parameters', async () => {
      for (const name of ['name', 'pygments_language', 'url_template']) {
        const params: Record<string, unknown> = { ...PYTHON, pygments_language: 'python' };
        delete params[name];
        expectError(
          await api('post', '/realm/playgrounds', IAGO, params),
          400,
          `Missing '${name}' argument`,
          'REQUEST_VARIABLE_MISSING',
        );
      }
    });

    it('refuses a name the language already has; another realm may have it (test_create_already_existing_playground)', async () => {
      const params = { ...PYTHON, pygments_language: 'python' };
      await add(params);
      const res = await api('post', '/realm/playgrounds', IAGO, params);
      expectError(res, 400, 'Realm playground with this Realm, Pygments language and Name already exists.');
      expect((res.body as { errors: unknown }).errors).toEqual({
        __all__: ['Realm playground with this Realm, Pygments language and Name already exists.'],
      });
      await add({ ...params, pygments_language: 'python3' });
      await add(params, LEAR, 'lear');
      expect(await registered(LEAR, 'lear')).toHaveLength(1);
    });

    it('is for administrators (test_not_realm_admin)', async () => {
      for (const who of [SHIVA, HAMLET, POLONIUS, DEFAULT_BOT]) {
        expectError(
          await api('post', '/realm/playgrounds', who, { ...PYTHON, pygments_language: 'python' }),
          400,
          NOT_ADMIN[0],
          NOT_ADMIN[1],
        );
        expectError(await api('post', '/realm/playgrounds', who), 400, NOT_ADMIN[0], NOT_ADMIN[1]);
      }
      expect(await rowCount()).toBe(0);
      await add({ ...PYTHON, pygments_language: 'python' }, DESDEMONA);
    });
  });

  describe('DELETE /realm/playgrounds/{playground_id}', () => {
    it('removes a playground; unknown ids, other realms and non-administrators are refused (test_delete_realm_playground)', async () => {
      const id = await add({ ...PYTHON, pygments_language: 'python' });
      const lear = await add({ ...PYTHON, pygments_language: 'python' }, LEAR, 'lear');
      for (const missing of [id + 1000, lear, 0, 99999999999]) {
        expectError(await api('delete', `/realm/playgrounds/${missing}`, IAGO), 400, 'Invalid playground');
      }
      for (const who of [SHIVA, HAMLET, POLONIUS, DEFAULT_BOT]) {
        expectError(await api('delete', `/realm/playgrounds/${id}`, who), 400, NOT_ADMIN[0], NOT_ADMIN[1]);
      }
      expect((await call(t, 'delete', '/realm/playgrounds/abc', IAGO)).status).toBe(404);
      expectSuccess(await api('delete', `/realm/playgrounds/${id}`, IAGO));
      expect(await registered()).toEqual([]);
      expect(await registered(LEAR, 'lear')).toHaveLength(1);
      expectError(await api('delete', `/realm/playgrounds/${id}`, IAGO), 400, 'Invalid playground');
    });
  });

  describe('events and /register', () => {
    it('sends the full list to everyone in the realm after each change', async () => {
      const hamlet = await openQueue(t, HAMLET, ['realm_playgrounds']);
      const guest = await openQueue(t, POLONIUS, ['realm_playgrounds']);
      const id = await add({ ...PYTHON, pygments_language: 'python' });
      const list = [{ id, ...PYTHON, pygments_language: 'python' }];
      for (const q of [hamlet, guest])
        expect(await takeEvents(t, q)).toEqual([{ type: 'realm_playgrounds', realm_playgrounds: list }]);
      await api('post', '/realm/playgrounds', IAGO, { ...PYTHON, pygments_language: 'python' });
      await add(PYTHON, LEAR, 'lear');
      expect(await takeEvents(t, hamlet)).toEqual([]);
      expectSuccess(await api('delete', `/realm/playgrounds/${id}`, IAGO));
      expect(await takeEvents(t, hamlet)).toEqual([{ type: 'realm_playgrounds', realm_playgrounds: [] }]);
    });

    it('/register has realm_playgrounds, gated by fetch_event_types', async () => {
      const id = await add({ ...PYTHON, pygments_language: 'python' });
      const res = await call(t, 'post', '/register', POLONIUS, {});
      expectRegisterMatchesOpenApi(res.body as Record<string, unknown>);
      expect((res.body as { realm_playgrounds: unknown }).realm_playgrounds).toEqual([
        { id, ...PYTHON, pygments_language: 'python' },
      ]);
      const gated = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm_emoji'] });
      expect(gated.body).not.toHaveProperty('realm_playgrounds');
    });
  });
});
