import { DynamicModule, Module, OnModuleDestroy } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiAuthGuard } from './common/auth/api-auth.guard';
import { RolesGuard } from './common/auth/roles.guard';
import { ChannelsModule } from './channels/channels.module';
import { AppConfig } from './common/config/config';
import { RATE_LIMITER, RateLimitGuard } from './common/rate-limit/rate-limit.guard';
import { InMemoryRateLimitStore, RateLimiter } from './common/rate-limit/rate-limiter';
import { RedisRateLimitStore } from './common/rate-limit/redis-rate-limit-store';
import { ConfigModule } from './common/config/config.module';
import { ZulipExceptionFilter } from './common/http/exception.filter';
import { CacheInvalidationModule } from './database/cache-invalidation';
import { dataSourceOptions } from './data-source-options';
import { EmailModule } from './email/email.module';
import { DomainEventBus } from './events/domain-event-bus';
import { EventsModule } from './events/events.module';
import { HealthModule } from './health/health.module';
import { StaticModule } from './static/static.module';
import { BotStorageModule } from './bot-storage/bot-storage.module';
import { AlertWordsModule } from './alert-words/alert-words.module';
import { DraftsModule } from './drafts/drafts.module';
import { JobsModule } from './jobs/jobs.module';
import { JobsService } from './jobs/jobs.service';
import { MetricsModule } from './metrics/metrics.module';
import { OpenApiModule } from './openapi/openapi.module';
import { MessagingModule } from './messaging/messaging.module';
import { PresenceModule } from './presence/presence.module';
import { PushModule } from './push/push.module';
import { RealmModule } from './realm/realm.module';
import { RealmAdminModule } from './realm-admin/realm-admin.module';
import { RealmEmojiModule } from './realm-emoji/realm-emoji.module';
import { LinkifierModule } from './linkifiers/linkifier.module';
import { PlaygroundModule } from './playgrounds/playground.module';
import { InvitesModule } from './invites/invites.module';
import { RegisterModule } from './register/register.module';
import { ScheduledMessagesModule } from './scheduled-messages/scheduled-messages.module';
import { MissedMessageEmailsModule } from './missed-message-emails/missed-message-emails.module';
import { UploadsModule } from './uploads/uploads.module';
import { UsersModule } from './users/users.module';

@Module({})
export class AppModule implements OnModuleDestroy {
  constructor(
    private readonly jobs: JobsService,
    private readonly bus: DomainEventBus,
  ) {}

  /**
   * Nest destroys modules from the root down, so this runs first: after-commit handlers still
   * running (a message's missed-message and push checks) and running jobs finish (or are handed
   * back) while the modules they use, the database pool first, are still up. Handlers may enqueue
   * jobs and jobs may publish events, hence handlers, jobs, handlers.
   */
  async onModuleDestroy(): Promise<void> {
    await this.bus.whenIdle();
    await this.jobs.stop();
    await this.bus.whenIdle();
  }

  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot(dataSourceOptions(databaseUrl, config.dbPoolSize)),
        PassportModule,
        CacheInvalidationModule,
        EventsModule,
        JobsModule,
        EmailModule,
        RealmModule,
        UsersModule,
        ChannelsModule,
        RealmEmojiModule,
        AlertWordsModule,
        LinkifierModule,
        PlaygroundModule,
        InvitesModule,
        MessagingModule,
        DraftsModule,
        PresenceModule,
        UploadsModule,
        ScheduledMessagesModule,
        MissedMessageEmailsModule,
        RealmAdminModule,
        RegisterModule,
        HealthModule,
        MetricsModule,
        OpenApiModule,
        PushModule,
        StaticModule,
        BotStorageModule,
      ],
      providers: [
        {
          provide: RATE_LIMITER,
          // With several instances the limit must be shared, so it lives in Redis.
          useValue: new RateLimiter(
            config.rateLimit,
            config.redisUrl && config.rateLimit.length > 0
              ? new RedisRateLimitStore(config.redisUrl, config.redisPrefix)
              : new InMemoryRateLimitStore(),
          ),
        },
        // Order matters: authenticate, count the request against the rate limit, then check roles.
        { provide: APP_GUARD, useClass: ApiAuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: RolesGuard },
        { provide: APP_FILTER, useClass: ZulipExceptionFilter },
      ],
    };
  }
}
