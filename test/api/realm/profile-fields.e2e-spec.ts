import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  api,
  events,
  expectError,
  expectSuccess,
  HAMLET,
  IAGO,
  DESDEMONA,
  POLONIUS,
  queue,
  SHIVA,
  userId,
} from '../users/helpers';

type Field = Record<string, unknown> & { id: number; name: string };
const PATH = '/realm/profile_fields';

describe('custom profile fields', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function list(email = HAMLET): Promise<Field[]> {
    return expectSuccess(await api(t, 'get', PATH, email), 'get', PATH).custom_fields as Field[];
  }

  function create(params: Record<string, unknown>, email = IAGO) {
    return api(t, 'post', PATH, email, params);
  }

  async function createOk(params: Record<string, unknown>): Promise<number> {
    return expectSuccess(await create(params), 'post', PATH).id as number;
  }

  describe('GET /realm/profile_fields', () => {
    it("lists the demo realm's nine fields in order, to every user", async () => {
      const fields = await list();
      expect(fields.map((f) => [f.name, f.type])).toEqual([
        ['Phone number', 1],
        ['Biography', 2],
        ['Favorite food', 1],
        ['Favorite editor', 3],
        ['Birthday', 4],
        ['Favorite website', 5],
        ['Mentor', 6],
        ['GitHub', 7],
        ['Pronouns', 8],
      ]);
      expect(fields[3]).toMatchObject({
        hint: '',
        field_data: '{"0":{"text":"Vim","order":"1"},"1":{"text":"Emacs","order":"2"}}',
        required: false,
        editable_by_user: true,
      });
      expect(fields[7]).toMatchObject({ hint: 'Enter your GitHub username', field_data: '{"subtype":"github"}' });
      expect(fields[1].hint).toBe('What are you known for?');
      expect(fields.every((f) => !('display_in_profile_summary' in f))).toBe(true);
      const orders = fields.map((f) => f.order as number);
      expect(orders).toEqual([...orders].sort((a, b) => a - b));
      await list(POLONIUS);
    });
  });

  describe('POST /realm/profile_fields', () => {
    it('creates a field of each type and sends the full list in a custom_profile_fields event', async () => {
      const q = await queue(t, HAMLET, ['custom_profile_fields']);
      const id = await createOk({
        name: '  Team  ',
        hint: 'Your team',
        field_type: 1,
        display_in_profile_summary: true,
        required: true,
        editable_by_user: false,
      });
      const fields = await list();
      const field = fields.find((f) => f.id === id)!;
      expect(field).toEqual({
        id,
        name: 'Team',
        type: 1,
        hint: 'Your team',
        field_data: '',
        order: field.order,
        required: true,
        editable_by_user: false,
        display_in_profile_summary: true,
      });
      expect(fields[fields.length - 1].id).toBe(id);
      expect(await events(t, q)).toEqual([{ type: 'custom_profile_fields', fields }]);

      await createOk({ name: 'Essay', field_type: 2 });
      await createOk({
        name: 'Shirt size',
        field_type: 3,
        field_data: { s: { text: 'Small', order: '1' }, l: { text: 'Large', order: '2' } },
      });
      await createOk({ name: 'Start date', field_type: 4 });
      await createOk({ name: 'Homepage', field_type: 5 });
      await createOk({ name: 'Buddy', field_type: 6 });
      await createOk({
        name: 'Profile',
        field_type: 7,
        field_data: { subtype: 'custom', url_pattern: 'https://example.com/u/%(username)s' },
      });
      await createOk({ name: 'They', field_type: 8 });
      const twitter = await createOk({
        name: 'ignored',
        hint: 'ignored',
        field_type: 7,
        field_data: { subtype: 'twitter' },
      });
      expect((await list()).find((f) => f.id === twitter)).toMatchObject({
        name: 'Twitter',
        hint: 'Enter your Twitter username',
        field_data: '{"subtype":"twitter"}',
      });
      // Data of other types is not stored.
      const plain = await createOk({ name: 'Plain', field_type: 1, field_data: { a: 'b' } });
      expect((await list()).find((f) => f.id === plain)?.field_data).toBe('');
    });

    it('checks the parameters in Zulip order', async () => {
      const err = (params: Record<string, unknown>, msg: string, code = 'BAD_REQUEST') =>
        create(params).then((res) => expectError(res, 'post', PATH, msg, code));
      const res = await t
        .http()
        .post(`/api/v1${PATH}`)
        .auth(...(await t.auth(IAGO)))
        .type('form')
        .send({ name: 'x', field_type: 'text id' });
      expectError(res, 'post', PATH, 'field_type is not valid JSON');
      await err({ name: 'x', field_type: '"1"' }, 'field_type is not an integer');
      const missing = await create({ name: 'x' });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({
        code: 'REQUEST_VARIABLE_MISSING',
        msg: "Missing 'field_type' argument",
        var_name: 'field_type',
      });
      await err({ name: '', field_type: 100 }, 'Label cannot be blank.');
      await err({ name: '   ', field_type: 1 }, 'Label cannot be blank.');
      await err({ name: 'x'.repeat(41), field_type: 100 }, 'name is too long (limit: 40 characters)');
      await err({ name: 'Phone', field_type: 100 }, 'Invalid field type.');
      await err({ name: 'Phone', hint: 'x'.repeat(81), field_type: 1 }, 'hint is too long (limit: 80 characters)');
      await err(
        { name: 'x'.repeat(41), hint: 'x'.repeat(81), field_type: 1 },
        'hint is too long (limit: 80 characters)',
      );
      await err({ name: 'Phone number', field_type: 1 }, 'A field with that label already exists.');
      await err(
        { name: 'Long', field_type: 2, display_in_profile_summary: true },
        'Field type not supported for display in profile summary.',
      );
      await err(
        { name: 'Person', field_type: 6, display_in_profile_summary: true },
        'Field type not supported for display in profile summary.',
      );
      await err({ name: 'x', field_type: 1, field_data: [] }, 'field_data is not a dict');
      await err({ name: 'x', field_type: 1, required: 'yes' }, 'required is not valid JSON');
      await err({ name: 'x', field_type: 1, editable_by_user: 1 }, 'editable_by_user is not a boolean');
    });

    it('validates list options and external accounts before the label', async () => {
      const err = (params: Record<string, unknown>, msg: string) =>
        create(params).then((res) => expectError(res, 'post', PATH, msg));
      await err({ name: '', field_type: 3, field_data: {} }, 'Field must have at least one choice.');
      await err({ name: 'x', field_type: 3 }, 'Field must have at least one choice.');
      await err(
        { name: 'x', field_type: 3, field_data: { '': { text: 'a', order: '1' } } },
        "'value' cannot be blank.",
      );
      await err({ name: 'x', field_type: 3, field_data: { a: { order: '1' } } }, 'text key is missing from field_data');
      await err(
        { name: 'x', field_type: 3, field_data: { a: { text: '', order: '1' } } },
        'field_data["text"] cannot be blank.',
      );
      await err(
        { name: 'x', field_type: 3, field_data: { a: { text: 1, order: '1' } } },
        'field_data["text"] is not a string',
      );
      await err({ name: 'x', field_type: 3, field_data: { a: 'b' } }, 'field_data is not a dict');
      await err(
        { name: 'x', field_type: 3, field_data: { a: { text: 'a', order: '1', extra: 'y' } } },
        'Unexpected arguments: extra',
      );
      await err(
        { name: 'x', field_type: 3, field_data: { a: { text: 'Same', order: '1' }, b: { text: 'Same', order: '2' } } },
        'Field must not have duplicate choices.',
      );
      await err({ name: '', field_type: 7, field_data: {} }, 'subtype key is missing from field_data');
      await err({ name: 'x', field_type: 7, field_data: { subtype: 'myspace' } }, 'Invalid external account type');
      await err(
        { name: 'x', field_type: 7, field_data: { subtype: 'custom' } },
        'Custom external account must define URL pattern',
      );
      await err(
        { name: 'x', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://x.com/' } },
        "URL pattern must contain '%(username)s'.",
      );
      await err(
        { name: 'x', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'not a url %(username)s' } },
        'field_data["url_pattern"] is not a URL',
      );
      await err(
        { name: 'x', field_type: 7, field_data: { subtype: 'github' } },
        'A field with that label already exists.',
      );
    });

    it('allows at most two fields in the profile summary', async () => {
      await createOk({ name: 'Summary 1', field_type: 1, display_in_profile_summary: true });
      const res = await create({ name: 'Summary 2', field_type: 1, display_in_profile_summary: true });
      // The first test already created one summary field ("Team").
      expectError(res, 'post', PATH, 'Only 2 custom profile fields can be displayed in the profile summary.');
      await createOk({ name: 'Summary 2', field_type: 1 });
    });

    it('is for administrators only', async () => {
      for (const email of [HAMLET, SHIVA, POLONIUS]) {
        expectError(
          await create({ name: 'x', field_type: 1 }, email),
          'post',
          PATH,
          'Must be an organization administrator',
          'UNAUTHORIZED_PRINCIPAL',
        );
      }
      expectSuccess(await create({ name: 'By owner', field_type: 1 }, DESDEMONA), 'post', PATH);
    });
  });

  describe('PATCH, DELETE and reorder', () => {
    it('updates a field, removing values of deleted options', async () => {
      const id = await createOk({
        name: 'Color',
        field_type: 3,
        field_data: { r: { text: 'Red', order: '1' }, g: { text: 'Green', order: '2' } },
      });
      const hamlet = await userId(t, HAMLET);
      expectSuccess(
        await api(t, 'patch', `/users/${hamlet}`, IAGO, { profile_data: [{ id, value: 'g' }] }),
        'patch',
        '/users/{user_id}',
      );
      const q = await queue(t, HAMLET, ['custom_profile_fields']);
      const res = await api(t, 'patch', `${PATH}/${id}`, IAGO, {
        name: 'Colour',
        hint: 'Pick one',
        field_data: { r: { text: 'Red', order: '1' } },
        required: true,
        editable_by_user: false,
        display_in_profile_summary: false,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      const field = (await list()).find((f) => f.id === id)!;
      expect(field).toMatchObject({
        name: 'Colour',
        hint: 'Pick one',
        field_data: '{"r":{"text":"Red","order":"1"}}',
        required: true,
        editable_by_user: false,
      });
      expect((await events(t, q))[0]).toMatchObject({ type: 'custom_profile_fields' });
      const user = await api(t, 'get', `/users/${hamlet}`, IAGO, { include_custom_profile_fields: true });
      expect((user.body.user.profile_data as Record<string, unknown>)[String(id)]).toBeUndefined();
    });

    it('checks updates like creation', async () => {
      const id = await createOk({ name: 'Editable', field_type: 1 });
      const err = async (fieldId: number | string, params: Record<string, unknown>, msg: string) => {
        const res = await api(t, 'patch', `${PATH}/${fieldId}`, IAGO, params);
        expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg });
        expect(res.status).toBe(400);
      };
      await err(999999, { name: 'x' }, 'Field id 999999 not found.');
      await err(id, { name: '' }, 'Label cannot be blank.');
      await err(id, { name: 'Phone number' }, 'A field with that label already exists.');
      await err(id, { hint: 'x'.repeat(81) }, 'hint is too long (limit: 80 characters)');
      const github = (await list()).find((f) => f.name === 'GitHub')!;
      await err(github.id, { name: 'Code' }, 'Default custom field cannot be updated.');
      const ok = await api(t, 'patch', `${PATH}/${github.id}`, IAGO, { required: true });
      expect(ok.status).toBe(200);
      const notFound = await api(t, 'patch', `${PATH}/abc`, IAGO, { name: 'x' });
      expect(notFound.status).toBe(404);
      const member = await api(t, 'patch', `${PATH}/${id}`, HAMLET, { name: 'x' });
      expect(member.body).toMatchObject({
        code: 'UNAUTHORIZED_PRINCIPAL',
        msg: 'Must be an organization administrator',
      });
    });

    it('deletes a field with its values', async () => {
      const id = await createOk({ name: 'Temporary', field_type: 1 });
      const hamlet = await userId(t, HAMLET);
      await api(t, 'patch', `/users/${hamlet}`, IAGO, { profile_data: [{ id, value: 'soon gone' }] });
      const q = await queue(t, HAMLET, ['custom_profile_fields']);
      const res = await api(t, 'delete', `${PATH}/${id}`, IAGO);
      expect(res.status).toBe(200);
      expect((await list()).some((f) => f.id === id)).toBe(false);
      expect((await events(t, q))[0].type).toBe('custom_profile_fields');
      const values = await t.dataSource.query(`SELECT 1 FROM custom_profile_field_value WHERE field_id = $1`, [id]);
      expect(values).toEqual([]);
      const again = await api(t, 'delete', `${PATH}/${id}`, IAGO);
      expect(again.body).toMatchObject({ code: 'BAD_REQUEST', msg: `Field id ${id} not found.` });
      const member = await api(t, 'delete', `${PATH}/${id}`, SHIVA);
      expect(member.body).toMatchObject({ code: 'UNAUTHORIZED_PRINCIPAL' });
    });

    it('PATCH /realm/profile_fields reorders every field', async () => {
      const ids = (await list()).map((f) => f.id);
      const reversed = [...ids].reverse();
      const q = await queue(t, HAMLET, ['custom_profile_fields']);
      expectSuccess(await api(t, 'patch', PATH, IAGO, { order: reversed }), 'patch', PATH);
      const after = await list();
      expect(after.map((f) => f.id)).toEqual(reversed);
      expect(after.map((f) => f.order)).toEqual(reversed.map((_, i) => i));
      expect(await events(t, q)).toEqual([{ type: 'custom_profile_fields', fields: after }]);
      expectError(
        await api(t, 'patch', PATH, IAGO, { order: reversed.slice(1) }),
        'patch',
        PATH,
        'Invalid order mapping.',
      );
      expectError(
        await api(t, 'patch', PATH, HAMLET, { order: reversed }),
        'patch',
        PATH,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    });
  });
});
