/**
 * Every variant of ClientEvent (src/events/client-events.ts), produced by the real code path
 * through the HTTP API, matches Zulip's OpenAPI `/events` schema.
 *
 * PRODUCERS is a Record keyed by ClientEventKey (`type/op`, or `type`), so `npm run lint` fails
 * when a variant is added to the union without a producer here (or a producer names a variant
 * the union does not have). Each producer's action runs with an event queue of the observer for
 * two client profiles (every capability / none, so the per-client forms are produced too); every
 * event that arrives is validated on its own, and the producer's variant must be among them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClientEventKey, clientEventKey } from '../../../src/events/client-events';
import { EventsService } from '../../../src/events/events.service';
import { PresenceService } from '../../../src/presence/presence.service';
import { RealmService } from '../../../src/realm/realm.service';
import { animatedImage } from '../../helpers/images';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { FLUTTER_CAPABILITIES } from '../../helpers/verify-action';
import {
  call,
  channelId,
  CORDELIA,
  DESDEMONA,
  groupId,
  HAMLET,
  IAGO,
  ok,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  register,
  userId,
} from './helpers';

const ZOE = 'ZOE@zulip.com';

const PROFILES = {
  modern: {
    apply_markdown: true,
    client_gravatar: true,
    include_subscribers: 'true',
    client_capabilities: {
      ...FLUTTER_CAPABILITIES,
      archived_channels: true,
      user_list_incomplete: true,
      simplified_presence_events: true,
      linkifier_url_template: true,
    },
  },
  legacy: { apply_markdown: false, client_gravatar: false },
};

type Queues = Record<keyof typeof PROFILES, string>;

interface Producer {
  /** Whose queues receive the event (HAMLET unless said). */
  observer?: string;
  action: (queues: Queues) => Promise<unknown>;
}

type Event = Record<string, unknown> & { type: string; id: number };

describe('client events: every variant of the union matches Zulip’s OpenAPI /events schema', () => {
  let t: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-client-events-'));
    t = await startTestApp({
      DATA_DIR: dataDir,
      UPLOADS_DIR: join(dataDir, 'files'),
      EVENTS_HEARTBEAT_MS: '10',
      EVENTS_HEARTBEAT_JITTER_MS: '0',
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Ids made by one producer and used by later ones. */
  const made: Record<string, number> = {};

  const send = (as: string, params: Record<string, unknown>) => ok(t, 'post', '/messages', as, params);
  const verona = () => channelId(t, 'Verona');

  const PRODUCERS: Record<ClientEventKey, Producer> = {
    // ---- realm
    'realm/update': { action: () => ok(t, 'patch', '/realm', DESDEMONA, { name: 'Zulip Events' }) },
    'realm/update_dict': {
      action: () => ok(t, 'patch', '/realm', DESDEMONA, { message_content_edit_limit_seconds: 1200 }),
    },
    'realm_user_settings_defaults/update': {
      action: () => ok(t, 'patch', '/realm/user_settings_defaults', IAGO, { enter_sends: false }),
    },
    // ---- a user's own settings (PATCH /settings); the legacy forms reach the legacy queue only
    'user_settings/update': {
      action: () => ok(t, 'patch', '/settings', HAMLET, { web_font_size_px: 15, default_language: 'de' }),
    },
    update_display_settings: {
      action: () =>
        ok(t, 'patch', '/settings', HAMLET, {
          twenty_four_hour_time: true,
          default_language: 'fr',
          timezone: 'Asia/Kolkata',
        }),
    },
    update_global_notifications: {
      action: () => ok(t, 'patch', '/settings', HAMLET, { enable_sounds: false, notification_sound: 'ding' }),
    },
    custom_profile_fields: {
      action: () => ok(t, 'post', '/realm/profile_fields', IAGO, { name: 'Pet', field_type: 1, hint: 'A pet' }),
    },
    'realm_emoji/update': {
      action: async () => {
        const res = await t
          .http()
          .post('/api/v1/realm/emoji/event_emoji')
          .auth(...(await t.auth(IAGO)))
          .attach('f', await animatedImage('gif'), 'event.gif');
        if (res.status !== 200) throw new Error(`emoji upload: ${res.status} ${JSON.stringify(res.body)}`);
        await ok(t, 'delete', '/realm/emoji/event_emoji', IAGO);
      },
    },
    realm_linkifiers: {
      action: async () => {
        const res = await ok(t, 'post', '/realm/filters', IAGO, {
          pattern: '#(?P<id>[0-9]+)',
          url_template: 'https://trac.example.com/ticket/{id}',
        });
        await ok(t, 'patch', '/realm/linkifiers', IAGO, { ordered_linkifier_ids: [res.id] });
        await ok(t, 'delete', `/realm/filters/${String(res.id)}`, IAGO);
      },
    },
    realm_playgrounds: {
      action: async () => {
        const res = await ok(t, 'post', '/realm/playgrounds', IAGO, {
          name: 'Python playground',
          pygments_language: 'python',
          url_template: 'https://python.example.com?code={code}',
        });
        await ok(t, 'delete', `/realm/playgrounds/${String(res.id)}`, IAGO);
      },
    },
    invites_changed: {
      action: async () => {
        await ok(t, 'post', '/invites', HAMLET, { invitee_emails: 'invited-events@example.org', stream_ids: '[]' });
        const link = (await ok(t, 'post', '/invites/multiuse', IAGO, {})).invite_link as string;
        expect(link).toMatch(/\/join\/[a-z0-9]{24}\/$/);
      },
    },
    // ---- users
    'realm_user/add': {
      action: () =>
        ok(t, 'post', '/users', IAGO, { email: 'events@zulip.com', password: 'secret-123', full_name: 'Eve Ents' }),
    },
    'realm_user/remove': {
      // A restricted guest leaving the channel they shared with most users loses sight of them
      // (and gets them back, as realm_user add, when subscribing again).
      observer: POLONIUS,
      action: async () => {
        const restrict = async (group: string) => {
          await t.dataSource.query(`UPDATE realm SET can_access_all_users_group = $1 WHERE string_id = 'zulip'`, [
            await groupId(t, group),
          ]);
          t.app.get(RealmService).invalidate();
        };
        await restrict('role:members');
        try {
          await ok(t, 'delete', '/users/me/subscriptions', POLONIUS, { subscriptions: ['Verona'] });
          await ok(t, 'post', '/users/me/subscriptions', IAGO, {
            subscriptions: [{ name: 'Verona' }],
            principals: [await userId(t, POLONIUS)],
          });
        } finally {
          await restrict('role:everyone');
        }
      },
    },
    'realm_user/update': {
      action: async () => {
        const othello = await userId(t, OTHELLO);
        await ok(t, 'patch', `/users/${othello}`, IAGO, { full_name: 'Othello, the Moor', role: 300 });
        const pet = ((await ok(t, 'get', '/realm/profile_fields', HAMLET)).custom_fields as Array<{ id: number }>)
          .map((f) => f.id)
          .sort((a, b) => b - a)[0];
        await ok(t, 'patch', `/users/${othello}`, IAGO, { profile_data: [{ id: pet, value: 'a cat' }] });
        // delivery_email, new_email and the avatar (gravatar) of an email change.
        await ok(t, 'patch', `/users/${await userId(t, PROSPERO)}`, IAGO, { new_email: 'prospero2@zulip.com' });
        await ok(t, 'delete', `/users/${await userId(t, CORDELIA)}`, IAGO);
        await ok(t, 'post', `/users/${await userId(t, CORDELIA)}/reactivate`, IAGO);
      },
    },
    'realm_bot/update': {
      observer: IAGO,
      // Deactivating a bot's owner deactivates the bot: its administrators hear of it.
      action: async () => ok(t, 'delete', `/users/${await userId(t, ZOE)}`, DESDEMONA),
    },
    muted_users: {
      action: async () => ok(t, 'post', `/users/me/muted_users/${await userId(t, OTHELLO)}`, HAMLET),
    },
    'navigation_view/add': {
      action: () =>
        ok(t, 'post', '/navigation_views', HAMLET, { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' }),
    },
    'navigation_view/update': {
      action: () => ok(t, 'patch', '/navigation_views/narrow/is/alerted', HAMLET, { is_pinned: false }),
    },
    'navigation_view/remove': { action: () => ok(t, 'delete', '/navigation_views/narrow/is/alerted', HAMLET) },
    // ---- user groups
    'user_group/add': {
      action: async () => {
        const body = await ok(t, 'post', '/user_groups/create', IAGO, {
          name: 'eventful',
          description: 'Events',
          members: [await userId(t, HAMLET)],
        });
        made.group = body.group_id as number;
      },
    },
    'user_group/update': {
      action: async () => {
        await ok(t, 'patch', `/user_groups/${made.group}`, IAGO, { description: 'Eventful' });
        const admins = await groupId(t, 'role:administrators');
        await ok(t, 'patch', `/user_groups/${made.group}`, IAGO, { can_mention_group: { new: admins } });
      },
    },
    'user_group/add_members': {
      action: async () =>
        ok(t, 'post', `/user_groups/${made.group}/members`, IAGO, { add: [await userId(t, OTHELLO)] }),
    },
    'user_group/remove_members': {
      action: async () =>
        ok(t, 'post', `/user_groups/${made.group}/members`, IAGO, { delete: [await userId(t, OTHELLO)] }),
    },
    'user_group/add_subgroups': {
      action: async () =>
        ok(t, 'post', `/user_groups/${made.group}/subgroups`, IAGO, { add: [await groupId(t, 'hamletcharacters')] }),
    },
    'user_group/remove_subgroups': {
      action: async () =>
        ok(t, 'post', `/user_groups/${made.group}/subgroups`, IAGO, {
          delete: [await groupId(t, 'hamletcharacters')],
        }),
    },
    // Clients without include_deactivated_groups forget a deactivated group.
    'user_group/remove': { action: () => ok(t, 'post', `/user_groups/${made.group}/deactivate`, IAGO) },
    // ---- channels and subscriptions
    'stream/create': {
      action: async () => {
        await ok(t, 'post', '/users/me/subscriptions', IAGO, {
          subscriptions: [{ name: 'Eventide', description: 'Events' }],
          principals: [await userId(t, OTHELLO)],
        });
        made.channel = await channelId(t, 'Eventide');
      },
    },
    'stream/update': {
      action: async () => {
        await ok(t, 'patch', `/streams/${made.channel}`, IAGO, { description: 'More **events**' });
        await ok(t, 'patch', `/streams/${made.channel}`, IAGO, {
          is_web_public: false,
          history_public_to_subscribers: true,
        });
      },
    },
    default_streams: {
      action: () => ok(t, 'patch', `/streams/${made.channel}`, IAGO, { is_default_stream: true }),
    },
    'subscription/add': {
      action: () => ok(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'Eventide' }] }),
    },
    'subscription/update': {
      action: () =>
        ok(t, 'post', '/users/me/subscriptions/properties', HAMLET, {
          subscription_data: [
            { stream_id: made.channel, property: 'color', value: '#123456' },
            { stream_id: made.channel, property: 'is_muted', value: true },
            { stream_id: made.channel, property: 'desktop_notifications', value: true },
          ],
        }),
    },
    'subscription/peer_add': {
      action: () => ok(t, 'post', '/users/me/subscriptions', CORDELIA, { subscriptions: [{ name: 'Eventide' }] }),
    },
    'subscription/peer_remove': {
      action: () => ok(t, 'delete', '/users/me/subscriptions', CORDELIA, { subscriptions: ['Eventide'] }),
    },
    'subscription/remove': {
      action: () => ok(t, 'delete', '/users/me/subscriptions', HAMLET, { subscriptions: ['Eventide'] }),
    },
    // Clients without archived_channels see an archived channel disappear.
    'stream/delete': { action: () => ok(t, 'delete', `/streams/${made.channel}`, IAGO) },
    user_topic: {
      action: async () =>
        ok(t, 'post', '/user_topics', HAMLET, { stream_id: await verona(), topic: 'lunch', visibility_policy: 1 }),
    },
    muted_topics: {
      action: async () =>
        ok(t, 'post', '/user_topics', HAMLET, { stream_id: await verona(), topic: '', visibility_policy: 1 }),
    },
    'channel_folder/add': {
      action: async () => {
        const body = await ok(t, 'post', '/channel_folders/create', IAGO, { name: 'Acts', description: 'Drama' });
        made.folder = body.channel_folder_id as number;
      },
    },
    'channel_folder/update': {
      action: () => ok(t, 'patch', `/channel_folders/${made.folder}`, IAGO, { description: 'More **drama**' }),
    },
    'channel_folder/reorder': {
      action: async () => {
        const { channel_folders } = await ok(t, 'get', '/channel_folders', IAGO, { include_archived: true });
        const ids = (channel_folders as Array<{ id: number }>).map((f) => f.id);
        return ok(t, 'patch', '/channel_folders', IAGO, { order: [...ids].reverse() });
      },
    },
    // ---- messages
    message: {
      action: async () => {
        made.message = (
          await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'events', content: 'hi @**King Hamlet**' })
        ).id as number;
        await send(OTHELLO, { type: 'direct', to: [await userId(t, HAMLET)], content: 'psst' });
      },
    },
    update_message: {
      action: async () => {
        await ok(t, 'patch', `/messages/${made.message}`, OTHELLO, { content: 'hello **Hamlet**' });
        await ok(t, 'patch', `/messages/${made.message}`, OTHELLO, { topic: '', propagate_mode: 'change_all' });
      },
    },
    'update_message_flags/add': {
      action: () => ok(t, 'post', '/messages/flags', HAMLET, { messages: [made.message], op: 'add', flag: 'read' }),
    },
    'update_message_flags/remove': {
      action: () => ok(t, 'post', '/messages/flags', HAMLET, { messages: [made.message], op: 'remove', flag: 'read' }),
    },
    'reaction/add': {
      action: () => ok(t, 'post', `/messages/${made.message}/reactions`, OTHELLO, { emoji_name: 'smile' }),
    },
    'reaction/remove': {
      action: () => ok(t, 'delete', `/messages/${made.message}/reactions`, OTHELLO, { emoji_name: 'smile' }),
    },
    submessage: {
      action: async () => {
        // A poll by Othello; Hamlet (who received it) votes.
        const poll = (
          await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'events', content: '/poll Tea?\nyes' })
        ).id as number;
        await ok(t, 'post', '/submessage', HAMLET, {
          message_id: poll,
          msg_type: 'widget',
          content: JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 }),
        });
      },
    },
    delete_message: {
      action: async () => {
        await ok(t, 'delete', `/messages/${made.message}`, IAGO);
        const dm = (await send(OTHELLO, { type: 'direct', to: [await userId(t, HAMLET)], content: 'bye' })).id;
        await ok(t, 'delete', `/messages/${String(dm)}`, OTHELLO);
      },
    },
    'typing/start': {
      action: async () => {
        await ok(t, 'post', '/typing', OTHELLO, { op: 'start', to: [await userId(t, HAMLET)] });
        await ok(t, 'post', '/typing', OTHELLO, {
          type: 'stream',
          op: 'start',
          stream_id: await verona(),
          topic: 'events',
        });
      },
    },
    'typing/stop': {
      action: async () => ok(t, 'post', '/typing', OTHELLO, { op: 'stop', to: [await userId(t, HAMLET)] }),
    },
    'typing_edit_message/start': {
      action: async () => {
        // A channel message and a direct message HAMLET receives, edited by their sender.
        const inChannel = (await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'edit typing', content: 'x' }))
          .id as number;
        const direct = (await send(OTHELLO, { type: 'direct', to: JSON.stringify([HAMLET]), content: 'y' }))
          .id as number;
        await ok(t, 'post', `/messages/${inChannel}/typing`, OTHELLO, { op: 'start' });
        await ok(t, 'post', `/messages/${direct}/typing`, OTHELLO, { op: 'start' });
      },
    },
    'typing_edit_message/stop': {
      action: async () => {
        const direct = (await send(OTHELLO, { type: 'direct', to: JSON.stringify([HAMLET]), content: 'z' }))
          .id as number;
        await ok(t, 'post', `/messages/${direct}/typing`, OTHELLO, { op: 'stop' });
      },
    },
    // ---- uploads
    'attachment/add': {
      action: async () => {
        const res = await t
          .http()
          .post('/api/v1/user_uploads')
          .auth(...(await t.auth(HAMLET)))
          .attach('file', Buffer.from('hello'), { filename: 'events.txt', contentType: 'text/plain' });
        if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
        const attachments = (await ok(t, 'get', '/attachments', HAMLET)).attachments as Array<{ id: number }>;
        made.attachment = attachments[attachments.length - 1].id;
      },
    },
    'attachment/remove': { action: () => ok(t, 'delete', `/attachments/${made.attachment}`, HAMLET) },
    // ---- settings, presence and status
    presence: {
      action: async () => {
        // Othello's first ping creates his presence: everyone hears at once (after the batch).
        await ok(t, 'post', '/users/me/presence', OTHELLO, { status: 'active', ping_only: true });
        await t.app.get(PresenceService).flush();
      },
    },
    user_status: {
      action: () => ok(t, 'post', '/users/me/status', OTHELLO, { status_text: 'out to lunch', emoji_name: 'car' }),
    },
    // ---- alert words, drafts, saved snippets (the user's own queues)
    alert_words: { action: () => ok(t, 'post', '/users/me/alert_words', HAMLET, { alert_words: ['events'] }) },
    'drafts/add': {
      action: async () => {
        const drafts = [
          { type: 'stream', to: [await verona()], topic: 'plans', content: 'A draft', timestamp: 1700000000 },
        ];
        made.draft = ((await ok(t, 'post', '/drafts', HAMLET, { drafts })).ids as number[])[0];
      },
    },
    'drafts/update': {
      action: async () =>
        ok(t, 'patch', `/drafts/${made.draft}`, HAMLET, {
          draft: { type: 'private', to: [await userId(t, OTHELLO)], topic: '', content: 'Now private' },
        }),
    },
    'drafts/remove': { action: () => ok(t, 'delete', `/drafts/${made.draft}`, HAMLET) },
    'saved_snippets/add': {
      action: async () => {
        made.snippet = (await ok(t, 'post', '/saved_snippets', HAMLET, { title: 'Hi', content: 'Hello!' }))
          .saved_snippet_id as number;
      },
    },
    'saved_snippets/update': {
      action: () => ok(t, 'patch', `/saved_snippets/${made.snippet}`, HAMLET, { content: 'Hello again!' }),
    },
    'saved_snippets/remove': { action: () => ok(t, 'delete', `/saved_snippets/${made.snippet}`, HAMLET) },
    // ---- scheduled messages and reminders (only the sender hears)
    'scheduled_messages/add': {
      action: async () => {
        const body = await ok(t, 'post', '/scheduled_messages', HAMLET, {
          type: 'stream',
          to: String(await verona()),
          topic: 'later',
          content: 'See you later',
          scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
        });
        made.scheduled = body.scheduled_message_id as number;
      },
    },
    'scheduled_messages/update': {
      action: () => ok(t, 'patch', `/scheduled_messages/${made.scheduled}`, HAMLET, { content: 'See you soon' }),
    },
    'scheduled_messages/remove': {
      action: () => ok(t, 'delete', `/scheduled_messages/${made.scheduled}`, HAMLET),
    },
    'reminders/add': {
      action: async () => {
        const sent = await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'remind me', content: 'Remember this' });
        const body = await ok(t, 'post', '/reminders', HAMLET, {
          message_id: sent.id,
          scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
        });
        made.reminder = body.reminder_id as number;
      },
    },
    'reminders/remove': { action: () => ok(t, 'delete', `/reminders/${made.reminder}`, HAMLET) },
    // ---- the queue itself: a long-poll with nothing to report ends with a heartbeat.
    heartbeat: {
      action: async (queues) => {
        const res = await call(t, 'get', '/events', HAMLET, { queue_id: queues.modern, last_event_id: -1 });
        if (res.status !== 200) throw new Error(`GET /events: ${res.status} ${JSON.stringify(res.body)}`);
      },
    },
  };

  /** Every event in the queue, heartbeats included, without acknowledging any. */
  async function allEvents(email: string, queueId: string): Promise<Event[]> {
    await t.app.get(EventsService).flush();
    const res = await call(t, 'get', '/events', email, { queue_id: queueId, last_event_id: -1, dont_block: true });
    if (res.status !== 200) throw new Error(`GET /events: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { events: Event[] }).events;
  }

  it.each(Object.entries(PRODUCERS))('%s', async (key, producer) => {
    const observer = producer.observer ?? HAMLET;
    const queues: Queues = {
      modern: (await register(t, observer, PROFILES.modern)).queue_id as string,
      legacy: (await register(t, observer, PROFILES.legacy)).queue_id as string,
    };
    await producer.action(queues);
    const seen = new Set<string>();
    for (const [profile, queueId] of Object.entries(queues)) {
      for (const event of await allEvents(observer, queueId)) {
        seen.add(clientEventKey(event));
        try {
          expectMatchesOpenApi('get', '/events', 200, { result: 'success', msg: '', events: [event] });
        } catch (err) {
          throw new Error(`${profile} queue, ${clientEventKey(event)}: ${(err as Error).message}`);
        }
      }
    }
    expect([...seen]).toContain(key);
  });
});
