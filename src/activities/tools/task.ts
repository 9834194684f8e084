import { z } from 'zod';
import { DEFAULT_SUB_AGENT_TOOLS, DEFAULT_SUB_AGENT_TYPE } from '../../shared/sub-agents';
import { defineTool, ToolError } from './tool';

/**
 * Task, as the reference has it: hands a self-contained piece of work to a sub-agent with a
 * conversation of its own, whose final answer comes back as this call's result. The call is not
 * an activity: the workflow runs it as a child `agentWorkflow` (src/workflows/sub-agents.ts), so
 * the sub-agent is as durable as its parent and visible in the Temporal UI as its child.
 */
export const taskTool = defineTool({
  name: 'Task',
  description: [
    'Launches a sub-agent that works on a task on its own and answers with one final message.',
    '- Use it for searches and investigations that would fill your context: "find every caller of X in packages A–F".',
    '- Give it a complete, self-contained prompt: it sees none of this conversation. Say exactly what to report back.',
    '- Several Task calls in one response run in parallel: split broad work into independent parts.',
    `- subagent_type picks the agent (the system prompt lists them); without it, "${DEFAULT_SUB_AGENT_TYPE}" (tools ${DEFAULT_SUB_AGENT_TOOLS.join(', ')}: it changes nothing).`,
    '- Its answer is for you, not the user: tell the user what matters of it.',
  ].join('\n'),
  schema: z
    .object({
      description: z.string().trim().min(1).max(200).describe('A short (3-5 word) description of the task'),
      prompt: z.string().trim().min(1).describe('The task for the agent to perform'),
      subagent_type: z.string().min(1).optional().describe('The type of specialized agent to use for this task'),
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
  // `Agent(Explore)` and `Task(Explore)` rules both match: Claude Code renamed Task to Agent.
  ruleNames: ['Agent', 'Task'],
  ruleSpecifier: (input) => input.subagent_type ?? DEFAULT_SUB_AGENT_TYPE,
  subject: (input) => input.description,
  summarize: (input) => `Task: ${input.description}${input.subagent_type ? ` (${input.subagent_type})` : ''}`,
  async execute() {
    // The workflow never sends a Task call to the tool activity; a worker of an older version would.
    throw new ToolError('Task runs as a child workflow, not as a tool activity.');
  },
});
