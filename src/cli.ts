import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { AppConfig, ConfigError, loadConfig } from './common/config/config';
import { resolveDatabase } from './database/database-url';
import { runMigrations } from './migrate';
import { EmailService } from './email/email.service';
import type { Realm } from './realm/realm.entity';
import { RealmService } from './realm/realm.service';
import { ROLE_CODES } from './realm/system-groups';
import { seedDemoRealm } from './seed/demo-realm';
import type { UserProfile } from './users/user.entity';
import { UsersService } from './users/users.service';
import { UserAdminService } from './users/user-admin.service';

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

const OPTIONS = {
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
} as const;

type Options = Partial<Record<keyof typeof OPTIONS, string>>;

/** What a command runs with: its options (checked on use), the configuration and the application. */
class CommandContext {
  readonly realms: RealmService;
  readonly users: UsersService;

  constructor(
    readonly command: string,
    readonly values: Options,
    readonly config: AppConfig,
    readonly app: INestApplicationContext,
  ) {
    this.realms = app.get(RealmService);
    this.users = app.get(UsersService);
  }

  need(key: keyof Options): string {
    const v = this.values[key];
    if (typeof v !== 'string' || v === '') fail(`--${key} is required for ${this.command}\n\n${USAGE}`);
    return v;
  }

  role(): number {
    const r = Number(this.need('role'));
    if (!ROLE_CODES.includes(r)) fail(`--role must be one of ${ROLE_CODES.join(', ')}`);
    return r;
  }

  async realmNamed(stringId: string): Promise<Realm> {
    return (await this.realms.findByStringId(stringId)) ?? fail(`No realm '${stringId}'`);
  }

  async userNamed(realmId: number, email: string): Promise<UserProfile> {
    return (await this.users.findByEmailInRealm(realmId, email)) ?? fail(`No user '${email}' in that realm`);
  }
}

const COMMANDS: Record<string, (c: CommandContext) => Promise<void>> = {
  'create-realm': async (c) => {
    const realm = await c.realms.createRealm({
      stringId: c.need('string-id'),
      name: c.need('name'),
      description: c.values.description ?? '',
    });
    console.log(`Created realm '${realm.stringId}' (id ${realm.id}) at ${c.realms.realmUrl(realm)}`);
  },
  'create-user': async (c) => {
    const realm = await c.realmNamed(c.need('realm'));
    const { user, apiKey } = await c.users.createUser(realm, {
      email: c.need('email'),
      fullName: c.need('full-name'),
      role: c.values.role ? c.role() : undefined,
      password: c.values.password ?? null,
    });
    console.log(`Created user ${user.deliveryEmail} (id ${user.id}, role ${user.role}); API key: ${apiKey}`);
  },
  'change-role': async (c) => {
    const realm = await c.realmNamed(c.need('realm'));
    const user = await c.userNamed(realm.id, c.need('email'));
    await c.app.get(UserAdminService).changeRoleByOperator(realm.id, user.id, c.role());
    console.log(`Role of ${user.deliveryEmail} is now ${c.values.role}`);
  },
  'regenerate-api-key': async (c) => {
    const realm = await c.realmNamed(c.need('realm'));
    const user = await c.userNamed(realm.id, c.need('email'));
    console.log(await c.users.regenerateApiKey(user.id));
  },
  'show-api-key': async (c) => {
    const realm = await c.realmNamed(c.need('realm'));
    console.log(c.users.apiKeyOf(await c.userNamed(realm.id, c.need('email'))));
  },
  'send-test-email': async (c) => {
    const to = c.need('to');
    await c.app.get(EmailService).sendNow({
      template: 'test',
      context: { serverUrl: `${c.config.externalScheme}://${c.config.externalHost}`, requestedBy: 'send-test-email' },
      to,
    });
    console.log(`Test email sent to ${to}${c.config.email.smtp ? '' : ` (written to ${c.config.email.outboxDir})`}.`);
  },
  'set-upload-quota': async (c) => {
    const realm = await c.realmNamed(c.need('realm'));
    const raw = c.need('mib');
    const mib = raw === 'default' ? null : Number(raw);
    if (mib !== null && !(Number.isInteger(mib) && mib >= 0 && mib <= 100_000_000)) {
      fail('--mib must be a whole number of MiB (0 to 100000000) or "default"');
    }
    await c.realms.setUploadQuota(realm.id, mib);
    const effective = c.realms.uploadQuotaMib({ customUploadQuotaMib: mib });
    console.log(
      `Upload quota of '${realm.stringId}': ${effective === null ? 'unlimited' : `${effective} MiB`}` +
        (mib === null ? ' (the server default)' : ''),
    );
  },
  seed: async (c) => {
    console.log((await seedDemoRealm(c.app)) ? 'Demo realm created.' : 'Demo realm already exists.');
  },
};

function cliConfig(): AppConfig {
  try {
    // A one-shot command never takes jobs from the queue.
    return loadConfig({ ...process.env, JOBS_WORKERS: 'off' });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === '--help' || command === 'help') {
    console.log(USAGE);
    return;
  }
  const { values } = parseArgs({ args: rest, options: OPTIONS, strict: true });
  const config = cliConfig();
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
  const context = new CommandContext(command, values, config, app);
  try {
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!run) fail(`Unknown command '${command}'\n\n${USAGE}`);
    await run(context);
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
