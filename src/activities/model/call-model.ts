import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CallModelInput, CallModelOutcome } from '../../shared/activity-io';
import type { SandboxRequest } from '../../shared/sandbox';
import { type ConversationMessage, textOf } from '../../shared/conversation';
import { ErrorType } from '../../shared/errors';
import { type ContentStore, putJson } from '../../store/content-store';
import { appendWithCheckpoint, ConversationCache, loadConversation } from '../../store/conversation';
import { storeTranscriptNode } from '../../store/transcript-chain';
import { McpCatalog } from '../mcp/mcp-catalog';
import { TOOLS, type ToolRegistry } from '../tools/registry';
import type { LiveChannel } from '../../live/live-channel';
import { LivePublisher } from '../../live/live-publisher';
import { inSpan } from '../../telemetry/spans';
import { type ModelApi, type ModelReply, type RateLimitedReply, usageOf } from './anthropic';
import { toApiMessages, withCacheBreakpoint } from './api-messages';
import { pricedUsage } from './prices';
import { MODEL_PRICES, type PriceTable } from '../../shared/model-prices';
import { planStructuredOutput, structuredOutputDefinition } from './structured-output';
import { STRUCTURED_OUTPUT_TOOL } from '../../shared/structured-output';

export interface ModelActivityDependencies {
  store: ContentStore;
  api: ModelApi;
  tools?: ToolRegistry;
  /** Where the reply streams to the session's watchers (none: nobody can watch live). */
  live?: LiveChannel;
  /** The conversations of the worker's sessions, so a turn does not read and parse its whole chain again. */
  conversations?: ConversationCache;
  /** The web tools the worker offers (AGENT_WEB_FETCH, AGENT_WEB_SEARCH), to sessions that have network. */
  web?: WebOffer;
  /** What each call costs (the worker's table, AGENT_PRICES_FILE included; the built-in one by default). */
  prices?: PriceTable;
}

/** Which web tools the worker offers, and whether a session's commands have network here. */
export interface WebOffer {
  fetch: boolean;
  search: boolean;
  hasNetwork(network: SandboxRequest['network']): boolean;
}

/** The dependencies with their defaults filled in: one conversation cache for all the worker's calls. */
type ModelCallDeps = Required<Omit<ModelActivityDependencies, 'live' | 'web'>> &
  Pick<ModelActivityDependencies, 'live' | 'web'>;

/** The model call of a turn: the conversation by reference in, the reply and its planned tool calls out. */
export function createModelActivities({
  store,
  api,
  tools = TOOLS,
  live,
  conversations = new ConversationCache(),
  web,
  prices = MODEL_PRICES,
}: ModelActivityDependencies) {
  const deps: ModelCallDeps = { store, api, tools, live, conversations, prices, ...(web ? { web } : {}) };
  return {
    callModel: (input: CallModelInput): Promise<CallModelOutcome> => callModel(deps, input),
  };
}

async function callModel(deps: ModelCallDeps, input: CallModelInput): Promise<CallModelOutcome> {
  const { store, conversations } = deps;
  const { conversationRef, checkpointRef } = await appendWithCheckpoint(
    store,
    input.conversationRef,
    input.append,
    input.turnEnd,
  );
  // The turn's transcript entries ride along (stored before the call, so every outcome returns them).
  const transcript = input.transcriptAppend
    ? { transcriptRef: await storeTranscriptNode(store, input.transcriptAppend) }
    : {};
  const storedRefs = { ...(checkpointRef ? { checkpointRef } : {}), ...transcript };
  const conversation = await loadConversation(store, conversationRef, conversations);
  const mcp = await McpCatalog.load(store, input.mcpToolsRef);
  // The tools this session is offered: its allowed ones, the conditional ones only when they apply.
  const offered = { ...input, allowedTools: offeredTools(deps, input, mcp) };
  const params = await requestOf(deps, offered, conversation, mcp);
  const reply = await streamReply(deps, input, params);
  if (reply.kind === 'overloaded') {
    return { kind: 'overloaded', conversationRef, ...storedRefs, attempts: reply.attempts, message: reply.message };
  }
  if (reply.kind === 'rate_limited') {
    const { refused, waitMs, message } = reply;
    return { kind: 'rate_limited', conversationRef, ...storedRefs, cause: reply.cause, refused, waitMs, message };
  }
  if (reply.kind !== 'message') return { ...reply, conversationRef, ...storedRefs };
  const response = await responseOf(deps, offered, reply.message, mcp);
  return { kind: 'response', conversationRef, ...storedRefs, messageCount: conversation.length, ...response };
}

/**
 * Of the session's allowed tools, those that apply: the MCP resource tools when a server offers
 * resources, the web tools when the worker offers them and the session has network. Decided here,
 * in the activity, so a running session picks them up without a workflow change.
 */
function offeredTools({ tools, web }: ModelCallDeps, input: CallModelInput, mcp: McpCatalog | undefined): string[] {
  const online = web ? web.hasNetwork(input.network) : false;
  return tools.offeredNames(input.allowedTools, {
    mcpResources: (mcp?.resourceServers.length ?? 0) > 0,
    webFetch: online && web!.fetch,
    webSearch: online && web!.search,
    skills: input.skillsRef !== undefined,
  });
}

/** The request: the tools (built-in, then the session's MCP ones) and system prompt, cached, then the messages. */
async function requestOf(
  { store, tools }: ModelCallDeps,
  input: CallModelInput,
  conversation: ConversationMessage[],
  mcp: McpCatalog | undefined,
): Promise<Anthropic.MessageCreateParamsNonStreaming> {
  const messages = withCacheBreakpoint(await toApiMessages(store, conversation, input.resultsPerMessageMaxChars));
  // The session's MCP tools (stored by the listing activity) follow the built-in ones.
  // Then StructuredOutput, for sessions with input `outputFormat` (a schema that does not compile ends the session here).
  const definitions = [
    ...tools.apiDefinitions(input.allowedTools),
    ...(mcp?.apiDefinitions() ?? []),
    ...(input.outputSchema ? [structuredOutputDefinition(input.outputSchema)] : []),
  ];
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: input.model,
    max_tokens: input.maxOutputTokens,
    // Stable prefix first and marked for caching: tools, then the system prompt.
    system: [{ type: 'text', text: await store.get(input.systemRef), cache_control: { type: 'ephemeral' } }],
    tools: definitions.map((tool, index) =>
      index === definitions.length - 1 ? { ...tool, cache_control: { type: 'ephemeral' } } : tool,
    ),
    messages,
  };
  return params;
}
/**
 * A reply, or word that the model stayed overloaded for long enough to hand the workflow the
 * choice of another, or a rate limit for the workflow to wait out (`rateLimitsInWorkflow`).
 */
type StreamedReply =
  | ModelReply
  | { kind: 'overloaded'; attempts: number; message: string }
  | (RateLimitedReply & { cause: 'rate_limit' | 'overloaded' });

/** The call itself, in a span, its text streamed to the watchers (who are told when an attempt fails). */
async function streamReply(
  { api, live }: ModelCallDeps,
  input: CallModelInput,
  params: Anthropic.MessageCreateParamsNonStreaming,
): Promise<StreamedReply> {
  const publisher = LivePublisher.forActivity(live, input.turn);
  const attempt = Context.current().info.attempt;
  try {
    const reply = await inSpan('model.call', modelCallAttributes(input, attempt), async (span) => {
      const answer = input.rateLimitsInWorkflow
        ? await api.streamOrRateLimit(params, 'Model call', publisher)
        : await api.stream(params, 'Model call', publisher);
      if (answer.kind === 'message') span.setAttributes(replyAttributes(answer.message));
      else span.setAttribute('durable_agent.withheld', answer.kind);
      return answer.kind === 'rate_limited' ? { ...answer, cause: 'rate_limit' as const } : answer;
    });
    await publisher.flush();
    return reply;
  } catch (error) {
    const overloaded =
      error instanceof ApplicationFailure &&
      error.type === ErrorType.ModelOverloaded &&
      attempt >= input.fallbackAfterOverloads;
    if (overloaded && input.fallbackModel && input.fallbackModel !== input.model) {
      // Enough overloaded attempts: hand the choice of another model to the workflow.
      return { kind: 'overloaded', attempts: attempt, message: error.message };
    }
    if (overloaded && input.rateLimitsInWorkflow) {
      // Overloaded with no fallback left: the workflow waits it out like a rate limit (with its backoff).
      return { kind: 'rate_limited', cause: 'overloaded', refused: true, waitMs: null, message: error.message };
    }
    // Watchers learn that Temporal will try again, when, and that this attempt's text is void.
    publisher.retrying(error);
    await publisher.flush();
    throw error;
  }
}

/** The reply stored, and its tool calls planned (MCP tools by the session's catalog). */
async function responseOf(
  { store, tools, prices }: ModelCallDeps,
  input: CallModelInput,
  message: Anthropic.Message,
  mcp: McpCatalog | undefined,
) {
  if (!Array.isArray(message.content)) {
    throw ApplicationFailure.retryable(
      'The model API returned a message without content blocks',
      ErrorType.ModelMalformedResponse,
    );
  }
  // A reply cut off by the output limit may end in a half-written tool_use: keep its text only,
  // so the conversation never holds a tool_use that will get no tool_result.
  const truncated = message.stop_reason === 'max_tokens' || message.stop_reason === 'model_context_window_exceeded';
  const content = truncated ? message.content.filter((block) => block.type !== 'tool_use') : message.content;
  const assistantJson = JSON.stringify(content);
  const assistantRef = await putJson(store, content);
  const toolUses = await Promise.all(
    content
      .filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')
      .map((block) =>
        input.outputSchema && block.name === STRUCTURED_OUTPUT_TOOL
          ? planStructuredOutput(input.outputSchema, block)
          : (mcp?.plan(block) ?? tools.plan(block, input.workdir, input.allowedTools)),
      ),
  );
  return {
    assistant: { ref: assistantRef, chars: assistantJson.length },
    stopReason: message.stop_reason ?? 'end_turn',
    text: textOf(content),
    toolUses,
    // Priced here, where the table is: the workflow only sums the numbers.
    usage: pricedUsage(usageOf(message.usage), message.model ?? input.model, prices, input.model),
    model: message.model ?? input.model,
  };
}

/** What a `model.call` span says before the reply: the model, the turn, and which attempt (retries). */
function modelCallAttributes(input: CallModelInput, attempt: number) {
  return {
    'gen_ai.system': 'anthropic',
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': input.model,
    'gen_ai.request.max_tokens': input.maxOutputTokens,
    'durable_agent.turn': input.turn ?? 0,
    'durable_agent.attempt': attempt,
    'durable_agent.retries': attempt - 1,
  };
}

/** And after it: tokens in, out and cached, and why it stopped. */
function replyAttributes(message: Anthropic.Message) {
  const usage = usageOf(message.usage);
  return {
    'gen_ai.response.model': message.model ?? '',
    'gen_ai.response.finish_reasons': [message.stop_reason ?? 'end_turn'],
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.usage.cache_read_input_tokens': usage.cacheReadInputTokens,
    'gen_ai.usage.cache_creation_input_tokens': usage.cacheCreationInputTokens,
  };
}
