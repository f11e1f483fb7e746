/**
 * Delivery of scheduled messages by the background poller (JOBS_WORKERS on): within 5 s of the
 * scheduled time on the real clock, after a restart between scheduling and delivery, and exactly
 * once when two app instances share the database.
 */
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../../src/bootstrap';
import { loadConfig } from '../../../src/common/config/config';
import { Clock } from '../../../src/messaging/clock';
import { RealmService } from '../../../src/realm/realm.service';
import { ScheduledDeliveryService } from '../../../src/scheduled-messages/scheduled-delivery.service';
import { UsersService } from '../../../src/users/users.service';
import { encodeParams } from '../../helpers/api';
import { waitFor } from '../../helpers/jobs';
import { cloneTemplateDatabase, TEST_SECRET } from '../../helpers/test-db';

const HAMLET = 'hamlet@zulip.com';

interface Instance {
  app: INestApplication;
  ds: DataSource;
  post(path: string, params: Record<string, unknown>): Promise<request.Response>;
}

async function start(url: string, env: Record<string, string>): Promise<Instance> {
  const config = loadConfig({
    SERVER_MODE: 'development',
    SECRET_KEY: TEST_SECRET,
    LOG_LEVEL: 'error',
    EXTERNAL_HOST: 'zulip.testserver',
    RATE_LIMIT: 'off',
    JOBS_POLL_INTERVAL_MS: '100',
    ...env,
  });
  const app = await createApp(config, url);
  const realm = (await app.get(RealmService).findByStringId('zulip'))!;
  const users = app.get(UsersService);
  const key = users.apiKeyOf((await users.findByEmailInRealm(realm.id, HAMLET))!);
  return {
    app,
    ds: app.get(DataSource),
    post: (path, params) =>
      request(app.getHttpServer()).post(`/api/v1${path}`).auth(HAMLET, key).type('form').send(encodeParams(params)),
  };
}

describe('scheduled message delivery in the background', () => {
  jest.setTimeout(90_000);
  let db: { url: string; drop: () => Promise<void> };
  const running: Instance[] = [];
  let verona: number;

  beforeAll(async () => {
    db = await cloneTemplateDatabase();
  });
  afterEach(async () => {
    for (const i of running.splice(0)) await i.app.close();
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function launch(env: Record<string, string>): Promise<Instance> {
    const instance = await start(db.url, env);
    running.push(instance);
    if (!verona) {
      verona = (await instance.ds.query<Array<{ id: number }>>(`SELECT id FROM stream WHERE name = 'Verona'`))[0].id;
    }
    return instance;
  }

  async function scheduleOn(i: Instance, content: string, at: number): Promise<number> {
    const res = await i.post('/scheduled_messages', {
      type: 'stream',
      to: String(verona),
      topic: 'background',
      content,
      scheduled_delivery_timestamp: at,
    });
    if (res.status !== 200) throw new Error(`schedule: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { scheduled_message_id: number }).scheduled_message_id;
  }

  const delivered = async (ds: DataSource, id: number) =>
    (
      await ds.query<Array<{ delivered: boolean; date_sent: Date | null }>>(
        `SELECT s.delivered, m.date_sent FROM scheduled_message s LEFT JOIN message m ON m.id = s.delivered_message_id
          WHERE s.id = $1`,
        [id],
      )
    )[0];
  const copies = async (ds: DataSource, content: string) =>
    Number(
      (await ds.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM message WHERE content = $1`, [content]))[0].n,
    );

  it('delivers within 5 s of the scheduled time', async () => {
    const a = await launch({ JOBS_WORKERS: 'on' });
    const at = Math.floor(Date.now() / 1000) + 2;
    const id = await scheduleOn(a, 'On time', at);
    const row = await waitFor(async () => {
      const r = await delivered(a.ds, id);
      return r.delivered ? r : null;
    }, 15_000);
    const lateMs = row.date_sent!.getTime() - at * 1000;
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(lateMs).toBeLessThan(5000);
    expect(await copies(a.ds, 'On time')).toBe(1);
  });

  it('survives a restart between scheduling and delivery', async () => {
    const a = await launch({ JOBS_WORKERS: 'off' });
    const at = Math.floor(Date.now() / 1000) + 3;
    const id = await scheduleOn(a, 'After a restart', at);
    await a.app.close();
    running.splice(running.indexOf(a), 1);
    expect((await delivered((await launch({ JOBS_WORKERS: 'off' })).ds, id)).delivered).toBe(false);
    await running.pop()!.app.close();

    const b = await launch({ JOBS_WORKERS: 'on' });
    await waitFor(async () => (await delivered(b.ds, id)).delivered, 20_000);
    expect(await copies(b.ds, 'After a restart')).toBe(1);
  });

  it('two instances on one database deliver each message exactly once', async () => {
    const a = await launch({ JOBS_WORKERS: 'off' });
    const b = await launch({ JOBS_WORKERS: 'off' });
    const at = Math.floor(Date.now() / 1000) + 600;
    const ids: number[] = [];
    for (let n = 0; n < 12; n++) ids.push(await scheduleOn(n % 2 ? a : b, `Once ${n}`, at));
    // Both clocks past the time; both instances deliver at the same moment, twice each.
    for (const i of [a, b]) i.app.get(Clock).advance(601_000);
    const counts = await Promise.all([a, b, a, b].map((i) => i.app.get(ScheduledDeliveryService).deliverDue()));
    expect(counts.reduce((x, y) => x + y, 0)).toBe(12);
    for (let n = 0; n < 12; n++) expect(await copies(a.ds, `Once ${n}`)).toBe(1);
    for (const id of ids) expect((await delivered(a.ds, id)).delivered).toBe(true);
  });

  it('two polling instances: each message once', async () => {
    const a = await launch({ JOBS_WORKERS: 'on', JOBS_POLL_INTERVAL_MS: '50' });
    const b = await launch({ JOBS_WORKERS: 'on', JOBS_POLL_INTERVAL_MS: '50' });
    // Far enough ahead that a loaded machine still schedules all ten in the future; then both
    // instances' clocks move past it and their pollers race for the rows.
    const at = Math.floor(Date.now() / 1000) + 600;
    const ids: number[] = [];
    for (let n = 0; n < 10; n++) ids.push(await scheduleOn(n % 2 ? a : b, `Polled ${n}`, at));
    for (const i of [a, b]) i.app.get(Clock).advance(601_000);
    await waitFor(async () => {
      for (const id of ids) if (!(await delivered(a.ds, id)).delivered) return false;
      return true;
    }, 20_000);
    for (let n = 0; n < 10; n++) expect(await copies(b.ds, `Polled ${n}`)).toBe(1);
  });
});
