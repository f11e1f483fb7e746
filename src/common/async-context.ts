import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * State that follows an asynchronous flow (a request's memory, the current unit of work, an
 * after-commit handler's mark), all kept in one AsyncLocalStorage.
 *
 * Why one: on Node 20 every AsyncLocalStorage that has been run adds its own work to the creation
 * of every promise in the process (a promise hook copies each instance's store to the new promise),
 * and a request creates hundreds of promises. Three instances cost three copies per promise; slots
 * of one frame cost one (issue 15: about 65 µs of Node CPU per POST /messages went to those hooks).
 *
 * A frame is a small array, one element per slot, never changed once entered: {@link ContextSlot.run}
 * enters a copy of the current frame with its own slot set, so the other slots keep their values.
 */
type Frame = readonly unknown[];

const storage = new AsyncLocalStorage<Frame>();
let slotCount = 0;

/** One value kept along an asynchronous flow, with AsyncLocalStorage's `run`/`getStore` meaning. */
export class ContextSlot<T> {
  private readonly index = slotCount++;

  /** Runs `fn` with this slot set to `value` (other slots as they are), for everything it starts. */
  run<R>(value: T, fn: () => R): R {
    const outer = storage.getStore();
    const frame: unknown[] = outer === undefined ? new Array<unknown>(slotCount).fill(undefined) : outer.slice();
    frame[this.index] = value;
    return storage.run(frame, fn);
  }

  /** The value set by the innermost `run` of this slot around the current code, if any. */
  getStore(): T | undefined {
    const frame = storage.getStore();
    return frame === undefined ? undefined : (frame[this.index] as T | undefined);
  }
}
