/**
 * Compaction: the model summarises the conversation (no tools allowed) and the session goes on
 * from a single message holding the summary and the files it read last. Used before a call when
 * the context nears the window (autocompact) and after "prompt is too long" (reactive).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { CompactInput, CompactOutput } from '../../shared/activity-io';
import { type ConversationMessage, textOf } from '../../shared/conversation';
import { budgetAfterRefusal, summaryInputBudget, summaryMaxTokens } from '../../shared/compaction-fit';
import { ErrorType, promptTooLongNumbers } from '../../shared/errors';
import {
  CHARS_PER_TOKEN,
  COMPACT_REATTACH_FILE_CHARS,
  COMPACT_REATTACH_FILES,
  COMPACT_REATTACH_TOTAL_CHARS,
} from '../../shared/limits';
import { estimateConversationTokens, fitForSummary } from '../context/context-edits';
import { type ContentStore } from '../../store/content-store';
import { appendConversation, appendWithCheckpoint, loadConversation } from '../../store/conversation';
import { readIfExists } from '../tools/file-effects';
import { displayPath, inWorkdir } from '../tools/paths';
import { McpCatalog } from '../mcp/mcp-catalog';
import { TOOLS } from '../tools/registry';
import { type ModelApi, type ModelReply, usageOf } from './anthropic';
import { toApiMessages } from './api-messages';
import { pricedUsage } from './prices';
import { MODEL_PRICES, type PriceTable } from '../../shared/model-prices';

export const SUMMARY_INSTRUCTIONS = `Your task now is to write a detailed summary of the conversation so far, so that the work can continue from the summary alone. Do not call any tools. Think about the whole conversation in order, then write the summary inside <summary></summary> tags with exactly these nine sections:

1. Primary request and intent: everything the user asked for, in detail.
2. Key technical concepts: technologies, frameworks and conventions that matter.
3. Files and code sections: every file read, changed or created, why it matters, and the important code (full snippets where they were changed).
4. Errors and fixes: every error met and how it was fixed, including what the user said about it.
5. Problem solving: problems solved and investigations still going on.
6. All user messages: every message from the user that is not a tool result, verbatim or nearly so.
7. Pending tasks: what was asked for and is not done yet.
8. Current work: exactly what was being worked on just before this summary, with file names and code.
9. Next step: the next step in line with the most recent request, quoting the latest instructions word for word where they matter. Only if there is one.`;

/** Requests a compaction may make, each smaller than the last, before it gives up. */
const COMPACTION_FIT_ATTEMPTS = 4;

export const CONTINUATION_PREAMBLE =
  'This session is being continued from a previous conversation that ran out of context. ' +
  'The summary below covers the earlier portion of the conversation.';

interface CompactDeps {
  store: ContentStore;
  api: ModelApi;
  /** What the summary call costs (the worker's table; the built-in one by default). */
  prices?: PriceTable;
}

/** What the summary request is made of: the conversation, the system prompt, and every tool (none callable). */
interface SummaryRequest {
  messages: ConversationMessage[];
  system: string;
  tools: Anthropic.ToolUnion[];
}

export function createCompactActivities(deps: CompactDeps) {
  return {
    compactConversation: (input: CompactInput): Promise<CompactOutput> => compactConversation(deps, input),
  };
}

async function compactConversation({ store, api, prices }: CompactDeps, input: CompactInput): Promise<CompactOutput> {
  const messages = [...(await loadConversation(store, input.conversationRef)), ...input.append];
  // The previous turn's end, stored as it was before the summary replaces it (a rewind goes back to it).
  const { checkpointRef } = input.turnEnd
    ? await appendWithCheckpoint(store, input.conversationRef, input.append, input.turnEnd)
    : {};
  const system = await store.get(input.systemRef);
  // Every tool stays declared (the history holds tool_use blocks of any of them, the session's
  // MCP tools included), none callable.
  const mcp = await McpCatalog.load(store, input.mcpToolsRef);
  const tools = [...TOOLS.apiDefinitions(), ...(mcp?.apiDefinitions() ?? [])];
  const message = await summarise(store, api, input, { messages, system, tools });
  const summary = summaryOf(message);

  const { attachments, files } = await reattachFiles(
    input.workdir,
    input.recentFiles,
    Math.min(COMPACT_REATTACH_TOTAL_CHARS, input.reattachBudgetChars),
  );
  const continuation = continuationOf(summary, attachments);
  const compacted = [{ role: 'user' as const, kind: 'text' as const, content: { text: continuation } }];
  return {
    conversationRef: await appendConversation(store, null, compacted),
    ...(checkpointRef ? { checkpointRef } : {}),
    estimatedTokens: Math.ceil((system.length + JSON.stringify(tools).length + continuation.length) / CHARS_PER_TOKEN),
    summaryChars: summary.length,
    reattachedFiles: files,
    usage: pricedUsage(usageOf(message.usage), message.model ?? input.model, prices ?? MODEL_PRICES, input.model),
  };
}

/**
 * The model's summary of the conversation. The conversation may itself be too long to summarise
 * (that is why we are here): fit it to the window minus the summary's output, declaring only the
 * tools its tool_use blocks name, and if the endpoint still refuses it (its window may be smaller,
 * the estimate is chars/4), shrink by as much as its error says and ask again: never the same
 * request twice, at most COMPACTION_FIT_ATTEMPTS requests.
 */
async function summarise(
  store: ContentStore,
  api: ModelApi,
  input: CompactInput,
  { messages, system, tools }: SummaryRequest,
): Promise<Anthropic.Message> {
  const declared = toolsNamedIn(tools, await toApiMessages(store, messages));
  const baseTokens = Math.ceil(
    (system.length + JSON.stringify(declared).length + SUMMARY_INSTRUCTIONS.length) / CHARS_PER_TOKEN,
  );
  let window = input.contextWindowTokens;
  let maxTokens = summaryMaxTokens(window, input.maxOutputTokens);
  let budget = summaryInputBudget(window, maxTokens);
  const sent = new Set<string>();
  let reply: ModelReply;
  for (let attempt = 1; ; attempt++) {
    const fitted = fitForSummary(messages, budget, baseTokens);
    const request = await summaryRequest(store, fitted, { model: input.model, maxTokens, system, tools: declared });
    const key = JSON.stringify(request);
    if (sent.has(key)) {
      throw ApplicationFailure.nonRetryable(
        `Compaction request too long and no smaller one can be made (window ${window} tokens)`,
        ErrorType.CompactionFailed,
      );
    }
    sent.add(key);
    reply = await api.stream(request, 'Compaction');
    if (reply.kind !== 'prompt_too_long' || attempt >= COMPACTION_FIT_ATTEMPTS) break;
    const refusal = promptTooLongNumbers(reply.message);
    if (refusal && refusal.maximum < window) {
      window = refusal.maximum;
      maxTokens = summaryMaxTokens(window, input.maxOutputTokens);
    }
    budget = budgetAfterRefusal(budget, estimateConversationTokens(fitted, baseTokens), refusal, maxTokens);
  }
  if (reply.kind !== 'message') {
    throw ApplicationFailure.nonRetryable(`Compaction request too long: ${reply.message}`, ErrorType.CompactionFailed);
  }
  return reply.message;
}

/** The summary request: the fitted conversation with the instructions last, no tool callable. */
async function summaryRequest(
  store: ContentStore,
  fitted: ConversationMessage[],
  {
    model,
    maxTokens,
    system,
    tools,
  }: { model: string; maxTokens: number; system: string; tools: Anthropic.ToolUnion[] },
): Promise<Anthropic.MessageCreateParamsNonStreaming> {
  const apiMessages = await toApiMessages(store, fitted);
  const last = apiMessages[apiMessages.length - 1];
  const instructions: Anthropic.TextBlockParam = { type: 'text', text: SUMMARY_INSTRUCTIONS };
  if (last?.role === 'user') last.content = [...last.content, instructions];
  else apiMessages.push({ role: 'user', content: [instructions] });
  return {
    model,
    max_tokens: maxTokens,
    system: [{ type: 'text', text: system }],
    // A history with tool_use blocks needs their tools declared; none is callable.
    ...(tools.length ? { tools, tool_choice: { type: 'none' as const } } : {}),
    messages: apiMessages,
  };
}

/** The tools the conversation's tool_use blocks name (the others would only take room). */
function toolsNamedIn(tools: Anthropic.ToolUnion[], messages: { content: Anthropic.ContentBlockParam[] }[]) {
  const named = new Set(
    messages.flatMap((message) => message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : []))),
  );
  return tools.filter((tool) => 'name' in tool && named.has(tool.name));
}

/** The summary inside the reply's <summary> tags (or the whole text without them); an empty one is retried. */
function summaryOf(message: Anthropic.Message): string {
  const text = textOf(message.content);
  const summary = text.match(/<summary>([\s\S]*?)<\/summary>/)?.[1]?.trim() ?? text.trim();
  if (!summary) throw ApplicationFailure.retryable('The model returned an empty summary', ErrorType.CompactionFailed);
  return summary;
}

/** The one message the session goes on from. */
function continuationOf(summary: string, attachments: string[]): string {
  return [
    CONTINUATION_PREAMBLE,
    `<summary>\n${summary}\n</summary>`,
    ...(attachments.length ? [`Files you read most recently, as they are now:\n${attachments.join('\n')}`] : []),
    'Continue with the last task you were asked to work on, without asking the user any further questions.',
  ].join('\n\n');
}

/** Up to 5 recently read files (newest first), ~5K tokens each and ~50K in all, read afresh. */
async function reattachFiles(
  workdir: string,
  recentFiles: string[],
  budgetChars: number,
): Promise<{ attachments: string[]; files: string[] }> {
  const attachments: string[] = [];
  const files: string[] = [];
  let total = 0;
  for (const path of [...recentFiles].reverse()) {
    if (files.length >= COMPACT_REATTACH_FILES) break;
    let content: string | null;
    try {
      content = await inWorkdir(workdir, (opened) => readIfExists(opened, path));
    } catch {
      continue;
    }
    if (content === null) continue;
    const cut =
      content.length > COMPACT_REATTACH_FILE_CHARS
        ? `${content.slice(0, COMPACT_REATTACH_FILE_CHARS)}\n… [cut; Read the file for the rest]`
        : content;
    if (total + cut.length > budgetChars) continue;
    total += cut.length;
    const shown = displayPath(workdir, path);
    files.push(shown);
    attachments.push(`<file path="${shown}">\n${cut}\n</file>`);
  }
  return { attachments, files };
}
