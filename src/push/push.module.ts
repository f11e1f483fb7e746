import { Module } from '@nestjs/common';
import { PushController } from './push.controller';
import { PushDevicesRepository } from './push-devices.repository';
import { PushDevicesService } from './push-devices.service';

/** Mobile push: device tokens now; the notifiability decision and providers build on it. */
@Module({
  providers: [PushDevicesRepository, PushDevicesService],
  controllers: [PushController],
  exports: [PushDevicesService],
})
export class PushModule {}
