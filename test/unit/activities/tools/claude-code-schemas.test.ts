/**
 * Our tools accept exactly the input Claude Code declares for them (its published `sdk-tools.d.ts`,
 * from the dev dependency @anthropic-ai/claude-agent-sdk): real models are trained on those tools,
 * so a field they send must never be an InputValidationError here, nor a field they never send be
 * required. The check is at the type level: an SDK update that changes a schema fails
 * `npm run typecheck` (this file is in tsconfig's `include`), naming the tool.
 */
import type * as ClaudeCode from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import type { z } from 'zod';
import { agentTool } from '../../../../src/activities/tools/agent';
import { bashTool } from '../../../../src/activities/tools/bash';
import { editTool } from '../../../../src/activities/tools/edit';
import { grepTool } from '../../../../src/activities/tools/grep';
import { globTool } from '../../../../src/activities/tools/glob';
import { notebookEditTool } from '../../../../src/activities/tools/notebook-edit';
import { readTool } from '../../../../src/activities/tools/read';
import { taskStopTool } from '../../../../src/activities/tools/task-stop';
import { todoWriteTool } from '../../../../src/activities/tools/todo-write';
import { writeTool } from '../../../../src/activities/tools/write';
import { listMcpResourcesTool, readMcpResourceTool } from '../../../../src/activities/tools/mcp-resource-tools';
import { webFetchTool } from '../../../../src/activities/tools/web-fetch';
import { webSearchTool } from '../../../../src/activities/tools/web-search';
import { enterPlanModeTool } from '../../../../src/activities/tools/enter-plan-mode';
import { exitPlanModeTool } from '../../../../src/activities/tools/exit-plan-mode';
import { askUserQuestionTool } from '../../../../src/activities/tools/ask-user-question';

/**
 * Claude Code's types come from JSON Schema: `minItems`/`maxItems` arrays are tuple unions
 * (`[Q] | [Q, Q] | …`), which zod infers as `Q[]`. Both sides become plain arrays and objects
 * (a homomorphic mapped type keeps optional modifiers and index signatures) before comparing.
 * The items of all of a union's tuples are taken together (not tuple by tuple), and object items
 * collapsed into one object (`Pick`): nested tuple unions (AskUserQuestion's options inside its
 * questions) are unions of identical but distinct object types, which would not compare as one.
 */
type Plain<T> = PlainArray<Extract<T, readonly unknown[]>> | PlainOther<Exclude<T, readonly unknown[]>>;
type PlainArray<A extends readonly unknown[]> = [A] extends [never] ? never : Plain<Collapsed<A[number]>>[];
type Collapsed<Item> = [Item] extends [object] ? Pick<Item, keyof Item> : Item;
type PlainOther<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends object
    ? { [Key in keyof T]: Plain<T[Key]> }
    : T;

/** Identical, not merely assignable both ways (`{ a?: string }` and `{}` are that too). */
type Same<Ours, Theirs> =
  (<T>() => T extends Plain<Ours> ? 1 : 2) extends <T>() => T extends Plain<Theirs> ? 1 : 2 ? true : false;

/** What a model may send to one of our tools. */
type InputOf<Tool extends { schema: z.ZodType }> = z.input<Tool['schema']>;

/** One line a tool: a mismatch is a compile error at that line (`Type 'false' is not assignable to type 'true'`). */
const matches = {
  Write: true satisfies Same<InputOf<typeof writeTool>, ClaudeCode.FileWriteInput>,
  Edit: true satisfies Same<InputOf<typeof editTool>, ClaudeCode.FileEditInput>,
  Glob: true satisfies Same<InputOf<typeof globTool>, ClaudeCode.GlobInput>,
  Grep: true satisfies Same<InputOf<typeof grepTool>, ClaudeCode.GrepInput>,
  Bash: true satisfies Same<InputOf<typeof bashTool>, ClaudeCode.BashInput>,
  TodoWrite: true satisfies Same<InputOf<typeof todoWriteTool>, ClaudeCode.TodoWriteInput>,
  Read: true satisfies Same<InputOf<typeof readTool>, ClaudeCode.FileReadInput>,
  NotebookEdit: true satisfies Same<InputOf<typeof notebookEditTool>, ClaudeCode.NotebookEditInput>,
  Agent: true satisfies Same<InputOf<typeof agentTool>, ClaudeCode.AgentInput>,
  ListMcpResourcesTool: true satisfies Same<InputOf<typeof listMcpResourcesTool>, ClaudeCode.ListMcpResourcesInput>,
  ReadMcpResourceTool: true satisfies Same<InputOf<typeof readMcpResourceTool>, ClaudeCode.ReadMcpResourceInput>,
  WebFetch: true satisfies Same<InputOf<typeof webFetchTool>, ClaudeCode.WebFetchInput>,
  WebSearch: true satisfies Same<InputOf<typeof webSearchTool>, ClaudeCode.WebSearchInput>,
  // Offered with background commands (issue 26). Claude Code 2.1's sdk-tools.d.ts has no TaskOutput: its shape {task_id, block, timeout} is checked in task-output.test.ts.
  TaskStop: true satisfies Same<InputOf<typeof taskStopTool>, ClaudeCode.TaskStopInput>,
  EnterPlanMode: true satisfies Same<InputOf<typeof enterPlanModeTool>, ClaudeCode.EnterPlanModeInput>,
  ExitPlanMode: true satisfies Same<InputOf<typeof exitPlanModeTool>, ClaudeCode.ExitPlanModeInput>,
  AskUserQuestion: true satisfies Same<InputOf<typeof askUserQuestionTool>, ClaudeCode.AskUserQuestionInput>,
};

describe("Claude Code's tool input types", () => {
  it('are checked for every tool listed here (the check itself is `npm run typecheck`)', () => {
    expect(Object.keys(matches)).toEqual(
      expect.arrayContaining([
        'Write',
        'Edit',
        'Glob',
        'Grep',
        'Bash',
        'Read',
        'TodoWrite',
        'NotebookEdit',
        'Agent',
        'TaskStop',
        'EnterPlanMode',
        'ExitPlanMode',
        'AskUserQuestion',
      ]),
    );
  });
});
