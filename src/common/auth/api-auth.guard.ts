import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { Errors, ZulipError } from '../errors/zulip-error';
import type { AuthContext } from './auth.types';
import { ALLOW_INCOMING_WEBHOOKS, IS_PUBLIC } from './decorators';

/** UserProfile.INCOMING_WEBHOOK_BOT */
const INCOMING_WEBHOOK_BOT = 2;

/**
 * Global, default-deny authentication. Checks the Authorization header's form first so that
 * malformed headers get Zulip's messages, then lets the Passport Basic strategy verify the key.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard('basic') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers.authorization;
    if (!header) throw Errors.notLoggedIn();
    const [scheme, credentials] = header.trim().split(/\s+/, 2);
    if (scheme.toLowerCase() !== 'basic') {
      throw Errors.basicAuthRequired();
    }
    const decoded = Buffer.from(credentials ?? '', 'base64').toString('utf8');
    if (!credentials || !/^[A-Za-z0-9+/=_-]+$/.test(credentials) || !decoded.includes(':')) {
      throw Errors.invalidAuthHeader();
    }
    // Passport refuses an empty password as "no credentials"; Zulip calls it a malformed key.
    if (decoded.slice(decoded.indexOf(':') + 1).trim() === '') throw Errors.malformedApiKey();
    await (super.canActivate(context) as Promise<boolean>);
    // As Zulip's validate_api_key: checked after the account and subdomain checks.
    const { user } = (req as Request & { user: AuthContext }).user;
    if (user.isBot && user.botType === INCOMING_WEBHOOK_BOT) {
      const allowed = this.reflector.getAllAndOverride<boolean>(ALLOW_INCOMING_WEBHOOKS, [
        context.getHandler(),
        context.getClass(),
      ]);
      if (!allowed) throw Errors.webhookBotNotAllowed();
    }
    return true;
  }

  override handleRequest<TUser>(err: unknown, user: TUser): TUser {
    if (err instanceof ZulipError) throw err;
    if (err) throw err instanceof Error ? err : new Error('Authentication failed', { cause: err });
    if (!user) throw Errors.invalidApiKey();
    return user;
  }
}
