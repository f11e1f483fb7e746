import { INestApplicationContext, Logger } from '@nestjs/common';
import { seedDemoChannels } from '../channels/channels.seed';
import { RealmService } from '../realm/realm.service';
import { Role } from '../realm/system-groups';
import { seedDemoProfileFields } from '../users/demo-profile-fields.seed';
import { UserGroupsService } from '../users/user-groups.service';
import { UsersService } from '../users/users.service';

/** Password of every demo user (development mode only), for POST /fetch_api_key. */
export const DEMO_PASSWORD = 'zulip-demo';

/** Zulip's system bots live in the `zulipinternal` realm and take ids 1–5, as in Zulip's test data. */
const SYSTEM_BOTS = [
  { email: 'emailgateway@zulip.com', fullName: 'Email Gateway' },
  { email: 'nagios-receive-bot@zulip.com', fullName: 'Nagios Receive Bot' },
  { email: 'nagios-send-bot@zulip.com', fullName: 'Nagios Send Bot' },
  { email: 'notification-bot@zulip.com', fullName: 'Notification Bot' },
  { email: 'welcome-bot@zulip.com', fullName: 'Welcome Bot' },
];

/** Zulip's test-suite users (zilencer populate_db), created sorted by email: ids 6–15. */
const DEMO_USERS = [
  { email: 'AARON@zulip.com', fullName: 'aaron', role: Role.MEMBER },
  { email: 'ZOE@zulip.com', fullName: 'Zoe', role: Role.MEMBER },
  { email: 'cordelia@zulip.com', fullName: "Cordelia, Lear's daughter", role: Role.MEMBER },
  { email: 'desdemona@zulip.com', fullName: 'Desdemona', role: Role.OWNER },
  { email: 'hamlet@zulip.com', fullName: 'King Hamlet', role: Role.MEMBER },
  { email: 'iago@zulip.com', fullName: 'Iago', role: Role.ADMINISTRATOR, special: true },
  { email: 'othello@zulip.com', fullName: 'Othello, the Moor of Venice', role: Role.MEMBER },
  { email: 'polonius@zulip.com', fullName: 'Polonius', role: Role.GUEST },
  { email: 'prospero@zulip.com', fullName: 'Prospero from The Tempest', role: Role.MEMBER },
  { email: 'shiva@zulip.com', fullName: 'शिव', role: Role.MODERATOR },
];

/** Bots of the demo realm (ids 16–18): generic, incoming webhook, outgoing webhook. */
const DEMO_BOTS = [
  { email: 'default-bot@zulip.com', fullName: 'Zulip Default Bot', botType: 1, owner: 'desdemona@zulip.com' },
  { email: 'webhook-bot@zulip.com', fullName: 'Zulip Webhook Bot', botType: 2, owner: 'ZOE@zulip.com' },
  { email: 'outgoing-webhook@zulip.com', fullName: 'Outgoing Webhook', botType: 3, owner: 'AARON@zulip.com' },
];

/**
 * Seeds Zulip's development realm (string_id `zulip`, "Zulip Dev") idempotently: nothing happens
 * when it already exists. Channels, subscriptions and profile fields are added by the modules
 * that own them as they land.
 */
export async function seedDemoRealm(app: INestApplicationContext): Promise<boolean> {
  const realms = app.get(RealmService);
  const users = app.get(UsersService);
  const groups = app.get(UserGroupsService);
  const logger = new Logger('Seed');
  if (await realms.findByStringId('zulip')) return false;

  if (!(await realms.findByStringId('zulipinternal'))) {
    const internal = await realms.createRealm({ stringId: 'zulipinternal', name: 'System bot realm' });
    for (const bot of SYSTEM_BOTS) {
      await users.createUser(internal, { email: bot.email, fullName: bot.fullName, isBot: true, botType: 1 });
    }
  }

  const realm = await realms.createRealm({
    stringId: 'zulip',
    name: 'Zulip Dev',
    description: "The Zulip development environment default organization.  It's great for testing!",
    orgType: 10,
    inviteRequired: false,
    enableSpectatorAccess: true,
    userDefaults: {
      enter_sends: true,
      // As tools/test-api does: API emails are the real addresses.
      email_address_visibility: 1,
      automatically_follow_topics_policy: 4,
      automatically_unmute_topics_in_muted_streams_policy: 4,
    },
  });
  const systemGroups = await realms.systemGroupIds(realm.id);
  await realms.updateRealm(realm.id, {
    enableReadReceipts: true,
    sendChannelEventsMessages: true,
    // Zulip's API-doc tests let administrators manage all groups.
    can_manage_all_groups: systemGroups.get('role:administrators')!,
  });

  const byEmail = new Map<string, number>();
  for (const u of DEMO_USERS) {
    const { user } = await users.createUser(realm, {
      email: u.email,
      fullName: u.fullName,
      role: u.role,
      password: DEMO_PASSWORD,
      canCreateUsers: u.special === true,
      canChangeUserEmails: u.special === true,
    });
    byEmail.set(u.email, user.id);
  }
  for (const b of DEMO_BOTS) {
    await users.createUser(realm, {
      email: b.email,
      fullName: b.fullName,
      isBot: true,
      botType: b.botType,
      botOwnerId: byEmail.get(b.owner)!,
    });
  }
  const cordelia = byEmail.get('cordelia@zulip.com')!;
  await groups.createSeedGroup(realm.id, {
    name: 'hamletcharacters',
    description: 'Characters of Hamlet',
    creatorId: cordelia,
    members: [cordelia, byEmail.get('hamlet@zulip.com')!],
  });
  await seedDemoProfileFields(app, realm.id);
  await seedDemoChannels(app, realm.id);
  logger.debug(`seeded demo realm 'zulip' with ${DEMO_USERS.length} users and ${DEMO_BOTS.length} bots`);
  return true;
}
