/**
 * Zulip's error codes (zerver/lib/exceptions.py ErrorCode) that this server produces.
 * The HTTP status is 400 unless the error says otherwise.
 */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'REQUEST_VARIABLE_MISSING'
  | 'REQUEST_CONFUSING_VAR'
  | 'REQUEST_VARIABLE_INVALID'
  | 'UNAUTHORIZED'
  | 'UNAUTHORIZED_PRINCIPAL'
  | 'AUTHENTICATION_FAILED'
  | 'USER_DEACTIVATED'
  | 'REALM_DEACTIVATED'
  | 'BAD_EVENT_QUEUE_ID'
  | 'STREAM_DOES_NOT_EXIST'
  | 'CHANNEL_ALREADY_EXISTS'
  | 'STREAM_WILDCARD_MENTION_NOT_ALLOWED'
  | 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED'
  | 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED'
  | 'REACTION_ALREADY_EXISTS'
  | 'REACTION_DOES_NOT_EXIST'
  | 'EXPECTATION_MISMATCH'
  | 'SYSTEM_GROUP_REQUIRED'
  | 'CANNOT_DEACTIVATE_GROUP_IN_USE'
  | 'NOT_FOUND'
  | 'BAD_NARROW'
  | 'BAD_IMAGE'
  | 'RATE_LIMIT_HIT'
  | 'CSRF_FAILED'
  | 'INVALID_API_KEY'
  | 'INVALID_PUSH_DEVICE_TOKEN'
  | 'CANNOT_DEACTIVATE_LAST_USER'
  | 'INVITATION_FAILED'
  | 'REALM_UPLOAD_QUOTA'
  | 'INTERNAL_SERVER_ERROR';

/** An error with Zulip's envelope: `{result:"error", msg, code, ...data}` and an HTTP status. */
export class ZulipError extends Error {
  constructor(
    message: string,
    readonly code: ErrorCode = 'BAD_REQUEST',
    readonly status = 400,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ZulipError';
  }

  toBody(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.data };
  }

  /** Is `err` the error `factory` builds (same code, status and text)? For niladic catalog entries. */
  static is(err: unknown, factory: () => ZulipError): err is ZulipError {
    if (!(err instanceof ZulipError)) return false;
    const expected = factory();
    return err.code === expected.code && err.status === expected.status && err.message === expected.message;
  }
}

/*
 * The error catalog (docs/DEVELOPING.md "Errors"): every error text is written once, in a
 * factory of a catalog file — this one for the protocol-level errors, `common/errors/param.errors.ts`
 * for parameter decoding, and one `<concept>.errors.ts` per context for its concepts.
 * `npm run lint` (scripts/check-errors.js) refuses a literal text outside the catalog files and
 * the same text in two entries.
 */

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Basic realm="zulip"' };
/**
 * What a 401 outside /api/ says instead (Zulip: `Session` for paths not under /api): browsers
 * know no such scheme, so they never prompt for, nor remember, Basic credentials there.
 */
export const SESSION_WWW_AUTHENTICATE = 'Session realm="zulip"';
const ACCOUNT_DEACTIVATED = 'Account is deactivated';
const REALM_DEACTIVATED = 'This organization has been deactivated';
const NOT_FOUND = 'Not Found';
const INVALID_SUBDOMAIN = 'Invalid subdomain';

/** Zulip's text of a missing parameter (the code depends on who raises it). */
export const missingArgumentText = (name: string) => `Missing '${name}' argument`;
const expectationMismatchText = (field: string) => `'${field}' value does not match the expected value.`;

/**
 * A 400 with code BAD_REQUEST. Outside catalog files only with a text computed elsewhere in the
 * catalog (a policy's `…().message`) or by the parameter glue, never with a literal (lint).
 */
export function badRequest(msg: string, data: Record<string, unknown> = {}): ZulipError {
  return new ZulipError(msg, 'BAD_REQUEST', 400, data);
}

/** A Basic-auth 401 (with WWW-Authenticate); the same rule as `badRequest` for its text. */
export function unauthorized(msg: string): ZulipError {
  return new ZulipError(msg, 'UNAUTHORIZED', 401, {}, WWW_AUTHENTICATE);
}

function csrfFailed(reason: string): ZulipError {
  return new ZulipError(`CSRF error: ${reason}`, 'CSRF_FAILED', 403, { reason });
}

/** Protocol-level errors: parameters, authentication, roles, routing, limits, failures. */
export const Errors = {
  badRequest,
  unauthorized,

  // Parameters
  missingArgument: (name: string) =>
    new ZulipError(missingArgumentText(name), 'REQUEST_VARIABLE_MISSING', 400, { var_name: name }),
  /** The same text as a plain BAD_REQUEST (views that check a parameter by hand, like typing). */
  missingArgumentPlain: (name: string) => badRequest(missingArgumentText(name)),
  confusingVar: (a: string, b: string) =>
    new ZulipError(`Can't decide between '${a}' and '${b}' arguments`, 'REQUEST_CONFUSING_VAR', 400, {
      var_name: a,
    }),
  expectationMismatch: (field: string) =>
    new ZulipError(expectationMismatchText(field), 'EXPECTATION_MISMATCH', 400, { field_name: field }),
  /** `'old' value does not match …` of a group-setting change `{new, old}` (no field_name). */
  oldValueMismatch: () => new ZulipError(expectationMismatchText('old'), 'EXPECTATION_MISMATCH'),

  // Authentication (401 with WWW-Authenticate unless said otherwise)
  notLoggedIn: () => unauthorized('Not logged in: API authentication or user session required'),
  /** A non-Basic Authorization scheme (a 400). */
  basicAuthRequired: () => badRequest('This endpoint requires HTTP basic authentication.'),
  invalidAuthHeader: () => unauthorized('Invalid authorization header for basic auth'),
  malformedApiKey: () => unauthorized('Malformed API key'),
  invalidApiKey: () => unauthorized('Invalid API key'),
  webhookBotNotAllowed: () => unauthorized('This API is not available to incoming webhook bots.'),
  accountNotInSubdomain: () => unauthorized('Account is not associated with this subdomain'),
  /** API-key authentication of a deactivated user. */
  apiKeyUserDeactivated: () => unauthorized(ACCOUNT_DEACTIVATED),
  /** API-key authentication in a deactivated organization. */
  apiKeyRealmDeactivated: () => unauthorized(REALM_DEACTIVATED),
  /** Zulip's UserDeactivatedError (password and development logins). */
  userDeactivated: () => new ZulipError(ACCOUNT_DEACTIVATED, 'USER_DEACTIVATED', 401),
  /** Zulip's RealmDeactivatedError (password and development logins). */
  realmDeactivated: () => new ZulipError(REALM_DEACTIVATED, 'REALM_DEACTIVATED', 401),
  authenticationFailed: () => new ZulipError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401),

  // Roles and permissions
  mustBeAdmin: () => new ZulipError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'),
  mustBeOwner: () => new ZulipError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'),
  mustBeModerator: () => new ZulipError('Must be an organization moderator', 'UNAUTHORIZED_PRINCIPAL'),
  mustBeMember: () => new ZulipError('Must be an organization member', 'UNAUTHORIZED_PRINCIPAL'),
  insufficientPermission: () => new ZulipError('Insufficient permission'),
  notAllowedForGuests: () => new ZulipError('Not allowed for guest users'),
  noBots: () => new ZulipError('This endpoint does not accept bot requests.'),
  devEndpointOnly: () => badRequest('Endpoint not available in production.'),

  // Routing and hosts
  /** Zulip's InvalidSubdomainError (404). */
  invalidSubdomain: () => new ZulipError(INVALID_SUBDOMAIN, 'BAD_REQUEST', 404),
  /** The same text as a 400 (GET /server_settings). */
  invalidSubdomainBadRequest: () => badRequest(INVALID_SUBDOMAIN),
  /** An unknown URL (JSON 404, code BAD_REQUEST as Zulip's 404 handler). */
  routeNotFound: () => new ZulipError(NOT_FOUND, 'BAD_REQUEST', 404),
  methodNotAllowed: (allowed: string[]) =>
    new ZulipError('Method Not Allowed', 'BAD_REQUEST', 405, { allowed_methods: allowed }),
  /** A framework HTTP 4xx, with the framework's own text. */
  httpError: (msg: string, status: number) => new ZulipError(msg, 'BAD_REQUEST', status),

  // Bodies and limits
  payloadTooLarge: () => new ZulipError('Request body too large', 'BAD_REQUEST', 413),
  malformedBody: () => badRequest('Malformed request body'),
  malformedMultipartBody: () => badRequest('Malformed multipart body'),
  /** The HTTP parser refused the request head (answered on the socket, before Express). */
  headersTooLarge: () => new ZulipError('Request headers too large', 'BAD_REQUEST', 431),
  malformedHttpRequest: () => new ZulipError('Malformed HTTP request', 'BAD_REQUEST', 400),
  requestTimeout: () => new ZulipError('Request timeout', 'BAD_REQUEST', 408),
  /** Zulip's CsrfFailureError: 403 CSRF_FAILED with the reason as a field. */
  csrfBadOrigin: (origin: string) =>
    csrfFailed(`Origin checking failed - ${origin} does not match any trusted origins.`),
  csrfCrossSite: () => csrfFailed('Cross-site request refused.'),
  rateLimited: (retryAfterSeconds: number) =>
    new ZulipError(
      'API usage exceeded rate limit',
      'RATE_LIMIT_HIT',
      429,
      { 'retry-after': Math.round(retryAfterSeconds * 1000) / 1000 },
      { 'Retry-After': String(Math.ceil(retryAfterSeconds)) },
    ),

  // Failures
  concurrentChange: () => badRequest('The request conflicts with a concurrent change; please retry.'),
  internal: () => new ZulipError('Internal server error', 'INTERNAL_SERVER_ERROR', 500),
};
