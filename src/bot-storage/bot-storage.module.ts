import { Module } from '@nestjs/common';
import { BotStorageController } from './bot-storage.controller';
import { BotStorageRepository } from './bot-storage.repository';
import { BotStorageService } from './bot-storage.service';

/** The bot framework's state store (table bot_storage_data); above users, nothing depends on it. */
@Module({
  providers: [BotStorageRepository, BotStorageService],
  controllers: [BotStorageController],
})
export class BotStorageModule {}
