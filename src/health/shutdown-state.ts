import { Injectable } from '@nestjs/common';

/** Set when SIGTERM starts the drain (lifecycle/shutdown.ts): readiness fails from then on. */
@Injectable()
export class ShutdownState {
  draining = false;
}
