import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { EventsModule } from '../events/events.module';
import { UsersModule } from '../users/users.module';
import { MessagingModule } from '../messaging/messaging.module';
import { PresenceModule } from '../presence/presence.module';
import { RealmModule } from '../realm/realm.module';
import { MessagePushHandler } from './message-push.handler';
import { PushRecipientsRepository } from './push-recipients.repository';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { PushController, PushTestController } from './push.controller';
import { PushMetrics } from './push.metrics';
import { PushDevicesRepository } from './push-devices.repository';
import { PushDevicesService } from './push-devices.service';
import { PushNotificationsService } from './push-notifications.service';
import { createPushProviders, PUSH_PROVIDERS } from './push-providers';

/** Mobile push: device tokens, and notifications through the configured providers (APNs, FCM). */
@Module({
  imports: [EventsModule, RealmModule, UsersModule, ChannelsModule, MessagingModule, PresenceModule],
  providers: [
    PushRecipientsRepository,
    MessagePushHandler,
    PushDevicesRepository,
    PushDevicesService,
    { provide: PUSH_PROVIDERS, useFactory: (config: AppConfig) => createPushProviders(config), inject: [APP_CONFIG] },
    PushNotificationsService,
    PushMetrics,
  ],
  controllers: [PushController, PushTestController],
  exports: [PushDevicesService, PushNotificationsService],
})
export class PushModule {}
