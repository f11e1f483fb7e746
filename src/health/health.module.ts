import { Module } from '@nestjs/common';
import { RealmModule } from '../realm/realm.module';
import { HealthController } from './health.controller';

@Module({ imports: [RealmModule], controllers: [HealthController] })
export class HealthModule {}
