import { EXPLORE_TYPE, GENERAL_PURPOSE_AGENT } from '../../shared/sub-agents';

/**
 * The system prompt's account of the `Agent` tool's agent types: the model picks `subagent_type`
 * from this list (the reference lists them in the tool's description; here the list is the
 * session's, so it goes with the session's prompt and the tool's description stays one text).
 */
export function subAgentsSection(types: readonly { name: string; description: string }[]): string {
  const builtIn = [GENERAL_PURPOSE_AGENT, EXPLORE_TYPE];
  const listed = new Map<string, string>(builtIn.map((type) => [type.name, type.description]));
  const isBuiltIn = (name: string) =>
    builtIn.some((type) => type.name === name && listed.get(name) === type.description);
  // The first definition of a name wins (the input's before the repository's); either may replace a built-in one.
  for (const type of types) if (!listed.has(type.name) || isBuiltIn(type.name)) listed.set(type.name, type.description);
  return [
    '# Sub-agents',
    'The Agent tool starts a sub-agent with a conversation of its own; only its final answer comes back to you. Use it to keep broad searches out of your context, and run independent ones in parallel.',
    `Agent types (subagent_type; without one, ${GENERAL_PURPOSE_AGENT.name}):`,
    ...[...listed].map(([name, description]) => `- ${name}: ${description}`),
  ].join('\n');
}
