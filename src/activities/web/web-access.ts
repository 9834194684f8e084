/**
 * The web as WebFetch and WebSearch reach it for one session, when the worker offers them
 * (AGENT_WEB_FETCH=1): pages fetched under the session's network rules (fetch-page.ts), the
 * small model (AGENT_SMALL_MODEL) applying WebFetch's prompt to a page, and searches made by the
 * Messages API's server-side web search tool on the small model, as Claude Code's WebSearch uses it.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { SandboxRequest } from '../../shared/sandbox';
import { textOf } from '../../shared/conversation';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import type { ModelApi } from '../model/anthropic';
import { type FetchedPage, fetchPage, type WebRoute } from './fetch-page';

/** What the worker gives the web tools (present only with AGENT_WEB_FETCH=1). */
export interface WebTools {
  api: ModelApi;
  smallModel: string;
  sandbox: CommandSandbox;
}

export interface WebSearchAnswer {
  links: { title: string; url: string }[];
  /** The model's words around the results; a search error's code. */
  commentary: string[];
  searches: number;
}

/** What the web tools use in a call. */
export interface WebAccess {
  fetch(url: URL, signal: AbortSignal): Promise<FetchedPage>;
  /** The small model's answer to `prompt` about `content`; undefined when it could not give one. */
  ask(prompt: string, content: string, signal: AbortSignal): Promise<string | undefined>;
  search(query: string, domains: { allowed?: string[]; blocked?: string[] }): Promise<WebSearchAnswer>;
}

/** The session's web, or undefined when its commands have no network here. */
export function webAccessFor(tools: WebTools, session: SandboxRequest | undefined): WebAccess | undefined {
  const network = tools.sandbox.network(session);
  if (network.mode === 'none') return undefined;
  const route: WebRoute =
    network.mode === 'filtered' ? { mode: 'filtered', allowed: network.allowedDomains } : { mode: 'host' };
  return {
    fetch: (url, signal) => fetchPage(url, route, signal),
    ask: (prompt, content, signal) => ask(tools, prompt, content, signal),
    search: (query, domains) => search(tools, query, domains),
  };
}

/** Claude Code's instructions to the small model with a fetched page. */
function askPrompt(prompt: string, content: string): string {
  return [
    'Web page content:',
    '---',
    content,
    '---',
    '',
    prompt,
    '',
    'Provide a concise response based only on the content above. In your response:',
    ' - Enforce a strict 125-character maximum for quotes from any source document. Open Source Software is ok as long as we respect the license.',
    ' - Use quotation marks for exact language from articles; any language outside of the quotation should never be word-for-word the same.',
    ' - You are not a lawyer and never comment on the legality of your own prompts and responses.',
    ' - Never produce or reproduce exact song lyrics.',
  ].join('\n');
}

async function ask(tools: WebTools, prompt: string, content: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    const reply = await tools.api.stream(
      {
        model: tools.smallModel,
        max_tokens: 4_096,
        messages: [{ role: 'user', content: askPrompt(prompt, content) }],
      },
      'WebFetch prompt',
    );
    if (reply.kind !== 'message') return undefined;
    return textOf(reply.message.content, '\n').trim() || undefined;
  } catch (error) {
    // Cancelled: the call ends; any other failure of the small model leaves the page to the model itself.
    if (signal.aborted) throw error;
    return undefined;
  }
}

async function search(
  tools: WebTools,
  query: string,
  domains: { allowed?: string[]; blocked?: string[] },
): Promise<WebSearchAnswer> {
  const tool: Anthropic.WebSearchTool20250305 = {
    type: 'web_search_20250305',
    name: 'web_search',
    max_uses: 8,
    ...(domains.allowed?.length ? { allowed_domains: domains.allowed } : {}),
    ...(domains.blocked?.length ? { blocked_domains: domains.blocked } : {}),
  };
  const reply = await tools.api.stream(
    {
      model: tools.smallModel,
      max_tokens: 4_096,
      system: 'You are an assistant for performing a web search tool use',
      messages: [{ role: 'user', content: `Perform a web search for the query: ${query}` }],
      tools: [tool],
    },
    'WebSearch',
  );
  if (reply.kind !== 'message') throw new Error(`the search could not be made: ${reply.kind}`);
  return answerOf(reply.message.content);
}

/** The links of the search results and the model's words, in order. */
export function answerOf(content: Anthropic.ContentBlock[]): WebSearchAnswer {
  const answer: WebSearchAnswer = { links: [], commentary: [], searches: 0 };
  for (const block of content) {
    if (block.type === 'text' && block.text.trim()) answer.commentary.push(block.text.trim());
    else if (block.type === 'server_tool_use') answer.searches++;
    else if (block.type === 'web_search_tool_result') {
      if (Array.isArray(block.content))
        answer.links.push(...block.content.map((result) => ({ title: result.title, url: result.url })));
      else answer.commentary.push(`Web search error: ${block.content.error_code}`);
    }
  }
  return answer;
}
