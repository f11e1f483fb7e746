/**
 * The sending client's name (Zulip's Client.name), from the User-Agent header as Zulip's
 * parse_user_agent does, and Zulip's Client.default_read_by_sender. Pure functions.
 */
const USER_AGENT = /^(?<name>[^/ ]*[^0-9/(]*)(\/(?<version>[^/ ]*))?([ /].*)?$/;

export function clientNameFromUserAgent(userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent === '') return 'Unspecified';
  const name = USER_AGENT.exec(userAgent)?.groups?.name?.trim();
  // Client.name is a 30-character column.
  return (name || 'Unspecified').slice(0, 30);
}

const UI_CLIENTS = new Set([
  'zulipandroid',
  'zulipios',
  'zulipdesktop',
  'zulipmobile',
  'zulipelectron',
  'zulipterminal',
  'snipe',
  'website',
  'ios',
  'android',
]);

/**
 * Whether a message from this client counts as read by its sender when `read_by_sender` is not
 * given: true for Zulip's own user interfaces, false for API clients and integrations.
 */
export function defaultReadBySender(clientName: string): boolean {
  const name = clientName.toLowerCase();
  return UI_CLIENTS.has(name) || name.includes('desktop app');
}
