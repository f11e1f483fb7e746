/**
 * An in-memory MarkdownContext modelled on Zulip's development/test realm
 * ("Zulip Dev", populate_db --test-suite): the users, channels and user
 * group that Zulip's own Markdown tests refer to.  Used by tests and the
 * benchmark; ids are illustrative (user ids follow the test-suite order).
 */
import type { LinkableChannel, MarkdownContext, MentionGroup, MentionUser, RealmEmoji } from '../types';

export const DEMO_REALM_URL = 'http://zulip.testserver';

export const DEMO_USERS: readonly MentionUser[] = [
  { id: 6, fullName: 'aaron', isActive: true },
  { id: 7, fullName: 'Zoe', isActive: true },
  { id: 8, fullName: "Cordelia, Lear's daughter", isActive: true },
  { id: 9, fullName: 'Desdemona', isActive: true },
  { id: 10, fullName: 'King Hamlet', isActive: true },
  { id: 11, fullName: 'Iago', isActive: true },
  { id: 12, fullName: 'Othello, the Moor of Venice', isActive: true },
  { id: 13, fullName: 'Polonius', isActive: true },
  { id: 14, fullName: 'Prospero from The Tempest', isActive: true },
  { id: 15, fullName: 'शिव', isActive: true },
];

export const DEMO_CHANNELS: readonly LinkableChannel[] = [
  { id: 1, name: 'Verona' },
  { id: 2, name: 'Zulip' },
  { id: 3, name: 'sandbox' },
  { id: 4, name: 'Denmark' },
  { id: 5, name: 'Scotland' },
  { id: 6, name: 'Venice' },
  { id: 7, name: 'Rome' },
  { id: 8, name: 'core team' },
];

export const DEMO_GROUPS: readonly MentionGroup[] = [{ id: 20, name: 'hamletcharacters' }];

export const DEMO_REALM_EMOJI: readonly RealmEmoji[] = [
  { id: '1', name: 'green_tick', sourceUrl: '/user_avatars/2/emoji/images/1.png' },
];

export function demoRealmContext(overrides: Partial<MarkdownContext> = {}): MarkdownContext {
  return {
    realmUrl: DEMO_REALM_URL,
    users: DEMO_USERS,
    channels: DEMO_CHANNELS,
    groups: DEMO_GROUPS,
    realmEmoji: DEMO_REALM_EMOJI,
    ...overrides,
  };
}
