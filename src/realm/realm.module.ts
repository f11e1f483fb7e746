import { Module } from '@nestjs/common';
import { RealmRepository } from './realm.repository';
import { RealmService } from './realm.service';
import { ServerSettingsController } from './server-settings.controller';

@Module({
  providers: [RealmRepository, RealmService],
  controllers: [ServerSettingsController],
  exports: [RealmService],
})
export class RealmModule {}
