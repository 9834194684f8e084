/**
 * The recorded paths of Claude Code's capabilities: sub-agents (Agent, and Task its old name) as child workflows, one of
 * which asks for approval through its parent, and one whose type asks for tools its parent does
 * not have (`patched('sub-agent-bounds')`). The sub-agents' own histories are recorded too.
 * Claude Code's agent definitions (`patched('sub-agent-definitions')`) and a skill loaded by the
 * Skill tool: `agent-definitions`.
 */
import type { FakeReply, RecordedRequest } from '../../test/support/fake-anthropic';
import { reply, text, toolUse, turnOf } from '../../test/support/fake-anthropic';
import { type Scenario, stateWhere } from './scenario';

const firstText = (request: RecordedRequest) => JSON.stringify(request.body.messages[0]?.content ?? '');

function subAgentsHandler(request: RecordedRequest): FakeReply {
  const task = firstText(request);
  if (task.includes('List the notes'))
    return turnOf(request) === 0
      ? reply([toolUse('Glob', { pattern: 'notes/*' }, 'toolu_glob')])
      : reply([text('notes/a.txt')]);
  if (task.includes('Stamp the notes'))
    return turnOf(request) === 0
      ? reply([toolUse('Bash', { command: 'echo stamped > notes/stamp.txt' }, 'toolu_stamp')])
      : reply([text('stamped')]);
  if (turnOf(request) === 0) {
    return reply([
      toolUse('Task', { description: 'list notes', prompt: 'List the notes' }, 'toolu_list'),
      toolUse(
        'Task',
        { description: 'stamp notes', prompt: 'Stamp the notes', subagent_type: 'stamper' },
        'toolu_stamper',
      ),
    ]);
  }
  return reply([text('Both sub-agents answered.')]);
}

/** A read-only parent delegates to a type listing Bash and Write: the sub-agent has Read only, and its Bash call is refused. */
function boundedSubAgentHandler(request: RecordedRequest): FakeReply {
  if (firstText(request).includes('Fix the bug'))
    return turnOf(request) === 0
      ? reply([toolUse('Bash', { command: 'echo fixed > src/a.ts' }, 'toolu_child_bash')])
      : reply([text('Bash is not mine to use.')]);
  if (turnOf(request) === 0)
    return reply([
      toolUse(
        'Task',
        { description: 'fix the bug', prompt: 'Fix the bug in src/a.ts', subagent_type: 'fixer' },
        'toolu_fixer',
      ),
    ]);
  return reply([text('The sub-agent could not fix it.')]);
}

/** Claude Code 2.1's name: an Agent call (with its model alias) and, beside it, one by the old name Task. */
function agentToolHandler(request: RecordedRequest): FakeReply {
  const task = firstText(request);
  if (task.includes('Count the notes'))
    return turnOf(request) === 0
      ? reply([toolUse('Glob', { pattern: 'notes/*' }, 'toolu_count')])
      : reply([text('one note')]);
  if (task.includes('Name the notes')) return reply([text('a.txt')]);
  if (turnOf(request) === 0)
    return reply([
      toolUse('Agent', { description: 'count notes', prompt: 'Count the notes', model: 'haiku' }, 'toolu_agent'),
      toolUse('Task', { description: 'name notes', prompt: 'Name the notes' }, 'toolu_old_task'),
    ]);
  return reply([text('Both agents answered.')]);
}

/** A skill is loaded, then a general-purpose sub-agent (no type) and a capped type (maxTurns 1, no Bash) run. */
function agentDefinitionsHandler(request: RecordedRequest): FakeReply {
  const task = firstText(request);
  if (task.includes('Count the notes'))
    return turnOf(request) === 0
      ? reply([toolUse('Glob', { pattern: 'notes/*' }, 'toolu_count')])
      : reply([text('one note')]);
  if (task.includes('Glance at the notes'))
    return reply([toolUse('Read', { file_path: 'notes/a.txt' }, 'toolu_glance')]);
  if (turnOf(request) === 0) return reply([toolUse('Skill', { skill: 'notes', args: 'all' }, 'toolu_skill')]);
  if (turnOf(request) === 1)
    return reply([
      toolUse('Task', { description: 'count notes', prompt: 'Count the notes' }, 'toolu_general'),
      toolUse(
        'Task',
        { description: 'glance', prompt: 'Glance at the notes', subagent_type: 'glancer' },
        'toolu_glancer',
      ),
    ]);
  return reply([text('Notes counted.')]);
}

export const capabilityScenarios: Scenario[] = [
  {
    name: 'agent-tool',
    files: { 'notes/a.txt': 'alpha\n' },
    handler: agentToolHandler,
    input: { toolSummaries: false },
    childToolUseIds: ['toolu_agent'],
  },
  {
    name: 'sub-agents',
    files: { 'notes/a.txt': 'alpha\n' },
    handler: subAgentsHandler,
    input: {
      toolSummaries: false,
      permissionMode: 'ask',
      agents: {
        stamper: { description: 'Stamps files with shell commands', prompt: 'You stamp files.', tools: ['Bash'] },
      },
    },
    childToolUseIds: ['toolu_stamper'],
    drive: async (handle) => {
      await stateWhere(handle, (state) =>
        state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_stamp'),
      );
      await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_stamp', decision: 'allow' }] });
    },
  },
  {
    name: 'sub-agent-bounds',
    files: { 'src/a.ts': 'a\n' },
    handler: boundedSubAgentHandler,
    input: {
      toolSummaries: false,
      allowedTools: ['Read', 'Glob', 'Grep', 'Task'],
      agents: { fixer: { description: 'Fixes bugs', prompt: 'You fix bugs.', tools: ['Read', 'Bash', 'Write'] } },
    },
    childToolUseIds: ['toolu_fixer'],
  },
  {
    name: 'agent-definitions',
    files: {
      'notes/a.txt': 'alpha\n',
      '.claude/skills/notes/SKILL.md':
        '---\nname: notes\ndescription: How to handle notes\n---\nCount $ARGUMENTS notes.\n',
    },
    handler: agentDefinitionsHandler,
    input: {
      toolSummaries: false,
      trustRepoHooks: true,
      agents: {
        glancer: {
          description: 'Glances',
          prompt: 'You glance.',
          disallowedTools: ['Bash'],
          maxTurns: 1,
          initialPrompt: 'Be quick.',
          effort: 'low',
        },
      },
    },
    childToolUseIds: ['toolu_general', 'toolu_glancer'],
  },
];
