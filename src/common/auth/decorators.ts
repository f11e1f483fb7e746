import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { AuthContext } from './auth.types';

export const IS_PUBLIC = 'zulip:public';
/** The route needs no authentication (server settings, dev key, health). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

export const ALLOW_INCOMING_WEBHOOKS = 'zulip:allow-incoming-webhooks';
/**
 * Incoming-webhook bots may call this route (Zulip: `{"allow_incoming_webhooks"}` in urls.py,
 * e.g. POST /messages). Elsewhere they get 401 `This API is not available to incoming webhook bots.`
 */
export const AllowIncomingWebhooks = (): MethodDecorator & ClassDecorator => SetMetadata(ALLOW_INCOMING_WEBHOOKS, true);

export type RequiredRole = 'owner' | 'admin' | 'moderator' | 'member';
export const REQUIRED_ROLE = 'zulip:required-role';
/** Coarse role check before the handler runs; refusals are 400 UNAUTHORIZED_PRINCIPAL, as Zulip. */
export const RequireRole = (role: RequiredRole): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLE, role);

export const HUMAN_ONLY = 'zulip:human-only';
/** Bots are refused before parameters are read (`This endpoint does not accept bot requests.`). */
export const HumanOnly = (): MethodDecorator & ClassDecorator => SetMetadata(HUMAN_ONLY, true);

export const NO_GUESTS = 'zulip:no-guests';
/** Guests are refused before parameters are read (`Not allowed for guest users`). */
export const NoGuests = (): MethodDecorator & ClassDecorator => SetMetadata(NO_GUESTS, true);

/** The authenticated user and realm. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<{ user?: AuthContext }>();
  if (!req.user) throw new Error('CurrentUser used on a public route');
  return req.user;
});
