/**
 * WebFetch, as Claude Code declares it: a URL fetched under the session's network rules (the
 * filtering proxy's allowed domains, or none at all), the page made readable Markdown, and the
 * `prompt` applied to it by the small model. Offered only when the worker fetches for sessions
 * (AGENT_WEB_FETCH=1) and the session has network.
 */
import { z } from 'zod';
import { FetchRefused, type FetchedPage } from '../web/fetch-page';
import { htmlToMarkdown } from '../web/html-to-markdown';
import type { WebAccess } from '../web/web-access';
import { defineTool, ToolError, type ToolOutput } from './tool';

/** How much of a page one call reads (Claude Code's cap on what the small model gets). */
export const WEB_FETCH_CHUNK_CHARS = 100_000;

/** The URL to fetch: http(s) only; http is upgraded to https except for addresses and localhost (no certificate there). */
export function fetchUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`Invalid URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolError(`WebFetch fetches http:// and https:// URLs only, not ${url.protocol}`);
  if (url.username || url.password) throw new ToolError('WebFetch does not send credentials in URLs');
  const local = url.hostname === 'localhost' || /^[0-9.]+$/.test(url.hostname) || url.hostname.startsWith('[');
  if (url.protocol === 'http:' && !local) url.protocol = 'https:';
  return url;
}

function webOf(web: WebAccess | undefined): WebAccess {
  if (!web)
    throw new ToolError(
      'WebFetch is not available here: the worker does not fetch for sessions (AGENT_WEB_FETCH), or this session has no network.',
    );
  return web;
}

/** The page as text: HTML as Markdown, other text as it is; binary content is refused. */
function pageText(page: FetchedPage): string {
  const type = page.contentType.split(';')[0]!.trim().toLowerCase();
  const charset = /charset=["']?([\w-]+)/i.exec(page.contentType)?.[1] ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(charset).decode(page.body);
  } catch {
    text = new TextDecoder('utf-8').decode(page.body);
  }
  if (type === 'text/html' || type === 'application/xhtml+xml' || (!type && /^\s*<(!doctype|html)/i.test(text)))
    return htmlToMarkdown(text, page.url);
  if (!type || type.startsWith('text/') || /json|xml|javascript|yaml|markdown/.test(type)) return text;
  throw new ToolError(`${page.url} is ${type} (${page.body.length} bytes), not text WebFetch can read`);
}

function redirectText(page: FetchedPage, prompt: string): string {
  return [
    'REDIRECT DETECTED: The URL redirects to a different host.',
    '',
    `Original URL: ${page.url}`,
    `Redirect URL: ${page.redirect}`,
    `Status: ${page.status} ${page.statusText}`,
    '',
    'To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:',
    `- url: "${page.redirect}"`,
    `- prompt: "${prompt}"`,
  ].join('\n');
}

export const webFetchTool = defineTool({
  name: 'WebFetch',
  description: [
    '- Fetches content from a specified URL and processes it using an AI model',
    '- Takes a URL and a prompt as input',
    '- Fetches the URL content, converts HTML to markdown',
    '- Processes the content with the prompt using a small, fast model',
    "- Returns the model's response about the content",
    '',
    'Usage notes:',
    '- The URL must be a fully-formed valid URL; HTTP URLs are upgraded to HTTPS (not for addresses and localhost)',
    "- Only hosts the session's network rules allow can be fetched (the same as its commands reach)",
    '- The prompt should describe what information you want to extract from the page',
    '- This tool is read-only and does not modify any files',
    `- A page longer than ${WEB_FETCH_CHUNK_CHARS} characters is read in parts: the result says which offset reads on`,
    '- When a URL redirects to a different host, the tool tells you the redirect URL: make a new WebFetch request with it.',
  ].join('\n'),
  schema: z
    .object({
      url: z.string().describe('The URL to fetch content from'),
      prompt: z.string().describe('The prompt to run on the fetched content'),
      offset: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          'Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave.',
        ),
    })
    .strict(),
  needsApproval: true,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  activityTimeoutMs: () => 5 * 60_000,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  offered: (offer) => offer.webFetch,
  // What `WebFetch(domain:example.com)` rules match.
  subject: (input) => {
    try {
      return `domain:${new URL(input.url).hostname}`;
    } catch {
      return '';
    }
  },
  summarize: (input) => `WebFetch ${input.url}`,
  async execute(input, context): Promise<ToolOutput> {
    const url = fetchUrl(input.url);
    const web = webOf(context.web);
    let page: FetchedPage;
    try {
      page = await web.fetch(url, context.signal);
    } catch (error) {
      if (context.signal.aborted) throw error;
      throw new ToolError(error instanceof FetchRefused ? error.message : `${url.href}: ${(error as Error).message}`);
    }
    if (page.redirect) return { text: redirectText(page, input.prompt) };
    const text = pageText(page);
    if (page.status >= 400)
      throw new ToolError(`${page.url} answered ${page.status} ${page.statusText}\n\n${text.slice(0, 2_000)}`);
    const offset = input.offset ?? 0;
    if (offset > 0 && offset >= text.length)
      throw new ToolError(`offset ${offset} is past the end of the page (${text.length} characters)`);
    const chunk = text.slice(offset, offset + WEB_FETCH_CHUNK_CHARS);
    const end = offset + chunk.length;
    const cut = page.cut ? ` (the page was cut at ${page.body.length} bytes)` : '';
    const more =
      end < text.length
        ? `\n\n[Characters ${offset}-${end} of ${text.length}${cut}. To read on, call WebFetch again with offset: ${end}]`
        : cut && `\n\n[${cut.slice(2, -1)}]`;
    const answer = chunk.trim() ? await web.ask(input.prompt, chunk, context.signal) : undefined;
    if (answer !== undefined) return { text: `${answer}${more}` };
    return {
      text: `(The prompt "${input.prompt}" was not applied by a model: the page's content follows.)\n\n${chunk || '(empty page)'}${more}`,
    };
  },
});
