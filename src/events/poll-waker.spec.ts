import { PollWaker } from './poll-waker';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('PollWaker', () => {
  it('answers nothing in the turn that woke the polls, then every poll in order', async () => {
    const waker = new PollWaker();
    const order: number[] = [];
    waker.wakeLater([1, 2, 3].map((i) => ({ wake: () => order.push(i) })));
    waker.wakeLater([{ wake: () => order.push(4) }]);
    expect(order).toEqual([]);
    await turn();
    await turn();
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('spreads a large wake over several turns, in order, never one poll per turn', async () => {
    const waker = new PollWaker(1);
    const order: number[] = [];
    const spin = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    waker.wakeLater(
      Array.from({ length: 64 }, (_, i) => ({
        wake: () => {
          spin(0.2);
          order.push(i);
        },
      })),
    );
    let turns = 0;
    while (order.length < 64 && turns < 100) {
      await turn();
      turns++;
    }
    expect(order).toEqual(Array.from({ length: 64 }, (_, i) => i));
    expect(turns).toBeGreaterThan(1);
    expect(turns).toBeLessThan(64);
  });

  it('keeps answering the others when one answer throws', async () => {
    const waker = new PollWaker();
    const answered: number[] = [];
    waker.wakeLater([
      {
        wake: () => {
          throw new Error('closed');
        },
      },
      { wake: () => answered.push(2) },
    ]);
    await turn();
    await turn();
    expect(answered).toEqual([2]);
  });
});
