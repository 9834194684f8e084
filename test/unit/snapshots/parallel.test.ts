import { forEachLimited, Limiter } from '../../../src/snapshots/parallel';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('Limiter runs at most `limit` tasks at once, all of them in the end', async () => {
  const limiter = new Limiter(3);
  let running = 0;
  let most = 0;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      limiter.run(async () => {
        most = Math.max(most, ++running);
        await tick();
        running--;
        return index;
      }),
    ),
  );
  expect(most).toBe(3);
  expect(results).toEqual(Array.from({ length: 20 }, (_, index) => index));
});

test('forEachLimited starts nothing new after a failure', async () => {
  const started: number[] = [];
  const items = Array.from({ length: 10 }, (_, index) => index);
  await expect(
    forEachLimited(items, 2, async (item) => {
      started.push(item);
      await tick();
      if (item === 1) throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  await tick();
  await tick();
  expect(started).toEqual([0, 1, 2]);
});
