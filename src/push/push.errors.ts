import { badRequest } from '../common/errors/zulip-error';

/** Errors about push-notification device tokens. */
export const PushErrors = {
  invalidTokenLength: () => badRequest('Empty or invalid length token'),
  invalidApnsToken: () => badRequest('Invalid APNS token'),
  invalidFcmToken: () => badRequest('Invalid FCM token'),
  tokenDoesNotExist: () => badRequest('Token does not exist'),
};
