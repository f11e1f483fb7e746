import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Errors about push-notification device tokens. */
export const PushErrors = {
  invalidTokenLength: () => badRequest('Empty or invalid length token'),
  invalidApnsToken: () => badRequest('Invalid APNS token'),
  invalidFcmToken: () => badRequest('Invalid FCM token'),
  tokenDoesNotExist: () => badRequest('Token does not exist'),
  /** POST /mobile_push/test_notification with a token the caller has not registered (InvalidPushDeviceTokenError). */
  deviceNotRecognized: () => new ZulipError('Device not recognized', 'INVALID_PUSH_DEVICE_TOKEN', 400),
};
