import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { MessagingModule } from '../messaging/messaging.module';
import { AttachmentsRepository } from './attachments.repository';
import { UploadStore } from './upload-store';
import { UploadsController } from './uploads.controller';
import { UploadsService } from './uploads.service';

/**
 * Uploaded files: POST /user_uploads, serving /user_uploads/..., GET/DELETE /attachments.
 * Sits above messaging (it reads message links and keeps attachment publicity current).
 */
@Module({
  imports: [EventsModule, RealmModule, MessagingModule],
  providers: [AttachmentsRepository, UploadStore, UploadsService],
  controllers: [UploadsController],
})
export class UploadsModule {}
