import { randomBytes } from 'node:crypto';
import { EventQueue, MAX_QUEUES_PER_USER, QueueOptions } from './event-queue';
import { shareQueueOptions } from './queue-options';

const NONE: readonly EventQueue[] = Object.freeze([]);

/**
 * The per-process registry of event queues, indexed by queue id and by user. Queues with no
 * connected long-poll for longer than the idle timeout are garbage-collected.
 */
export class EventQueueRegistry {
  private readonly queues = new Map<string, EventQueue>();
  /**
   * A user's queues, oldest first. The arrays are never changed in place (a new one replaces
   * the old), so an iteration in progress is never disturbed, and each has exactly its length
   * (one queue: an array of one, far smaller than a Set).
   */
  private readonly byUser = new Map<number, readonly EventQueue[]>();
  private readonly instance = randomBytes(4).toString('hex');
  private counter = 0;

  constructor(private readonly maxQueuesPerUser = MAX_QUEUES_PER_USER) {}

  /** A new queue; past the per-user cap the user's oldest queues are removed. */
  allocate(options: QueueOptions): EventQueue {
    // join() makes one flat string (a template literal makes a chain of concatenations).
    const id = [Math.floor(Date.now() / 1000), ':', this.instance, ++this.counter].join('');
    const queue = new EventQueue(id, shareQueueOptions(options));
    this.queues.set(id, queue);
    const userId = queue.options.userId;
    const before = this.byUser.get(userId);
    const mine = before ? before.concat(queue) : [queue];
    this.byUser.set(userId, mine);
    for (const old of mine.slice(0, Math.max(0, mine.length - this.maxQueuesPerUser))) this.delete(old.id);
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
    const userId = queue.options.userId;
    const mine = this.byUser.get(userId) ?? NONE;
    const at = mine.indexOf(queue);
    if (mine.length === 1 && at === 0) this.byUser.delete(userId);
    else if (at >= 0) this.byUser.set(userId, mine.slice(0, at).concat(mine.slice(at + 1)));
    return true;
  }

  queuesOfUser(userId: number): Iterable<EventQueue> {
    return this.byUser.get(userId) ?? NONE;
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
