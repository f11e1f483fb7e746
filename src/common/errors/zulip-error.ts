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
  | 'RATE_LIMIT_HIT'
  | 'INVALID_API_KEY'
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
}

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Basic realm="zulip"' };

/** Constructors for the errors more than one module raises, with Zulip's exact texts. */
export const Errors = {
  badRequest: (msg: string, data: Record<string, unknown> = {}) => new ZulipError(msg, 'BAD_REQUEST', 400, data),
  missingArgument: (name: string) =>
    new ZulipError(`Missing '${name}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: name }),
  confusingVar: (a: string, b: string) =>
    new ZulipError(`Can't decide between '${a}' and '${b}' arguments`, 'REQUEST_CONFUSING_VAR', 400, {
      var_name: a,
    }),
  unauthorized: (msg: string) => new ZulipError(msg, 'UNAUTHORIZED', 401, {}, WWW_AUTHENTICATE),
  notLoggedIn: () =>
    new ZulipError(
      'Not logged in: API authentication or user session required',
      'UNAUTHORIZED',
      401,
      {},
      WWW_AUTHENTICATE,
    ),
  mustBeAdmin: () => new ZulipError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'),
  mustBeOwner: () => new ZulipError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'),
  mustBeModerator: () => new ZulipError('Must be an organization moderator', 'UNAUTHORIZED_PRINCIPAL'),
  mustBeMember: () => new ZulipError('Must be an organization member', 'UNAUTHORIZED_PRINCIPAL'),
  insufficientPermission: () => new ZulipError('Insufficient permission'),
  notAllowedForGuests: () => new ZulipError('Not allowed for guest users'),
  noBots: () => new ZulipError('This endpoint does not accept bot requests.'),
  invalidSubdomain: () => new ZulipError('Invalid subdomain', 'BAD_REQUEST', 404),
  notFound: (msg = 'Not Found') => new ZulipError(msg, 'NOT_FOUND', 404),
  internal: () => new ZulipError('Internal server error', 'INTERNAL_SERVER_ERROR', 500),
  payloadTooLarge: () => new ZulipError('Request body too large', 'BAD_REQUEST', 413),
  expectationMismatch: (field: string) =>
    new ZulipError(`'${field}' value does not match the expected value.`, 'EXPECTATION_MISMATCH', 400, {
      field_name: field,
    }),
};
