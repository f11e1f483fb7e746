/** Choices of organization settings that depend on what this server offers. */

/** Realm.VIDEO_CHAT_PROVIDERS this server enables (get_enabled_video_chat_providers): none, Jitsi Meet. */
export const VIDEO_CHAT_PROVIDERS = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
} as const;

/** The authentication backends this server offers an organization (Zulip's AUTH_BACKEND_NAME_MAP names). */
export const AUTHENTICATION_METHOD_NAMES = ['Dev', 'Email'] as const;

/** The organization's methods as the API gives them (`{name: {enabled, available}}`). */
export function authenticationMethodsForApi(
  stored: Record<string, boolean>,
): Record<string, { enabled: boolean; available: boolean }> {
  return Object.fromEntries(
    AUTHENTICATION_METHOD_NAMES.map((name) => [name, { enabled: stored[name] ?? false, available: true }]),
  );
}

/** The enabled flag of each of the server's methods (Realm.authentication_methods_dict). */
export function authenticationMethodsDict(stored: Record<string, boolean>): Record<string, boolean> {
  return Object.fromEntries(AUTHENTICATION_METHOD_NAMES.map((name) => [name, stored[name] ?? false]));
}
