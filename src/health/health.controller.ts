import { Controller, Get } from '@nestjs/common';
import { Public } from '../common/auth/decorators';
import { Errors } from '../common/errors/zulip-error';
import { RealmService } from '../realm/realm.service';

/** GET /health (outside /api/v1): 200 when the database answers, 503 otherwise. */
@Controller()
export class HealthController {
  constructor(private readonly realms: RealmService) {}

  @Public()
  @Get('health')
  async health() {
    try {
      await this.realms.ping();
    } catch {
      throw Errors.databaseUnreachable();
    }
    return { database: 'ok' };
  }
}
