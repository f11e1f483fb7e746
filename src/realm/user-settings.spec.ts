import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { USER_SETTING_NAMES, UserSettings } from './user-settings';

describe('UserSettings (the embedded columns of a user row)', () => {
  it('declares exactly the settings of the table, in its order', () => {
    expect(Object.keys(new UserSettings())).toEqual(USER_SETTING_NAMES);
  });

  it('stays in fast (not dictionary) property mode when TypeORM hydrates a user row', () => {
    // V8's own check, in a child process with natives syntax, through TypeORM's own hydration
    // (an entity from the deserializer, then every column set through ColumnMetadata): an empty
    // class filled by ~60 keyed stores became a hash table, 3.4 KB per cached user row instead
    // of 0.7 KB, and twice as slow to fill.
    const root = join(__dirname, '..', '..');
    const script = `
      const { DataSource } = require('typeorm');
      const { ENTITIES } = require(${JSON.stringify(join(root, 'src', 'entities.ts'))});
      const { UserProfile } = require(${JSON.stringify(join(root, 'src', 'users', 'user.entity.ts'))});
      const { defaultUserSettings } = require(${JSON.stringify(join(__dirname, 'user-settings.ts'))});
      (async () => {
        const ds = new DataSource({ type: 'postgres', entities: ENTITIES });
        await ds.buildMetadatas();
        const metadata = ds.getMetadata(UserProfile);
        const values = defaultUserSettings();
        const user = metadata.create(undefined, { fromDeserializer: true });
        for (const column of metadata.columns) {
          column.setEntityValue(user, column.embeddedMetadata ? values[column.propertyName] : null);
        }
        process.stdout.write(JSON.stringify({
          user: %HasFastProperties(user),
          settings: %HasFastProperties(user.settings),
          values: JSON.stringify(user.settings) === JSON.stringify(values),
        }));
      })();`;
    const register = join(root, 'test', 'helpers', 'ts-register.js');
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-r', register, '-e', script], {
      encoding: 'utf8',
      cwd: root,
      timeout: 60_000,
    });
    expect(JSON.parse(out)).toEqual({ user: true, settings: true, values: true });
  });
});
