/** The recorded paths of plan mode and questions (issue 25): a plan denied then approved into a mode, a question answered. */
import { reply, text, toolUse } from '../../test/support/fake-anthropic';
import { type Scenario, sequence, stateWhere } from './scenario';

const EDIT = { file_path: 'a.txt', old_string: 'one', new_string: 'two' };

export const planScenarios: Scenario[] = [
  {
    name: 'plan-mode',
    files: { 'a.txt': 'one\n' },
    input: { permissionMode: 'auto' },
    handler: sequence([
      () => reply([toolUse('EnterPlanMode', {}, 'toolu_record_enter')]),
      () => reply([toolUse('Read', { file_path: 'a.txt' }), toolUse('Edit', EDIT, 'toolu_record_early_edit')]),
      () => reply([toolUse('ExitPlanMode', { plan: 'Change one to two.' }, 'toolu_record_exit_1')]),
      () => reply([text('Change one to two, nothing else.'), toolUse('ExitPlanMode', {}, 'toolu_record_exit_2')]),
      () => reply([toolUse('Edit', EDIT)]),
      () => reply([text('Changed a.txt.')]),
    ]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.pendingApprovals.some((p) => p.toolUseId === 'toolu_record_exit_1'));
      await handle.executeUpdate('approveTool', {
        args: [{ toolUseId: 'toolu_record_exit_1', decision: 'deny', feedback: 'Say that nothing else changes.' }],
      });
      await stateWhere(handle, (state) => state.pendingApprovals.some((p) => p.toolUseId === 'toolu_record_exit_2'));
      await handle.executeUpdate('approveTool', {
        args: [{ toolUseId: 'toolu_record_exit_2', decision: 'allow', mode: 'bypassPermissions' }],
      });
    },
  },
  {
    name: 'ask-user-question',
    files: {},
    handler: sequence([
      () =>
        reply([
          toolUse(
            'AskUserQuestion',
            {
              questions: [
                {
                  question: 'Which format should the report use?',
                  header: 'Format',
                  options: [
                    { label: 'Markdown', description: 'A page' },
                    { label: 'JSON', description: 'For tools' },
                  ],
                  multiSelect: false,
                },
              ],
            },
            'toolu_record_ask',
          ),
        ]),
      () => reply([text('Markdown it is.')]),
    ]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => (state.pendingQuestions ?? []).length > 0);
      await handle.executeUpdate('answerQuestion', {
        args: [{ toolUseId: 'toolu_record_ask', answers: { 'Which format should the report use?': 'Markdown' } }],
      });
    },
  },
];
