import type { CloseSessionInput } from '../../shared/activity-io';
import type { EffectJournal } from '../store/effect-journal';

export function createCloseSessionActivities({ journal }: { journal: EffectJournal }) {
  return {
    /**
     * The session ended: no tool call of it can be retried any more, so its edit journal goes,
     * with any temporary file a crash mid-write left in the repository.
     */
    async closeSession(input: CloseSessionInput): Promise<void> {
      await journal.close(input.sessionId);
    },
  };
}
