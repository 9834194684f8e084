/**
 * A session waiting for its lost host asks it, now and then, whether it is back: this activity
 * on the host's queue completes as soon as a worker of the host polls again.
 */
export function createProbeHostActivities({ hostId }: { hostId?: string }) {
  return {
    async probeHost(): Promise<string | null> {
      return hostId ?? null;
    },
  };
}
