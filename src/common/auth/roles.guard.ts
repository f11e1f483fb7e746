import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Role } from '../roles';
import { Errors } from '../errors/zulip-error';
import type { AuthContext } from './auth.types';
import { HUMAN_ONLY, NO_GUESTS, REQUIRED_ROLE, RequiredRole } from './decorators';

interface HandlerRules {
  noGuests: boolean;
  humanOnly: boolean;
  required: RequiredRole | undefined;
}

/**
 * Enforces `@NoGuests()`, `@HumanOnly()` and `@RequireRole()` before parameters are parsed, with
 * Zulip's errors (role refusals: HTTP 400, code UNAUTHORIZED_PRINCIPAL).
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  /** Each handler's decorators, read once (the metadata never changes after start-up). */
  private readonly rules = new WeakMap<object, HandlerRules>();

  canActivate(context: ExecutionContext): boolean {
    const auth = context.switchToHttp().getRequest<{ user?: AuthContext }>().user;
    if (!auth) return true; // public route; nothing to check
    const { noGuests, humanOnly, required } = this.rulesOf(context);
    if (noGuests && auth.user.role === Role.GUEST) {
      throw Errors.notAllowedForGuests();
    }
    if (humanOnly && auth.user.isBot) throw Errors.noBots();
    if (!required) return true;
    const role = auth.user.role;
    switch (required) {
      case 'owner':
        if (role !== Role.OWNER) throw Errors.mustBeOwner();
        break;
      case 'admin':
        if (role > Role.ADMINISTRATOR) throw Errors.mustBeAdmin();
        break;
      case 'moderator':
        if (role > Role.MODERATOR) throw Errors.mustBeModerator();
        break;
      case 'member':
        if (role === Role.GUEST) throw Errors.mustBeMember();
        break;
    }
    return true;
  }

  private rulesOf(context: ExecutionContext): HandlerRules {
    const handler = context.getHandler();
    let rules = this.rules.get(handler);
    if (!rules) {
      const targets = [handler, context.getClass()];
      rules = {
        noGuests: this.reflector.getAllAndOverride<boolean>(NO_GUESTS, targets) === true,
        humanOnly: this.reflector.getAllAndOverride<boolean>(HUMAN_ONLY, targets) === true,
        required: this.reflector.getAllAndOverride<RequiredRole | undefined>(REQUIRED_ROLE, targets),
      };
      this.rules.set(handler, rules);
    }
    return rules;
  }
}
