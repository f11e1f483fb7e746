import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { ConfigError, loadConfig } from './common/config/config';
import { resolveDatabase } from './database/database-url';
import { runMigrations } from './database/migrate';
import { EmailService } from './email/email.service';
import { RealmService } from './realm/realm.service';
import { ROLE_CODES } from './realm/system-groups';
import { seedDemoRealm } from './seed/demo-realm';
import { UsersService } from './users/users.service';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-realm        --string-id <id> --name <name> [--description <text>]
  create-user         --realm <string_id> --email <email> --full-name <name> [--role 100|200|300|400|600] [--password <pw>]
  change-role         --realm <string_id> --email <email> --role 100|200|300|400|600
  regenerate-api-key  --realm <string_id> --email <email>
  show-api-key        --realm <string_id> --email <email>
  set-upload-quota    --realm <string_id> --mib <MiB>|default  (the realm's own upload quota; default: UPLOAD_QUOTA_MIB)
  seed                (creates the demo realm 'zulip' if it does not exist)
  send-test-email     --to <email>  (sends now through the configured SMTP server, or the dev outbox)
  migrate             (applies pending database migrations and exits)

Uses DATABASE_URL, or the embedded PostgreSQL under .data/ (shared with a running server).`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === '--help' || command === 'help') {
    console.log(USAGE);
    return;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      'string-id': { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      realm: { type: 'string' },
      email: { type: 'string' },
      'full-name': { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      to: { type: 'string' },
      mib: { type: 'string' },
    },
    strict: true,
  });
  const need = (key: keyof typeof values): string => {
    const v = values[key];
    if (typeof v !== 'string' || v === '') fail(`--${key} is required for ${command}\n\n${USAGE}`);
    return v;
  };
  const role = (): number => {
    const r = Number(need('role'));
    if (!ROLE_CODES.includes(r)) fail(`--role must be one of ${ROLE_CODES.join(', ')}`);
    return r;
  };

  let config;
  try {
    // A one-shot command never takes jobs from the queue.
    config = loadConfig({ ...process.env, JOBS_WORKERS: 'off' });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const db = await resolveDatabase(config);
  const applied = await runMigrations(db.url);
  if (command === 'migrate') {
    console.log(applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'No pending migrations.');
    await db.stop();
    return;
  }
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, db.url), {
    logger: ['error', 'warn'],
  });
  const realms = app.get(RealmService);
  const users = app.get(UsersService);
  const realmNamed = async (stringId: string) =>
    (await realms.findByStringId(stringId)) ?? fail(`No realm '${stringId}'`);
  const userNamed = async (realmId: number, email: string) =>
    (await users.findByEmailInRealm(realmId, email)) ?? fail(`No user '${email}' in that realm`);
  try {
    switch (command) {
      case 'create-realm': {
        const realm = await realms.createRealm({
          stringId: need('string-id'),
          name: need('name'),
          description: values.description ?? '',
        });
        console.log(`Created realm '${realm.stringId}' (id ${realm.id}) at ${realms.realmUrl(realm)}`);
        break;
      }
      case 'create-user': {
        const realm = await realmNamed(need('realm'));
        const { user, apiKey } = await users.createUser(realm, {
          email: need('email'),
          fullName: need('full-name'),
          role: values.role ? role() : undefined,
          password: values.password ?? null,
        });
        console.log(`Created user ${user.deliveryEmail} (id ${user.id}, role ${user.role}); API key: ${apiKey}`);
        break;
      }
      case 'change-role': {
        const realm = await realmNamed(need('realm'));
        const user = await userNamed(realm.id, need('email'));
        await users.changeRole(realm.id, user.id, role());
        console.log(`Role of ${user.deliveryEmail} is now ${values.role}`);
        break;
      }
      case 'regenerate-api-key': {
        const realm = await realmNamed(need('realm'));
        const user = await userNamed(realm.id, need('email'));
        console.log(await users.regenerateApiKey(user.id));
        break;
      }
      case 'show-api-key': {
        const realm = await realmNamed(need('realm'));
        console.log(users.apiKeyOf(await userNamed(realm.id, need('email'))));
        break;
      }
      case 'send-test-email': {
        const to = need('to');
        await app.get(EmailService).sendNow({
          template: 'test',
          context: { serverUrl: `${config.externalScheme}://${config.externalHost}`, requestedBy: 'send-test-email' },
          to,
        });
        console.log(`Test email sent to ${to}${config.email.smtp ? '' : ` (written to ${config.email.outboxDir})`}.`);
        break;
      }
      case 'set-upload-quota': {
        const realm = await realmNamed(need('realm'));
        const raw = need('mib');
        const mib = raw === 'default' ? null : Number(raw);
        if (mib !== null && !(Number.isInteger(mib) && mib >= 0 && mib <= 100_000_000)) {
          fail('--mib must be a whole number of MiB (0 to 100000000) or "default"');
        }
        await realms.setUploadQuota(realm.id, mib);
        const effective = realms.uploadQuotaMib({ customUploadQuotaMib: mib });
        console.log(
          `Upload quota of '${realm.stringId}': ${effective === null ? 'unlimited' : `${effective} MiB`}` +
            (mib === null ? ' (the server default)' : ''),
        );
        break;
      }
      case 'seed':
        console.log((await seedDemoRealm(app)) ? 'Demo realm created.' : 'Demo realm already exists.');
        break;
      default:
        fail(`Unknown command '${command}'\n\n${USAGE}`);
    }
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    console.error(`Error: ${msg}`);
    process.exitCode = 1;
  } finally {
    await app.close();
    await db.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
