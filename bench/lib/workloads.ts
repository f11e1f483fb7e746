/** The HTTP workloads of the benchmark (bench/run.ts) and the build comparison (bench/compare.ts). */
import { basicAuth } from './http';
import type { LoadSpec } from './loadgen';
import type { Environment } from './setup';

export const HTTP_WORKLOADS = ['send', 'send1000', 'fetch', 'fetch1m', 'hello', 'streams', 'register'] as const;
export type HttpWorkloadName = (typeof HTTP_WORKLOADS)[number];

export interface HttpWorkload {
  name: HttpWorkloadName;
  title: string;
  connections: number;
  product: Omit<LoadSpec, 'connections' | 'seconds'>;
  ceiling?: Omit<LoadSpec, 'connections' | 'seconds'>;
  /** UserMessage rows per request (send workloads), for rows/s. */
  rowsPerRequest?: number;
  /** Targets the report checks (issue 15): ratio to the ceiling at least, p99 and PG CPU at most. */
  targets?: { ratio?: number; p99ms?: number; pgCpuUs?: number };
}

/** The HTTP workloads on the product at `productPort` and the ceiling at `ceilingPort`. */
export function httpWorkloads(env: Environment, productPort: number, ceilingPort: number): HttpWorkload[] {
  const { hamlet, othello, channels } = env.data;
  const p = (path: string) => `http://127.0.0.1:${productPort}${path}`;
  const c = (path: string) => `http://127.0.0.1:${ceilingPort}${path}`;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const hamletAuth = { authorization: basicAuth(hamlet.email, hamlet.key) };
  const othelloAuth = { authorization: basicAuth(othello.email, othello.key) };
  const sendBody = (channelId: number) =>
    new URLSearchParams({
      type: 'stream',
      to: String(channelId),
      topic: 'bench topic',
      content: 'Benchmark message with **some** markdown, a [link](https://example.com) and :smile:',
    }).toString();
  const narrow = encodeURIComponent(JSON.stringify([{ operator: 'channel', operand: channels.fetch.id }]));
  /** A send to `channelId` as hamlet: our POST /messages and the ceiling's /send. */
  const sendSpecs = (channelId: number): Pick<HttpWorkload, 'product' | 'ceiling'> => ({
    product: {
      method: 'POST',
      url: p('/api/v1/messages'),
      headers: { ...hamletAuth, ...form },
      body: sendBody(channelId),
    },
    ceiling: {
      method: 'POST',
      url: c(`/send?channel=${channelId}&sender=${hamlet.id}`),
      headers: form,
      body: sendBody(channelId),
    },
  });
  /** The newest 100 of the fetch channel as hamlet: our GET /messages and the ceiling's /fetch. */
  const fetchSpecs: Pick<HttpWorkload, 'product' | 'ceiling'> = {
    product: {
      method: 'GET',
      url: p(`/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=${narrow}`),
      headers: hamletAuth,
    },
    ceiling: { method: 'GET', url: c(`/fetch?channel=${channels.fetch.id}&user=${hamlet.id}&num=100`) },
  };
  return [
    {
      name: 'send',
      title: `POST /messages, channel of ${channels.c10.subscribers}`,
      connections: 32,
      ...sendSpecs(channels.c10.id),
      rowsPerRequest: channels.c10.subscribers,
      targets: { ratio: 0.55, p99ms: 25 },
    },
    {
      name: 'send1000',
      title: `POST /messages, channel of ${channels.c1000.subscribers}`,
      connections: 8,
      ...sendSpecs(channels.c1000.id),
      rowsPerRequest: channels.c1000.subscribers,
    },
    {
      name: 'fetch',
      title: `GET /messages newest 100 (channel of ${env.data.messagesInFetchChannel} msgs, realm of ${env.data.messagesInRealm})`,
      connections: 8,
      ...fetchSpecs,
    },
    {
      // The same request, named for the realm it needs: the bench builds 1M messages for it.
      name: 'fetch1m',
      title: `GET /messages newest 100, realm of ${env.data.messagesInRealm} msgs (channel of ${env.data.messagesInFetchChannel})`,
      connections: 8,
      ...fetchSpecs,
      targets: { p99ms: 20, pgCpuUs: 1000 },
    },
    {
      name: 'hello',
      title: 'GET /server_settings (ceiling: raw node hello)',
      connections: 32,
      product: { method: 'GET', url: p('/api/v1/server_settings') },
      ceiling: { method: 'GET', url: c('/hello') },
    },
    {
      name: 'streams',
      title: `GET /streams (${env.data.users} users, channels as built)`,
      connections: 4,
      product: { method: 'GET', url: p('/api/v1/streams'), headers: othelloAuth },
    },
    {
      name: 'register',
      title: 'POST /register (full initial state)',
      connections: 1,
      product: { method: 'POST', url: p('/api/v1/register'), headers: { ...othelloAuth, ...form }, body: '' },
    },
  ];
}
