import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { AlertWordsController } from './alert-words.controller';
import { AlertWordsRepository } from './alert-words.repository';
import { AlertWordsService } from './alert-words.service';

/**
 * Alert words: GET/POST/DELETE /users/me/alert_words and the per-realm matcher the send and
 * edit paths use to set `has_alert_word`. Owns alert_word; above users, below messaging.
 */
@Module({
  imports: [EventsModule, RealmModule],
  providers: [AlertWordsRepository, AlertWordsService],
  controllers: [AlertWordsController],
  exports: [AlertWordsService],
})
export class AlertWordsModule {}
