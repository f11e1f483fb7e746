import fc from 'fast-check';
import { UserDictJson, type UserListVariant } from './user-dict-json';
import { userDict, type UserDictSource } from './user-format';

/** Rows as RealmUserRowsCache hands them out: by ascending id, frozen. */
const rowsArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 400 }), { minLength: 0, maxLength: 25 })
  .chain((ids) =>
    fc.tuple(
      ...[...ids]
        .sort((a, b) => a - b)
        .map((id) =>
          fc.record({
            id: fc.constant(id),
            deliveryEmail: fc.string({ maxLength: 12 }).map((s) => `${s}@example.com`),
            fullName: fc.string({ maxLength: 12, unit: 'grapheme' }),
            role: fc.constantFrom(100, 200, 300, 400, 600),
            isActive: fc.boolean(),
            isBot: fc.boolean(),
            botType: fc.option(fc.integer({ min: 1, max: 4 })),
            botOwnerId: fc.option(fc.integer({ min: 1, max: 400 })),
            timezone: fc.constantFrom('', 'Europe/Paris', 'Asia/Kolkata'),
            avatarSource: fc.constantFrom('G', 'U'),
            avatarVersion: fc.integer({ min: 1, max: 9 }),
            dateJoined: fc.constant('2024-01-02T03:04:05.678000+00:00'),
            settings: fc.record({ email_address_visibility: fc.integer({ min: 1, max: 5 }) }),
          }),
        ),
    ),
  )
  .map((rows) => Object.freeze(rows.map((r) => Object.freeze(r))) as readonly UserDictSource[]);

const profileArb = fc.dictionary(
  fc.integer({ min: 1, max: 9 }).map(String),
  fc.record(
    { value: fc.string({ maxLength: 8, unit: 'grapheme' }), rendered_value: fc.option(fc.string()) },
    {
      requiredKeys: ['value'],
    },
  ),
);

describe('UserDictJson', () => {
  it('is byte for byte JSON.stringify of the formatted dicts, for any viewer, variant and profile data', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom(100, 200, 300, 400, 600),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<'none' | 'activity'>('none', 'activity'),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 400 }), profileArb), { maxLength: 10 }),
        (rows, viewerId, viewerRole, clientGravatar, includeCustomProfileFields, split, profileList) => {
          const cache = new UserDictJson();
          const viewer = { id: viewerId, role: viewerRole };
          const variant: UserListVariant = {
            viewerRole,
            realmHost: 'zulip.example.com',
            clientGravatar,
            includeCustomProfileFields,
            split,
          };
          const profiles = new Map(profileList);
          const expected = (subset: readonly UserDictSource[]) =>
            JSON.stringify(
              subset.map((row) =>
                userDict(row, {
                  viewer,
                  realmHost: variant.realmHost,
                  clientGravatar,
                  profileData: includeCustomProfileFields ? (profiles.get(row.id) ?? {}) : undefined,
                }),
              ),
            );
          const want =
            split === 'none'
              ? [expected(rows)]
              : [expected(rows.filter((r) => r.isActive)), expected(rows.filter((r) => !r.isActive))];
          // Twice: the second answer comes from the kept serialisation.
          for (let round = 0; round < 2; round++) {
            const got = cache.arrays(rows, viewer, variant, includeCustomProfileFields ? profiles : undefined);
            expect(got.map((a) => a.bytes.toString('utf8'))).toEqual(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps one serialisation per copy of the rows and variant, shared by viewers of a role', () => {
    const rows = Object.freeze([
      Object.freeze({
        id: 1,
        deliveryEmail: 'a@example.com',
        fullName: 'A',
        role: 400,
        isActive: true,
        isBot: false,
        botType: null,
        botOwnerId: null,
        timezone: '',
        avatarSource: 'G',
        avatarVersion: 1,
        dateJoined: '2024-01-02T03:04:05.678000+00:00',
        settings: { email_address_visibility: 2 },
      }),
    ]) as readonly UserDictSource[];
    const cache = new UserDictJson();
    const variant: UserListVariant = {
      viewerRole: 400,
      realmHost: 'h',
      clientGravatar: false,
      includeCustomProfileFields: false,
      split: 'none',
    };
    const first = cache.arrays(rows, { id: 7, role: 400 }, variant, undefined)[0].parts[0];
    const second = cache.arrays(rows, { id: 8, role: 400 }, variant, undefined)[0].parts[0];
    expect(second).toBe(first);
    const copy = Object.freeze([...rows]);
    expect(cache.arrays(copy, { id: 8, role: 400 }, variant, undefined)[0].parts[0]).not.toBe(first);
  });
});
