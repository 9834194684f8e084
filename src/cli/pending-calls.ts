/**
 * The calls a session is running now, as Temporal's pending activities say: the heartbeat
 * details of its tool, hook and MCP activities (src/activities/heartbeat.ts), which `describe`
 * returns with or without a worker. Details are decoded with the client's data converter (they
 * are encrypted with a key set) and parsed: anything else a heartbeat carried is left out.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { LoadedDataConverter } from '@temporalio/common';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { z } from 'zod';
import type { CallDetails } from '../activities/heartbeat';
import { formatElapsed } from './terminal';

let callDetailsSchema: z.ZodType<CallDetails> | undefined;

/** Made on first use: zod loads only for a session with calls running, not for `status` of one at rest. */
async function callDetails(): Promise<z.ZodType<CallDetails>> {
  const { z } = await import('zod');
  callDetailsSchema ??= z.object({
    tool: z.string(),
    summary: z.string(),
    elapsedMs: z.number().nonnegative(),
    lastLine: z.string().optional(),
  }) satisfies z.ZodType<CallDetails>;
  return callDetailsSchema;
}

/** `converter`: the client's (`client.options.loadedDataConverter`). */
export async function pendingCalls(
  converter: LoadedDataConverter,
  description: Pick<WorkflowExecutionDescription, 'raw'>,
): Promise<CallDetails[]> {
  const calls: CallDetails[] = [];
  for (const activity of description.raw.pendingActivities ?? []) {
    const payloads = activity.heartbeatDetails?.payloads;
    if (!payloads?.length) continue;
    // A payload this client cannot decode (a key it lacks) says nothing here; the rest still shows.
    const decoded = await decodeArrayFromPayloads(converter, payloads).catch(() => []);
    // A workdir lease keeper heartbeats no details (null): no call, and no need for the schema.
    if (typeof decoded[0] !== 'object' || decoded[0] === null) continue;
    const parsed = (await callDetails()).safeParse(decoded[0]);
    if (parsed.success) calls.push(parsed.data);
  }
  return calls;
}

/** What `status` prints of a call: `Bash npm test · 12 s · Tests: 41 passed`, `Stop hook: ./check.sh · 3 s`. */
export function formatPendingCall(call: CallDetails): string {
  // A tool call's summary starts with the tool's name; a hook's is its command.
  const what = call.summary.startsWith(call.tool) ? call.summary : `${call.tool}: ${call.summary}`;
  return [what, formatElapsed(call.elapsedMs), ...(call.lastLine ? [call.lastLine] : [])].join(' · ');
}
