import { Controller, Delete, Get, Param, Patch, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { clientNameFromUserAgent } from '../messaging/client-name';
import {
  CreateReminderArgs,
  CreateScheduledMessageArgs,
  UpdateScheduledMessageArgs,
} from './dto/scheduled-messages.dto';
import { ScheduledMessagesService } from './scheduled-messages.service';

/** zerver/views/scheduled_messages.py and reminders.py. */
@Controller('api/v1')
export class ScheduledMessagesController {
  constructor(private readonly scheduled: ScheduledMessagesService) {}

  @Get('scheduled_messages')
  async list(@CurrentUser() auth: AuthContext) {
    return { scheduled_messages: await this.scheduled.list(auth) };
  }

  @Post('scheduled_messages')
  async create(
    @CurrentUser() auth: AuthContext,
    @Args(CreateScheduledMessageArgs) args: CreateScheduledMessageArgs,
    @Req() req: Request,
  ) {
    const id = await this.scheduled.create(
      auth,
      {
        type: args.type,
        to: args.to,
        topic: args.topic,
        content: args.content,
        scheduledDeliveryTimestamp: args.scheduled_delivery_timestamp,
        readBySender: args.read_by_sender,
      },
      clientNameFromUserAgent(req.headers['user-agent']),
    );
    return { scheduled_message_id: id };
  }

  @Patch('scheduled_messages/:scheduled_message_id')
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('scheduled_message_id', PathIntPipe) id: number,
    @Args(UpdateScheduledMessageArgs) args: UpdateScheduledMessageArgs,
    @Req() req: Request,
  ) {
    await this.scheduled.edit(
      auth,
      id,
      {
        type: args.type,
        to: args.to,
        topic: args.topic,
        content: args.content,
        scheduledDeliveryTimestamp: args.scheduled_delivery_timestamp,
      },
      clientNameFromUserAgent(req.headers['user-agent']),
    );
    return {};
  }

  @Delete('scheduled_messages/:scheduled_message_id')
  async remove(@CurrentUser() auth: AuthContext, @Param('scheduled_message_id', PathIntPipe) id: number) {
    await this.scheduled.delete(auth, id);
    return {};
  }

  @Get('reminders')
  async listReminders(@CurrentUser() auth: AuthContext) {
    return { reminders: await this.scheduled.listReminders(auth) };
  }

  @Post('reminders')
  async createReminder(
    @CurrentUser() auth: AuthContext,
    @Args(CreateReminderArgs) args: CreateReminderArgs,
    @Req() req: Request,
  ) {
    const id = await this.scheduled.createReminder(
      auth,
      { messageId: args.message_id, scheduledDeliveryTimestamp: args.scheduled_delivery_timestamp, note: args.note },
      clientNameFromUserAgent(req.headers['user-agent']),
    );
    return { reminder_id: id };
  }

  @Delete('reminders/:reminder_id')
  async removeReminder(@CurrentUser() auth: AuthContext, @Param('reminder_id', PathIntPipe) id: number) {
    await this.scheduled.deleteReminder(auth, id);
    return {};
  }
}
