import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { UsersModule } from '../users/users.module';
import { PlaygroundController } from './playground.controller';
import { PlaygroundRepository } from './playground.repository';
import { PlaygroundService } from './playground.service';

/** Code playgrounds: POST /realm/playgrounds, DELETE /realm/playgrounds/{id}. Above users. */
@Module({
  imports: [EventsModule, UsersModule],
  providers: [PlaygroundRepository, PlaygroundService],
  controllers: [PlaygroundController],
  exports: [PlaygroundService],
})
export class PlaygroundModule {}
