import { randomBytes } from 'node:crypto';
import { EventQueue, MAX_QUEUES_PER_USER, QueueOptions } from './event-queue';

/**
 * The per-process registry of event queues, indexed by queue id and by user. Queues with no
 * connected long-poll for longer than the idle timeout are garbage-collected.
 */
export class EventQueueRegistry {
  private readonly queues = new Map<string, EventQueue>();
  private readonly byUser = new Map<number, Set<EventQueue>>();
  private readonly instance = randomBytes(4).toString('hex');
  private counter = 0;

  constructor(private readonly maxQueuesPerUser = MAX_QUEUES_PER_USER) {}

  /** A new queue; past the per-user cap the user's oldest queues are removed. */
  allocate(options: QueueOptions): EventQueue {
    const id = `${Math.floor(Date.now() / 1000)}:${this.instance}${++this.counter}`;
    const queue = new EventQueue(id, options);
    this.queues.set(id, queue);
    let set = this.byUser.get(options.userId);
    if (!set) this.byUser.set(options.userId, (set = new Set()));
    set.add(queue);
    // A Set iterates in insertion order: the first queues are the oldest.
    for (const old of set) {
      if (set.size <= this.maxQueuesPerUser) break;
      this.delete(old.id);
    }
    return queue;
  }

  get(id: string): EventQueue | undefined {
    return this.queues.get(id);
  }

  delete(id: string): boolean {
    const queue = this.queues.get(id);
    if (!queue) return false;
    queue.close();
    this.queues.delete(id);
    const set = this.byUser.get(queue.options.userId);
    set?.delete(queue);
    if (set && set.size === 0) this.byUser.delete(queue.options.userId);
    return true;
  }

  queuesOfUser(userId: number): Iterable<EventQueue> {
    return this.byUser.get(userId) ?? [];
  }

  get size(): number {
    return this.queues.size;
  }

  /** Removes queues idle (no connected poll, no activity) for longer than `idleMs`. */
  collectGarbage(idleMs: number, now = Date.now()): number {
    let removed = 0;
    for (const [id, queue] of this.queues) {
      if (!queue.connected && now - queue.lastActivity > idleMs) {
        this.delete(id);
        removed++;
      }
    }
    return removed;
  }

  /** Queues with a long-poll parked on them. */
  parked(): EventQueue[] {
    return [...this.queues.values()].filter((q) => q.connected);
  }

  closeAll(): void {
    for (const id of [...this.queues.keys()]) this.delete(id);
  }
}
