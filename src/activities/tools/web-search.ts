/**
 * WebSearch, as Claude Code declares it: Claude Code has the Messages API search (its server-side
 * `web_search` tool); so does this, on the small model, and returns the results' links and the
 * model's words. Offered with WebFetch (AGENT_WEB_FETCH=1) to sessions that have network, unless
 * the worker turns it off (AGENT_WEB_SEARCH=0: an endpoint without server-side search).
 */
import { z } from 'zod';
import type { WebSearchAnswer } from '../web/web-access';
import { defineTool, ToolError, type ToolOutput } from './tool';

export const webSearchTool = defineTool({
  name: 'WebSearch',
  description: [
    '- Allows Claude to search the web and use the results to inform responses',
    '- Provides up-to-date information for current events and recent data',
    '- Returns search result information formatted as search result blocks, including links as markdown hyperlinks',
    '',
    'Usage notes:',
    '- Domain filtering is supported to include or block specific websites',
    '- After answering, include a "Sources:" section listing the relevant URLs as markdown hyperlinks',
  ].join('\n'),
  schema: z
    .object({
      query: z.string().min(2).describe('The search query to use'),
      allowed_domains: z.array(z.string()).optional().describe('Only include search results from these domains'),
      blocked_domains: z.array(z.string()).optional().describe('Never include search results from these domains'),
    })
    .strict(),
  needsApproval: true,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  activityTimeoutMs: () => 5 * 60_000,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  offered: (offer) => offer.webSearch,
  subject: (input) => input.query,
  summarize: (input) => `WebSearch ${input.query}`,
  async execute(input, context): Promise<ToolOutput> {
    if (!context.web)
      throw new ToolError(
        'WebSearch is not available here: the worker does not search for sessions (AGENT_WEB_FETCH), or this session has no network.',
      );
    if (input.allowed_domains?.length && input.blocked_domains?.length)
      throw new ToolError('Give allowed_domains or blocked_domains, not both');
    let answer: WebSearchAnswer;
    try {
      answer = await context.web.search(input.query, {
        ...(input.allowed_domains ? { allowed: input.allowed_domains } : {}),
        ...(input.blocked_domains ? { blocked: input.blocked_domains } : {}),
      });
    } catch (error) {
      // The endpoint refused or failed the search (one without server-side search, say): the model may try again or do without.
      if (context.signal.aborted) throw error;
      throw new ToolError(`The web search failed: ${(error as Error).message}`);
    }
    const parts = [`Web search results for query: "${input.query}"`];
    if (answer.links.length) parts.push(`Links: ${JSON.stringify(answer.links)}`);
    else parts.push('No links found.');
    parts.push(...answer.commentary);
    parts.push('REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.');
    return { text: parts.join('\n\n') };
  },
});
