/**
 * The recorded path of background commands (issue 26): a build started in the background while
 * the model writes a file, its notification with the next request, TaskOutput; a second command
 * stopped with TaskStop.
 */
import { reply, text, toolUse } from '../../test/support/fake-anthropic';
import { backgroundTaskId } from '../../src/shared/background';
import { type Scenario, sequence } from './scenario';

const BUILD = 'toolu_record_background_build';
const SERVER = 'toolu_record_background_server';
const idOf = (toolUseId: string) => backgroundTaskId(toolUseId, () => false);

export const backgroundScenarios: Scenario[] = [
  {
    name: 'background-command',
    files: {},
    handler: sequence([
      () =>
        reply([
          toolUse(
            'Bash',
            { command: 'sleep 1; echo built', description: 'Build the project', run_in_background: true },
            BUILD,
          ),
        ]),
      () => reply([toolUse('Write', { file_path: 'notes.md', content: 'written while the build runs\n' })]),
      () => reply([toolUse('Bash', { command: 'sleep 2', description: 'Wait for the build' })]),
      () => reply([toolUse('TaskOutput', { task_id: idOf(BUILD), block: true, timeout: 20_000 })]),
      () =>
        reply([
          toolUse('Bash', { command: 'sleep 30', description: 'Serve the app', run_in_background: true }, SERVER),
        ]),
      () => reply([toolUse('TaskStop', { task_id: idOf(SERVER) })]),
      () => reply([text('Built, and the server stopped.')]),
    ]),
  },
];
