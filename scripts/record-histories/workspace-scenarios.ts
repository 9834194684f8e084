/**
 * The recorded paths of durable workspaces: rewinds (refused, forced, conversation only, to the
 * start keeping the files, across continue-as-new, of a running call, with the read-state put
 * back) and forks (with and without the read-state).
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ForkPoint } from '../../src/shared/contract';
import { reply, text, toolUse, type FakeReply } from '../../test/support/fake-anthropic';
import { makeRepo } from '../../test/support/harness';
import { type Scenario, sequence, stateWhere } from './scenario';

let releaseHeld: () => void = () => undefined;

export const workspaceScenarios: Scenario[] = [
  {
    // Two runs (continue-as-new after two turns); the rewinds reach back into the first.
    name: 'rewind',
    files: { 'notes.txt': 'one\n' },
    input: { interactive: true, continueAsNewAfterTurns: 2 },
    handler: sequence([
      () => reply([toolUse('Write', { file_path: 'notes.txt', content: 'two\n' })]),
      () => reply([toolUse('Bash', { command: 'echo x > extra.txt' })]),
      () => reply([text('Done.')]),
      () => reply([text('Back at turn 1.')]),
      () => reply([text('Again, files as they are.')]),
    ]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 3);
      const { workdir } = await handle.query<{ workdir: string }>('state');
      writeFileSync(join(workdir, 'theirs.txt'), 'a person wrote this\n');
      await handle.executeUpdate('rewind', { args: [{ turn: 1 }] }).catch(() => undefined);
      await handle.executeUpdate('rewind', { args: [{ turn: 1, force: true }] });
      await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
      await handle.executeUpdate('rewind', { args: [{ turn: 1, files: false }] });
      await stateWhere(
        handle,
        (state) =>
          state.status === 'waiting_input' &&
          state.turn === 2 &&
          state.transitions.filter((name) => name === 'rewind').length === 2,
      );
      await handle.signal('end');
    },
  },
  {
    // A rewind to turn 0 that keeps the files: the session's changes still count from its start (patched('session-start-snapshot')).
    name: 'rewind-to-start',
    files: { 'notes.txt': 'one\n' },
    input: { interactive: true },
    handler: sequence([
      () => reply([toolUse('Write', { file_path: 'a.txt', content: 'a\n' })]),
      () => reply([text('A written.')]),
      () => reply([toolUse('Write', { file_path: 'b.txt', content: 'b\n' })]),
      () => reply([text('B written.')]),
    ]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
      await handle.executeUpdate('rewind', { args: [{ turn: 0, files: false }] });
      await stateWhere(
        handle,
        (state) => state.status === 'waiting_input' && state.transitions.includes('rewind') && state.turn === 2,
      );
      await handle.signal('end');
    },
  },
  {
    name: 'rewind-running',
    files: {},
    handler: sequence([
      () => reply([toolUse('Bash', { command: 'echo a > a.txt' })]),
      () => ({
        kind: 'hold',
        release: new Promise<FakeReply>((resolve) => (releaseHeld = () => resolve(reply([text('(stale)')])))),
      }),
      () => reply([text('Done another way.')]),
    ]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.status === 'running_model' && state.turn === 2);
      await handle.executeUpdate('rewind', { args: [{ turn: 1 }] });
      releaseHeld();
    },
  },
  {
    // The recorded session is the fork; its original runs first, on the same worker.
    name: 'fork',
    files: { 'a.txt': 'a\n' },
    handler: sequence([
      () => reply([toolUse('Write', { file_path: 'a.txt', content: 'b\n' })]),
      () => reply([text('Original done.')]),
      () => reply([toolUse('Write', { file_path: 'c.txt', content: 'c\n' })]),
      () => reply([text('Fork done.')]),
    ]),
    prepareInput: async (harness) => {
      const original = await harness.start({
        prompt: 'Scenario fork (original)',
        workdir: makeRepo({ 'a.txt': 'a\n' }),
      });
      await original.result();
      const { model, ...point } = await original.query<ForkPoint, [{ turn: number }]>('checkpoint', { turn: 1 });
      return {
        workdir: join(mkdtempSync(join(tmpdir(), 'fork-')), 'copy'),
        model,
        fork: { workflowId: original.workflowId, ...point },
      };
    },
  },
  {
    // Edits of files read before the turn rewound to, with the files put back and without (patched('read-state-in-checkpoints')).
    name: 'read-state-rewind',
    files: { 'a.txt': 'one\n', 'b.txt': 'two\n' },
    input: { interactive: true },
    handler: sequence([
      () => reply([toolUse('Read', { file_path: 'a.txt' }), toolUse('Read', { file_path: 'b.txt' })]),
      () => reply([toolUse('Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'uno' })]),
      () => reply([text('Done.')]),
      () => reply([toolUse('Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'eins' })]),
      () => reply([text('Edited again.')]),
      () => reply([toolUse('Edit', { file_path: 'b.txt', old_string: 'two', new_string: 'zwei' })]),
      () => reply([text('Edited with the files kept.')]),
    ]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 3);
      await handle.executeUpdate('rewind', { args: [{ turn: 1 }] });
      await stateWhere(
        handle,
        (state) => state.status === 'waiting_input' && state.turn === 3 && state.transitions.includes('rewind'),
      );
      await handle.executeUpdate('rewind', { args: [{ turn: 1, files: false }] });
      await stateWhere(
        handle,
        (state) =>
          state.status === 'waiting_input' &&
          state.turn === 3 &&
          state.transitions.filter((name) => name === 'rewind').length === 2,
      );
      await handle.signal('end');
    },
  },
  {
    // A fork that starts with what its original had read: its Edit of a file read there works.
    name: 'read-state-fork',
    files: { 'a.txt': 'a\n' },
    handler: sequence([
      () => reply([toolUse('Read', { file_path: 'a.txt' })]),
      () => reply([toolUse('Write', { file_path: 'b.txt', content: 'b\n' })]),
      () => reply([text('Original done.')]),
      () => reply([toolUse('Edit', { file_path: 'a.txt', old_string: 'a', new_string: 'A' })]),
      () => reply([text('Fork done.')]),
    ]),
    prepareInput: async (harness) => {
      const original = await harness.start({
        prompt: 'Scenario read-state-fork (original)',
        workdir: makeRepo({ 'a.txt': 'a\n' }),
      });
      await original.result();
      const { model, ...point } = await original.query<ForkPoint, [{ turn: number }]>('checkpoint', { turn: 1 });
      return {
        workdir: join(mkdtempSync(join(tmpdir(), 'fork-')), 'copy'),
        model,
        fork: { workflowId: original.workflowId, ...point },
      };
    },
  },
];
