/**
 * Starts things one after another, each registering how to stop it: when a later start fails,
 * everything started so far is stopped (last first) before the failure is thrown. Jest runs no
 * global teardown after a failed global setup, so without this its dev server and PostgreSQL
 * would outlive the run.
 */
export type Stop = () => unknown;

export async function startInOrder<T>(start: (started: (stop: Stop) => void) => Promise<T>): Promise<T> {
  const stops: Stop[] = [];
  try {
    return await start((stop) => stops.push(stop));
  } catch (error) {
    for (const stop of stops.reverse()) {
      // Each stop is tried: one that fails must not leave the others running.
      await Promise.resolve()
        .then(stop)
        .catch((stopError: unknown) => console.error(`[test setup] could not stop one: ${String(stopError)}`));
    }
    throw error;
  }
}
