import { z } from 'zod';
import { GENERAL_PURPOSE_TYPE } from '../../shared/sub-agents';
import { defineTool, ToolError } from './tool';

/**
 * Agent (Claude Code's `Task` until 2.1.63; calls named `Task` still run it): hands a
 * self-contained piece of work to a sub-agent with a conversation of its own, whose final answer
 * comes back as this call's result. The call is not an activity: the workflow runs it as a child
 * `agentWorkflow` (src/workflows/turn/sub-agents.ts), so the sub-agent is as durable as its
 * parent and visible in the Temporal UI as its child.
 *
 * Claude Code's input, field for field. `model` picks the sub-agent's model over its type's;
 * `name`, `mode` (deprecated there: a sub-agent never gets a looser mode than its parent),
 * `team_name`, `effort` and `run_in_background` are accepted and ignored: a sub-agent runs in the
 * foreground, and its answer is this call's result. `isolation: "worktree"` runs it in a worktree of
 * its own, merged back when it ends (issue 27, src/workflows/turn/worktrees.ts); `"remote"` is refused.
 */
export const agentTool = defineTool({
  name: 'Agent',
  description: [
    'Launches a sub-agent that works on a task on its own and answers with one final message.',
    '- Use it for searches and investigations that would fill your context: "find every caller of X in packages A–F".',
    '- Give it a complete, self-contained prompt: it sees none of this conversation. Say exactly what to report back.',
    '- Several Agent calls in one response run in parallel: split broad work into independent parts.',
    `- subagent_type picks the agent (the system prompt lists them); without it, "${GENERAL_PURPOSE_TYPE}" (all your tools but this one). "Explore" only reads.`,
    '- model ("sonnet", "opus", "haiku", "fable") overrides the agent type\'s model; omit it to keep the type\'s (or yours).',
    "- Sub-agents run in the foreground here: you get the answer as this call's result (run_in_background is ignored).",
    '- isolation: "worktree" gives a sub-agent that changes files a copy of your files of its own; its changes are merged into yours when it ends, in the order of your calls, and the result lists merged files and conflicts. Use it for writing work split over several sub-agents at once (disjoint files merge cleanly).',
    '- Its answer is for you, not the user: tell the user what matters of it.',
  ].join('\n'),
  schema: z
    .object({
      description: z.string().trim().min(1).max(200).describe('A short (3-5 word) description of the task'),
      prompt: z.string().trim().min(1).describe('The task for the agent to perform'),
      subagent_type: z.string().min(1).optional().describe('The type of specialized agent to use for this task'),
      model: z
        .enum(['sonnet', 'opus', 'haiku', 'fable'])
        .optional()
        .describe("Optional model override for this agent; takes precedence over the agent type's model"),
      effort: z
        .enum(['low', 'medium', 'high', 'xhigh', 'max'])
        .optional()
        .describe('Reasoning effort for this agent (accepted; not used here)'),
      run_in_background: z
        .boolean()
        .optional()
        .describe('Ignored here: sub-agents run in the foreground and their answer is the result'),
      name: z.string().optional().describe('Name for the spawned agent (accepted; not used here)'),
      team_name: z.string().optional().describe('Deprecated; ignored'),
      mode: z
        .enum(['acceptEdits', 'auto', 'bypassPermissions', 'default', 'dontAsk', 'plan'])
        .optional()
        .describe("Deprecated; ignored: sub-agents keep the parent session's permission mode"),
      isolation: z
        .enum(['worktree', 'remote'])
        .optional()
        .describe(
          'Isolation mode. "worktree": the agent works on its own copy of your files and may change them; what it changed is merged into your workdir when it ends (conflicting lines are reported, yours kept). "remote" is not available here.',
        ),
    })
    .strict(),
  needsApproval: false,
  // Sub-agents run side by side (at most input maxParallelAgents at a time).
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  // A sub-agent given Write, Edit or Bash changes files: the turn ends with a snapshot.
  changesFiles: true,
  runsAsSubAgent: true,
  // `Agent(Explore)` rules match it by its type (`Task(…)` too: the plan lists the tool's other names).
  ruleSpecifier: (input) => input.subagent_type ?? GENERAL_PURPOSE_TYPE,
  refusal: (input) =>
    input.isolation === 'remote'
      ? 'isolation "remote" is not available here: use isolation "worktree" (a copy of your files, merged back), or none.'
      : undefined,
  subject: (input) => input.description,
  summarize: (input) => `Agent: ${input.description}${input.subagent_type ? ` (${input.subagent_type})` : ''}`,
  async execute() {
    // The workflow never sends an Agent call to the tool activity; a worker of an older version would.
    throw new ToolError('Agent runs as a child workflow, not as a tool activity.');
  },
});
