import { randomBytes } from 'node:crypto';
import { Global, Injectable, Logger, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { currentManager, onCommit } from './transaction';

/**
 * What a per-process cache holds, by name. `ids` say which entries went stale (users for `user`,
 * realms for the realm-keyed caches, channels' recipient ids for `channels`: a channel's row, its
 * subscriptions, user topics or topics changed); `null` means "everything" (sent after the channel
 * was down).
 */
export type InvalidationTopic = 'user' | 'realm' | 'muted-users' | 'linkifiers' | 'realm-emoji' | 'channels';
export type InvalidationHandler = (ids: readonly number[] | null) => void;

/** The PostgreSQL notification channel every process LISTENs on. */
export const INVALIDATION_CHANNEL = 'zulip_cache_invalidation';
/** pg_notify payloads must stay under 8000 bytes; larger id lists become "everything". */
const MAX_PAYLOAD = 7000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

interface Message {
  /** Sending process (its own messages were applied locally already). */
  s: string;
  t: InvalidationTopic;
  ids: number[] | null;
}

/**
 * Drops stale rows from every process's in-memory caches when the data behind them changes,
 * whichever process (a server instance or the admin CLI) changed it.
 *
 * The channel is PostgreSQL LISTEN/NOTIFY: the database is the one thing every process shares
 * (Redis is optional, and the CLI runs without it). A change calls {@link publish} after its
 * transaction commits: handlers in this process run at once, and a NOTIFY tells the others.
 * Each process keeps one connection LISTENing (outside the pool); a request never waits on it, so
 * the cached hot paths stay at zero statements.
 *
 * Correctness when the channel is down: caches ask {@link canCache} before storing and compare
 * {@link epoch} around their load, so (1) while the listener is disconnected nothing is cached
 * (each request reads the database), (2) after a reconnect every handler is told "everything",
 * and (3) a row read while an invalidation arrived is not stored (it may predate the change).
 */
@Injectable()
export class CacheInvalidation implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('CacheInvalidation');
  private readonly handlers = new Map<InvalidationTopic, InvalidationHandler[]>();
  private readonly sender = randomBytes(8).toString('hex');
  private readonly pending = new Set<Promise<unknown>>();
  private client: Client | undefined;
  private listening = false;
  private stopped = false;
  private reconnectDelay = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private generation = 0;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Increases on every invalidation received or applied, and whenever the listener drops. */
  get epoch(): number {
    return this.generation;
  }

  /** False while this process could miss another's invalidation: then caches must not store. */
  get canCache(): boolean {
    return this.listening;
  }

  on(topic: InvalidationTopic, handler: InvalidationHandler): void {
    const list = this.handlers.get(topic) ?? [];
    list.push(handler);
    this.handlers.set(topic, list);
  }

  /**
   * Inside a transaction: the NOTIFY is part of it, so PostgreSQL delivers it to the other
   * processes exactly when the change commits (and never for a rollback); this process drops its
   * entries on commit. Outside one: both at once, the NOTIFY awaited.
   */
  async publishOnCommit(topic: InvalidationTopic, ids: readonly number[] | null): Promise<void> {
    const manager = currentManager();
    if (!manager) {
      this.publish(topic, ids);
      await this.flush();
      return;
    }
    await manager.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, this.payload(topic, ids)]);
    onCommit(() => this.apply(topic, ids));
  }

  /**
   * Tells this process now and every other process at once (call after the change committed).
   * Never throws: a failed NOTIFY is logged (the other processes' entries then expire by age).
   */
  publish(topic: InvalidationTopic, ids: readonly number[] | null): void {
    this.apply(topic, ids);
    const sent = this.dataSource
      .query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, this.payload(topic, ids)])
      .catch((err: unknown) => this.logger.error(`NOTIFY failed (${topic}): ${(err as Error).message}`))
      .finally(() => this.pending.delete(sent));
    this.pending.add(sent);
  }

  private payload(topic: InvalidationTopic, ids: readonly number[] | null): string {
    const message: Message = { s: this.sender, t: topic, ids: ids ? [...ids] : null };
    const payload = JSON.stringify(message);
    return payload.length > MAX_PAYLOAD ? JSON.stringify({ ...message, ids: null }) : payload;
  }

  /** Waits for the NOTIFYs sent so far (the CLI exits right after its change). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private apply(topic: InvalidationTopic, ids: readonly number[] | null): void {
    this.generation++;
    for (const handler of this.handlers.get(topic) ?? []) {
      try {
        handler(ids);
      } catch (err) {
        this.logger.error(`invalidation handler (${topic}) failed: ${(err as Error).message}`);
      }
    }
  }

  private applyAll(): void {
    for (const topic of this.handlers.keys()) this.apply(topic, null);
    this.generation++;
  }

  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const options = this.dataSource.options as { url?: string };
    const client = new Client({ connectionString: options.url, application_name: 'zulip-ts-server-invalidation' });
    client.on('error', (err) => this.logger.warn(`listener connection error: ${err.message}`));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.channel !== INVALIDATION_CHANNEL || !msg.payload) return;
      this.received(msg.payload);
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${INVALIDATION_CHANNEL}`);
    } catch (err) {
      this.logger.error(`cannot LISTEN for cache invalidations (caches bypassed): ${(err as Error).message}`);
      await client.end().catch(() => undefined);
      this.lost(client);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    // Anything may have changed while no one listened.
    if (this.reconnectDelay > RECONNECT_MIN_MS) this.applyAll();
    this.listening = true;
    this.reconnectDelay = RECONNECT_MIN_MS;
  }

  private received(payload: string): void {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if (message.s === this.sender) return;
    if (!this.handlers.has(message.t)) {
      this.generation++;
      return;
    }
    const ids = Array.isArray(message.ids) ? message.ids.filter((id) => Number.isInteger(id)) : null;
    this.apply(message.t, ids);
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    const wasListening = this.listening;
    this.listening = false;
    this.generation++;
    if (this.stopped) return;
    if (wasListening) this.logger.warn('lost the cache-invalidation listener; caches bypassed until it is back');
    this.applyAll();
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }

  /** Before the pool closes (onModuleDestroy precedes every shutdown hook): NOTIFYs still go out. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    await this.flush();
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }
}

/** Global: every context's caches subscribe, and every context's changes publish. */
@Global()
@Module({ providers: [CacheInvalidation], exports: [CacheInvalidation] })
export class CacheInvalidationModule {}
