import { MockActivityEnvironment } from '@temporalio/testing';
import { createContextActivities } from '../../../../src/activities/context/prepare-context';
import { LocalContentStore } from '../../../../src/store/content-store';
import type { PrepareContextInput } from '../../../../src/shared/activity-io';
import { scratchDir } from '../../../support/paths';

/** A store whose writes wait for the activity's first heartbeat: work that outlasts the heartbeat interval. */
class StoreWaitingForHeartbeat extends LocalContentStore {
  beaten!: () => void;
  private readonly firstBeat = new Promise<void>((resolve) => (this.beaten = resolve));

  override async put(data: string): Promise<string> {
    await this.firstBeat;
    return super.put(data);
  }
}

test('prepareContext heartbeats while it works (its activity has a heartbeat timeout)', async () => {
  const store = new StoreWaitingForHeartbeat(scratchDir('store'));
  const { prepareContext } = createContextActivities({ store });
  const environment = new MockActivityEnvironment();
  let heartbeats = 0;
  environment.on('heartbeat', () => (heartbeats++, store.beaten()));
  const input: PrepareContextInput = {
    conversationRef: null,
    append: [{ role: 'user', kind: 'text', content: { text: 'the task' } }],
    steps: ['snip', 'microcompact'],
    targetTokens: 1000,
    baseTokens: 10,
  };
  const output = await environment.run(prepareContext, input);
  expect(output).toMatchObject({ applied: [], messageCount: 1, estimatedTokens: 12 });
  expect(heartbeats).toBeGreaterThan(0);
});
