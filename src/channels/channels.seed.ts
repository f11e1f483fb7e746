import { INestApplicationContext, Injectable } from '@nestjs/common';
import { UserDirectoryService } from '../users/user-directory.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runInTransaction } from '../database/transaction';
import { RealmService } from '../realm/realm.service';
import type { Stream } from './channel.entity';
import { TopicsPolicy } from './channel-settings';
import { ChannelsRepository } from './channels.repository';
import { NewChannelSpec, SubscriptionsService } from './subscriptions.service';

interface DemoChannel {
  name: string;
  description: string;
  creator?: string;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
}

/** Zulip's test-suite data set (zilencer populate_db, zerver/actions/create_realm.py). */
const DEMO_CHANNELS: DemoChannel[] = [
  { name: 'Verona', description: 'A city in Italy' },
  { name: 'Zulip', description: 'Questions and discussion about using Zulip.' },
  { name: 'sandbox', description: 'Experiment with Zulip here. :test_tube:' },
  { name: 'Denmark', description: 'A Scandinavian country' },
  { name: 'Scotland', description: 'Located in the United Kingdom', creator: 'iago@zulip.com' },
  { name: 'Venice', description: 'A northeastern Italian city', creator: 'polonius@zulip.com' },
  { name: 'Rome', description: 'Yet another Italian city', isWebPublic: true },
  {
    name: 'core team',
    description: 'A private channel for core team members',
    creator: 'desdemona@zulip.com',
    inviteOnly: true,
  },
];

const DEMO_SUBSCRIPTIONS: Record<string, string[]> = {
  'AARON@zulip.com': ['Verona'],
  'cordelia@zulip.com': ['Verona'],
  'hamlet@zulip.com': ['Verona', 'Denmark', 'core team', 'Zulip', 'sandbox'],
  'iago@zulip.com': ['Verona', 'Denmark', 'Scotland', 'core team', 'Zulip', 'sandbox'],
  'othello@zulip.com': ['Verona', 'Denmark', 'Scotland'],
  'prospero@zulip.com': ['Verona', 'Denmark', 'Scotland', 'Venice'],
  'ZOE@zulip.com': ['Verona', 'Denmark', 'Scotland', 'Venice', 'Rome'],
  'polonius@zulip.com': ['Verona'],
  'desdemona@zulip.com': ['Verona', 'Denmark', 'Venice', 'core team', 'Zulip', 'sandbox'],
  'shiva@zulip.com': ['Verona', 'Denmark', 'Scotland'],
};

const DEFAULT_CHANNELS = ['Verona', 'Zulip', 'sandbox'];

/** Creates the demo realm's channels, subscriptions and channel-related realm settings. */
@Injectable()
export class ChannelsSeeder {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly channels: ChannelsRepository,
    private readonly subscriptions: SubscriptionsService,
    private readonly realms: RealmService,
    private readonly directory: UserDirectoryService,
  ) {}

  async seedDemoRealm(realmId: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const realm = await this.realms.getRealm(realmId);
      const emails = Object.keys(DEMO_SUBSCRIPTIONS);
      const users = await this.directory.usersByDeliveryEmails(realmId, emails);
      const byEmail = new Map(users.map((u) => [u.deliveryEmail.toLowerCase(), u]));
      const specs: NewChannelSpec[] = [];
      for (const c of DEMO_CHANNELS) {
        const creator = c.creator ? byEmail.get(c.creator.toLowerCase()) : undefined;
        const inviteOnly = c.inviteOnly ?? false;
        const { groups, anonymous } = await this.subscriptions.resolveGroupSettings(
          realm,
          creator ? { id: creator.id, role: creator.role, groupIds: new Set() } : null,
          {},
          { inviteOnly },
        );
        specs.push({
          name: c.name,
          description: c.description,
          creatorId: creator?.id ?? null,
          inviteOnly,
          isWebPublic: c.isWebPublic ?? false,
          historyPublicToSubscribers: !inviteOnly,
          messageRetentionDays: null,
          topicsPolicy: TopicsPolicy.inherit,
          folderId: null,
          groups,
          anonymousGroups: anonymous,
        });
      }
      const { created } = await this.subscriptions.createChannels(realm, specs);
      const byName = new Map<string, Stream>(created.map((s) => [s.name, s]));
      for (const email of emails) {
        const user = byEmail.get(email.toLowerCase());
        if (!user) continue;
        const streams = DEMO_SUBSCRIPTIONS[email].map((n) => byName.get(n)).filter((s): s is Stream => s !== undefined);
        await this.subscriptions.addSubscriptions(realmId, streams, [user]);
      }
      await this.channels.addDefaultChannels(
        realmId,
        DEFAULT_CHANNELS.map((n) => byName.get(n)?.id).filter((id): id is number => id !== undefined),
      );
      await this.realms.updateRealm(realmId, {
        newStreamAnnouncementsStreamId: byName.get('Verona')?.id ?? null,
        moderationRequestChannelId: byName.get('core team')?.id ?? null,
      });
    });
  }
}

/** Called by src/seed/demo-realm.ts once the demo users exist. */
export async function seedDemoChannels(app: INestApplicationContext, realmId: number): Promise<void> {
  await app.get(ChannelsSeeder).seedDemoRealm(realmId);
}
