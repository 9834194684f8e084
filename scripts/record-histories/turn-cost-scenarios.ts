/** The paths of a turn's cost: tool batches labelled by their own call, and by the small model. */
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import type { Scenario } from './scenario';

export const turnCostScenarios: Scenario[] = [
  {
    // A Read alone labels itself (patched self-labelled-tool-batch); two calls, or a Read that
    // failed, still go to the small model.
    name: 'self-labelled-batch',
    files: { 'a.txt': 'a\n' },
    handler: byTurn([
      reply([toolUse('Read', { file_path: 'a.txt' })]),
      reply([toolUse('Glob', { pattern: '*.txt' }), toolUse('Read', { file_path: 'a.txt' })]),
      reply([toolUse('Read', { file_path: 'missing.txt' })]),
      reply([toolUse('Grep', { pattern: 'a' })]),
      reply([text('Done.')]),
    ]),
  },
];
