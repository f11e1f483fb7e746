import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Errors, ZulipError } from '../errors/zulip-error';
import type { AuthContext } from './auth.types';
import { ALLOW_INCOMING_WEBHOOKS, IS_PUBLIC } from './decorators';

/** UserProfile.INCOMING_WEBHOOK_BOT */
const INCOMING_WEBHOOK_BOT = 2;

/** The Basic strategy's verification (users/basic.strategy.ts), provided by the users module. */
export const BASIC_VERIFIER = Symbol('BASIC_VERIFIER');

export interface BasicVerifier {
  validate(req: Request, username: string, password: string): Promise<AuthContext>;
}

/**
 * Global, default-deny authentication. Checks the Authorization header's form first so that
 * malformed headers get Zulip's messages, then has the Basic strategy verify the key.
 *
 * The strategy is called directly, with passport-http's reading of the header (split on one
 * space, then the decoded text on `:`) and @nestjs/passport's outcome (a refusal is
 * INVALID_API_KEY, the strategy's own errors pass through, the user lands on `req.user`):
 * passport's per-request machinery (a strategy object per attempt, the callbacks, the promise)
 * cost more than the check itself (issue 15).
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(BASIC_VERIFIER) private readonly basic: BasicVerifier,
  ) {}

  /** @Public() per handler, read once (the metadata never changes after start-up). */
  private readonly publicHandlers = new WeakMap<object, boolean>();

  /** Synchronous for public routes: no promise, no extra microtask per request (issue 15). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const handler = context.getHandler();
    let isPublic = this.publicHandlers.get(handler);
    if (isPublic === undefined) {
      isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, context.getClass()]) === true;
      this.publicHandlers.set(handler, isPublic);
    }
    if (isPublic) return true;
    return this.authenticate(context);
  }

  private async authenticate(context: ExecutionContext): Promise<boolean> {
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
    // Passport refused an empty password as "no credentials"; Zulip calls it a malformed key.
    if (decoded.slice(decoded.indexOf(':') + 1).trim() === '') throw Errors.malformedApiKey();
    (req as Request & { user: AuthContext }).user = await this.verify(req, header);
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

  /** passport-http's BasicStrategy.authenticate, each of its refusals being INVALID_API_KEY. */
  private async verify(req: Request, header: string): Promise<AuthContext> {
    const parts = header.split(' ');
    if (parts.length < 2) throw Errors.invalidApiKey();
    const credentials = Buffer.from(parts[1], 'base64').toString().split(':');
    if (!/Basic/i.test(parts[0]) || credentials.length < 2) throw Errors.invalidApiKey();
    const [userid, password] = credentials;
    if (!userid || !password) throw Errors.invalidApiKey();
    let user: AuthContext | undefined;
    try {
      user = await this.basic.validate(req, userid, password);
    } catch (err) {
      if (err instanceof ZulipError || err instanceof Error) throw err;
      throw new Error('Authentication failed', { cause: err });
    }
    if (!user) throw Errors.invalidApiKey();
    return user;
  }
}
