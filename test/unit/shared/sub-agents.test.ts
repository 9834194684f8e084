/**
 * Sub-agent types are Claude Code's `AgentDefinition` (the SDK's `sdk.d.ts`): input `agents`
 * accepts every field of it, checked at the type level (an SDK update that adds or changes a
 * field fails `npm run typecheck` here), and the built-in types are Claude Code's.
 */
import type * as ClaudeCode from '@anthropic-ai/claude-agent-sdk';
import type { z } from 'zod';
import {
  agentDefinitionSchema,
  agentsSchema,
  agentTypes,
  EXPLORE_AGENT,
  findAgentType,
} from '../../../src/shared/sub-agents';

/** Identical, not merely assignable both ways. */
type Same<Ours, Theirs> = (<T>() => T extends Ours ? 1 : 2) extends <T>() => T extends Theirs ? 1 : 2 ? true : false;
type Ours = z.input<typeof agentDefinitionSchema>;
type Theirs = ClaudeCode.AgentDefinition;

/**
 * Every field but `mcpServers` is the same type; an inline MCP server's config is accepted as any
 * object (it is not used), so there we check only that all Claude Code accepts, we accept.
 */
const matches = {
  AgentDefinition: true satisfies Same<Omit<Ours, 'mcpServers'>, Omit<Theirs, 'mcpServers'>>,
  mcpServers: true satisfies Theirs['mcpServers'] extends Ours['mcpServers'] ? true : false,
};

describe("Claude Code's AgentDefinition", () => {
  it('is checked at the type level (the check itself is `npm run typecheck`)', () => {
    expect(Object.keys(matches)).toEqual(['AgentDefinition', 'mcpServers']);
  });

  it('is accepted whole in input agents', () => {
    const parsed = agentsSchema.safeParse({
      reviewer: {
        description: 'Reviews diffs',
        prompt: 'You review.',
        tools: ['Read', 'Grep', 'WebFetch', 'Agent(worker)'],
        disallowedTools: ['Bash'],
        model: 'haiku',
        mcpServers: ['github', { local: { command: 'node', args: ['server.js'] } }],
        criticalSystemReminder_EXPERIMENTAL: 'Never push.',
        skills: ['review'],
        initialPrompt: 'Start with git diff.',
        maxTurns: 5,
        autoCompactWindow: 50_000,
        background: false,
        omitClaudeMd: true,
        memory: 'project',
        effort: 'high',
        permissionMode: 'plan',
        observer: 'watcher',
        observerMessage: 'Be brief.',
      },
    });
    expect(parsed.success).toBe(true);
  });

  it('still refuses what is not in it, and bad values', () => {
    expect(agentDefinitionSchema.safeParse({ description: 'd', prompt: 'p', colour: 'red' }).success).toBe(false);
    expect(agentDefinitionSchema.safeParse({ description: 'd', prompt: 'p', maxTurns: 0 }).success).toBe(false);
    expect(agentDefinitionSchema.safeParse({ description: 'd', prompt: 'p', permissionMode: 'ask' }).success).toBe(
      false,
    );
  });
});

describe('built-in types', () => {
  it("are Claude Code's general-purpose and Explore, and `explore` names Explore", () => {
    const types = agentTypes(undefined, [], { claudeCode: true });
    expect(types.map((type) => type.name)).toEqual(['general-purpose', 'Explore']);
    expect(findAgentType(types, 'explore')?.name).toBe('Explore');
    expect(findAgentType(types, 'Explore')?.disallowedTools).toEqual(
      expect.arrayContaining(['Task', 'Agent', 'Edit', 'Write', 'NotebookEdit']),
    );
    expect(findAgentType(types, 'general-purpose')?.tools).toBeUndefined();
  });

  it('an input type named explore wins over the alias', () => {
    const types = agentTypes({ explore: { description: 'mine', prompt: 'p' } }, [], { claudeCode: true });
    expect(findAgentType(types, 'explore')?.source).toBe('input');
  });

  it('sessions started before keep the old explore', () => {
    expect(agentTypes(undefined)).toEqual([EXPLORE_AGENT]);
  });
});
