/**
 * Tracing and metrics as operators see them: the spans of a session (Temporal's workflow and
 * activity spans, and our model and tool call spans inside them) caught by an in-memory
 * exporter, and a worker process's Prometheus endpoint.
 */
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setUpTracing } from '../../src/telemetry/tracing';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { freePort } from '../support/global-setup';
import { Harness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

let harness: Harness;
const exporter = new InMemorySpanExporter();
beforeAll(async () => {
  harness = await Harness.start();
});
afterAll(async () => {
  await harness?.stop();
});

/** The chain of a span's ancestors, by name, up to the root of its trace. */
function ancestry(span: ReadableSpan, spans: ReadableSpan[]): string[] {
  const names: string[] = [];
  for (let parent = span.parentSpanId; parent;) {
    const found = spans.find(
      (candidate) =>
        candidate.spanContext().spanId === parent && candidate.spanContext().traceId === span.spanContext().traceId,
    );
    if (!found) break;
    names.push(found.name);
    parent = found.parentSpanId;
  }
  return names;
}

test("a model call span with its tokens and a tool call span with its exit code, nested under the session's workflow span", async () => {
  const tracing = setUpTracing({}, new SimpleSpanProcessor(exporter))!;
  await harness.startWorker({}, { tracing });
  harness.fake.handler = byTurn([reply([toolUse('Bash', { command: 'echo traced' })]), reply([text('Done.')])]);
  const handle = await harness.start({ prompt: 'trace me', workdir: makeRepo({}), toolSummaries: false });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });

  // The run's span is made from the workflow's sink, called once the last activation is done.
  while (!exporter.getFinishedSpans().some((span) => span.name === 'RunWorkflow:agentWorkflow'))
    await new Promise((resolve) => setTimeout(resolve, 20));
  const spans = exporter.getFinishedSpans();
  // Every attempt of a call has its span, and a loaded machine may retry one (an attempt timed
  // out): what is asserted is the calls that answered, one or more per turn, not a count.
  const models = spans.filter((span) => span.name === 'model.call');
  for (const span of models) {
    expect(span.attributes).toMatchObject({
      'gen_ai.system': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-5-5',
    });
    expect(span.attributes['durable_agent.retries']).toBe(Number(span.attributes['durable_agent.attempt']) - 1);
    expect(ancestry(span, spans)).toEqual(['RunActivity:callModel', 'RunWorkflow:agentWorkflow']);
  }
  const answered = models.filter((span) => span.attributes['gen_ai.response.finish_reasons'] !== undefined);
  expect(new Set(answered.map((span) => span.attributes['durable_agent.turn']))).toEqual(new Set([1, 2]));
  const firstTurn = answered.find((span) => span.attributes['durable_agent.turn'] === 1)!;
  expect(firstTurn.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_use']);
  expect(firstTurn.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
  expect(firstTurn.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
  expect(firstTurn.attributes['gen_ai.usage.cache_read_input_tokens']).toBe(0);

  const tools = spans.filter((span) => span.name === 'tool.call');
  expect(tools).toContainEqual(
    expect.objectContaining({
      attributes: expect.objectContaining({
        'durable_agent.tool.name': 'Bash',
        'durable_agent.tool.subject': 'Bash echo traced',
        'durable_agent.tool.exit_code': 0,
        'durable_agent.tool.is_error': false,
      }),
    }),
  );
  for (const tool of tools) expect(ancestry(tool, spans)).toEqual(['RunActivity:runTool', 'RunWorkflow:agentWorkflow']);
  const run = spans.find((span) => span.name === 'RunWorkflow:agentWorkflow')!;
  expect(run.attributes).toMatchObject({
    temporalWorkflowId: handle.workflowId,
    'durable_agent.outcome': 'completed',
    'durable_agent.reason': 'completed',
    'durable_agent.turns': 2,
  });
  expect(run.parentSpanId).toBeUndefined();
  // One trace per session.
  expect(new Set([...models, ...tools, run].map((span) => span.spanContext().traceId)).size).toBe(1);
  await tracing.shutdown();
});

test("a worker process with AGENT_METRICS_ADDRESS serves Temporal's worker metrics to Prometheus", async () => {
  // A queue of its own: the traced worker above must not take this session.
  const measured = await Harness.start(byTurn([reply([text('Measured.')])]));
  try {
    const address = `127.0.0.1:${await freePort()}`;
    await measured.startWorkerProcess({ AGENT_METRICS_ADDRESS: address });
    await (await measured.start({ prompt: 'measure me', workdir: makeRepo({}), toolSummaries: false })).result();
    const metrics = await (await fetch(`http://${address}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(`^temporal_workflow_completed\\{[^}]*task_queue="${measured.taskQueue}"[^}]*\\} 1$`, 'm'),
    );
    expect(metrics).toMatch(/^temporal_activity_execution_latency\S*\{[^}]*activity_type="callModel"/m);
  } finally {
    await measured.stop();
  }
});
