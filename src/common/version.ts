/** Advertised API feature level (DECISIONS.md #3): the newest level the spec relies on. */
export const API_FEATURE_LEVEL = 406;
/** Reported as zulip_version / service_version. */
export const SERVER_VERSION = '11.0-ts';
export const SERVER_MERGE_BASE = '';
