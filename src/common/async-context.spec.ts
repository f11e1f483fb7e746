import { ContextSlot } from './async-context';

describe('ContextSlot', () => {
  const a = new ContextSlot<string>();
  const b = new ContextSlot<number>();

  it('is empty outside any run', () => {
    expect(a.getStore()).toBeUndefined();
    expect(b.getStore()).toBeUndefined();
  });

  it('keeps each slot along awaits, timers and promise callbacks, the other slots untouched', async () => {
    await a.run('request', async () => {
      await Promise.resolve();
      expect(a.getStore()).toBe('request');
      expect(b.getStore()).toBeUndefined();
      await b.run(7, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        expect(a.getStore()).toBe('request');
        expect(b.getStore()).toBe(7);
        await Promise.resolve().then(() => {
          expect(a.getStore()).toBe('request');
          expect(b.getStore()).toBe(7);
        });
      });
      // Leaving the inner run restores the outer frame.
      expect(b.getStore()).toBeUndefined();
      expect(a.getStore()).toBe('request');
    });
    expect(a.getStore()).toBeUndefined();
  });

  it('shadows a slot in a nested run and gives it back after', () => {
    a.run('outer', () => {
      a.run('inner', () => expect(a.getStore()).toBe('inner'));
      expect(a.getStore()).toBe('outer');
    });
  });

  it('keeps concurrent flows apart', async () => {
    const seen = await Promise.all(
      [1, 2, 3].map((n) =>
        b.run(n, async () => {
          await new Promise((resolve) => setTimeout(resolve, 4 - n));
          return b.getStore();
        }),
      ),
    );
    expect(seen).toEqual([1, 2, 3]);
  });
});
