import { MockActivityEnvironment } from '@temporalio/testing';
import { createContextActivities } from '../../../../src/activities/context/prepare-context';
import { LocalContentStore } from '../../../../src/activities/store/content-store';
import type { PrepareContextInput } from '../../../../src/shared/activity-io';
import { scratchDir } from '../../../support/paths';

test('prepareContext heartbeats while it works (its activity has a heartbeat timeout)', async () => {
  const { prepareContext } = createContextActivities({ store: new LocalContentStore(scratchDir('store')) });
  const environment = new MockActivityEnvironment();
  let heartbeats = 0;
  environment.on('heartbeat', () => heartbeats++);
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
