import { badRequest } from '../common/errors/zulip-error';

/** Errors of the bot state store (Zulip's StateError texts). */
export const BotStorageErrors = {
  keyDoesNotExist: () => badRequest('Key does not exist.'),
  overLimit: (excess: number, limit: number) =>
    badRequest(`Request exceeds storage limit by ${excess} characters. The limit is ${limit} characters.`),
  botsOnly: () => badRequest('This endpoint is only available to bots.'),
};
