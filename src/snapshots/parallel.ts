/**
 * Runs `work` on every item, at most `limit` at a time. File writes overlap their I/O this way
 * without opening thousands of files at once (and without hitting EMFILE). After a failure no
 * new item is started, so the error is not followed by more changes on disk.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    try {
      while (next < items.length) await work(items[next++]!);
    } catch (error) {
      next = items.length;
      throw error;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** At most `limit` tasks at a time, however many are started: a tree walk can start thousands. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next waiting one, so a task started in
    // between cannot take it too.
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
