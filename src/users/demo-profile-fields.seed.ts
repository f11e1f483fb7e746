import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { runInTransaction } from '../database/transaction';
import { FieldType } from '../realm/custom-profile-fields.policy';
import { CreateFieldInput, CustomProfileFieldsService } from '../realm/custom-profile-fields.service';
import { ProfileDataService } from './profile-data.service';
import { ProfileValue } from './profile-values.policy';
import { UsersService } from './users.service';

const field = (name: string, fieldType: number, extra: Partial<CreateFieldInput> = {}): CreateFieldInput => ({
  name,
  hint: '',
  fieldType,
  displayInProfileSummary: false,
  required: false,
  editableByUser: true,
  ...extra,
});

/** The nine custom profile fields of Zulip's development realm (zilencer populate_db), in order. */
const DEMO_FIELDS: Array<{ key: string; input: CreateFieldInput }> = [
  { key: 'phone', input: field('Phone number', FieldType.SHORT_TEXT) },
  { key: 'biography', input: field('Biography', FieldType.LONG_TEXT, { hint: 'What are you known for?' }) },
  { key: 'food', input: field('Favorite food', FieldType.SHORT_TEXT, { hint: "Or drink, if you'd prefer" }) },
  {
    key: 'editor',
    input: field('Favorite editor', FieldType.SELECT, {
      fieldData: { '0': { text: 'Vim', order: '1' }, '1': { text: 'Emacs', order: '2' } },
    }),
  },
  { key: 'birthday', input: field('Birthday', FieldType.DATE) },
  { key: 'website', input: field('Favorite website', FieldType.URL, { hint: "Or your personal blog's URL" }) },
  { key: 'mentor', input: field('Mentor', FieldType.USER) },
  { key: 'github', input: field('', FieldType.EXTERNAL_ACCOUNT, { fieldData: { subtype: 'github' } }) },
  {
    key: 'pronouns',
    input: field('Pronouns', FieldType.PRONOUNS, { hint: 'What pronouns should people use to refer to you?' }),
  },
];

/**
 * Creates the demo realm's custom profile fields and gives iago and hamlet values, as Zulip's
 * test data does. Called once by the demo-realm seed.
 */
export async function seedDemoProfileFields(app: INestApplicationContext, realmId: number): Promise<void> {
  const fields = app.get(CustomProfileFieldsService);
  const profileData = app.get(ProfileDataService);
  const users = app.get(UsersService);
  const ids = new Map<string, number>();
  for (const { key, input } of DEMO_FIELDS) ids.set(key, await fields.createField(realmId, input));
  const iago = (await users.findByEmailInRealm(realmId, 'iago@zulip.com'))!;
  const hamlet = (await users.findByEmailInRealm(realmId, 'hamlet@zulip.com'))!;
  const values: Array<[number, Record<string, ProfileValue>]> = [
    [
      iago.id,
      {
        phone: '+1-234-567-8901',
        biography: 'Betrayer of Othello.',
        food: 'Apples',
        editor: '1',
        birthday: '2000-01-01',
        website: 'https://zulip.readthedocs.io/en/latest/',
        mentor: [hamlet.id],
        github: 'zulip',
        pronouns: 'he/him',
      },
    ],
    [
      hamlet.id,
      {
        phone: '+0-11-23-456-7890',
        biography: 'I am:\n* The prince of Denmark\n* Nephew to the usurping Claudius',
        food: 'Dark chocolate',
        editor: '0',
        birthday: '1900-01-01',
        website: 'https://blog.zulig.org',
        mentor: [iago.id],
        github: 'zulipbot',
        pronouns: 'he/him',
      },
    ],
  ];
  await runInTransaction(app.get(DataSource), async () => {
    for (const [userId, byKey] of values) {
      const entries = Object.entries(byKey).map(([key, value]) => ({ id: ids.get(key)!, value }));
      await profileData.updateProfileData(realmId, userId, entries, []);
    }
  });
}
