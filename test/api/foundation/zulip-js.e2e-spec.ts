/**
 * The acceptance check: a zulip-js client (npm `zulip-js`) logs in with an API key,
 * registers an event queue and long-polls events, against the app listening on a real port.
 *
 * zulip-js is a dev dependency (`npm install --save-dev zulip-js`); without it these tests are
 * skipped with a warning.
 */
import type { AddressInfo } from 'node:net';
import { syntheticEvent } from '../../helpers/events';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { DEMO_PASSWORD } from '../../../src/seed/demo-realm';
import { EventsService } from '../../../src/events/events.service';
import { RealmService } from '../../../src/realm/realm.service';

/* eslint-disable @typescript-eslint/no-explicit-any */
type ZulipInit = (config: { username: string; apiKey?: string; password?: string; realm: string }) => Promise<any>;

function loadZulipJs(): ZulipInit | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('zulip-js') as ZulipInit | { default: ZulipInit };
    return typeof mod === 'function' ? mod : mod.default;
  } catch {
    return undefined;
  }
}

const zulipInit = loadZulipJs();
const describeWithZulipJs = zulipInit ? describe : describe.skip;
if (!zulipInit) {
  console.warn('zulip-js is not installed: skipping the zulip-js client test (npm install --save-dev zulip-js)');
}

const HAMLET = 'hamlet@zulip.com';
const HAMLET_ID = 10;
const TEST_TYPE = 'foundation_test';

describeWithZulipJs('zulip-js client', () => {
  let t: TestApp;
  let realmUrl: string;
  let client: any;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    realmUrl = `http://127.0.0.1:${port}`;
    client = await zulipInit!({ username: HAMLET, apiKey: await t.apiKey(HAMLET), realm: realmUrl });
  });
  afterAll(() => t.close());

  it('logs in with the API key and reads its own profile', async () => {
    const me = await client.users.me.getProfile();
    expect(me).toMatchObject({
      result: 'success',
      msg: '',
      user_id: HAMLET_ID,
      email: HAMLET,
      full_name: 'King Hamlet',
    });
  });

  it('logs in with email and password (POST /fetch_api_key, multipart)', async () => {
    const byPassword = await zulipInit!({ username: HAMLET, password: DEMO_PASSWORD, realm: realmUrl });
    expect(byPassword.config.apiKey).toBe(await t.apiKey(HAMLET));
    const me = await byPassword.users.me.getProfile();
    expect(me.user_id).toBe(HAMLET_ID);
  });

  it('registers a queue and reads it without blocking', async () => {
    const reg = await client.queues.register({ event_types: ['heartbeat', TEST_TYPE] });
    expect(reg).toMatchObject({ result: 'success', last_event_id: -1, zulip_feature_level: 406 });
    expect(reg.queue_id).toEqual(expect.any(String));
    expect(reg).not.toHaveProperty('ignored_parameters_unsupported');
    const res = await client.events.retrieve({ queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
    expect(res).toMatchObject({ result: 'success', events: [] });
  });

  it('long-polls and is woken by an event', async () => {
    const reg = await client.queues.register({ event_types: ['heartbeat', TEST_TYPE] });
    const service = t.app.get(EventsService);
    const entered = new Promise<void>((resolve) => {
      const spy = jest.spyOn(service, 'getEvents').mockImplementation(function (this: EventsService, ...args) {
        spy.mockRestore();
        const result = service.getEvents.apply(this, args);
        resolve();
        return result;
      });
    });
    const poll = client.events.retrieve({ queue_id: reg.queue_id, last_event_id: -1 }) as Promise<any>;
    await entered;
    const realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
    service.sendOnCommit(realm.id, syntheticEvent({ type: TEST_TYPE, hello: 'zulip-js' }), [HAMLET_ID]);
    const res = await poll;
    expect(res).toMatchObject({ result: 'success', events: [{ type: TEST_TYPE, hello: 'zulip-js', id: 0 }] });
    const next = await client.events.retrieve({ queue_id: reg.queue_id, last_event_id: 0, dont_block: true });
    expect(next.events).toEqual([]);
  });

  it('deregisters the queue', async () => {
    const reg = await client.queues.register({ event_types: [TEST_TYPE] });
    const res = await client.queues.deregister({ queue_id: reg.queue_id });
    expect(res).toMatchObject({ result: 'success' });
    const gone = await client.events.retrieve({ queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
    expect(gone).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID', queue_id: reg.queue_id });
  });

  it('gets JSON errors it can read', async () => {
    const bad = await zulipInit!({ username: HAMLET, apiKey: 'A'.repeat(32), realm: realmUrl });
    const res = await bad.users.me.getProfile();
    expect(res).toEqual({ result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });
  });
});
