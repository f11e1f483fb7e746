import fc from 'fast-check';
import { Client } from 'pg';
import { intArrayParam } from './ids';

describe('intArrayParam', () => {
  let client: Client;
  beforeAll(async () => {
    // The test run's PostgreSQL (global setup); the literal must mean the array to the server.
    client = new Client({ connectionString: process.env.ZULIP_TEST_ADMIN_URL });
    await client.connect();
  });
  afterAll(() => client.end());

  const roundTrip = async (values: readonly number[]) => {
    const { rows } = await client.query<{ a: string[] }>('SELECT $1::bigint[] AS a', [intArrayParam(values)]);
    return rows[0].a.map(Number);
  };

  it('is a PostgreSQL array literal of the integers', async () => {
    expect(intArrayParam([1, -2, 30])).toBe('{1,-2,30}');
    expect(intArrayParam([])).toBe('{}');
    expect(await roundTrip([])).toEqual([]);
    expect(await roundTrip([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 0])).toEqual([
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      0,
    ]);
  });

  it('passes anything but safe integers on unchanged, for pg to handle', () => {
    const values = [1, 2.5, 3];
    expect(intArrayParam(values)).toBe(values);
    expect(intArrayParam([1, Number.NaN])).toEqual([1, Number.NaN]);
    expect(intArrayParam([2 ** 60])).toEqual([2 ** 60]);
  });

  it('reaches the server as the same array, for any safe integers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.maxSafeInteger(), { maxLength: 40 }), async (values) => {
        expect(await roundTrip(values)).toEqual(values);
      }),
      { numRuns: 200 },
    );
  });
});
