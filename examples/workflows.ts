/**
 * Two-agent workflows, sequential and parallel, tied together by metadata (trace_id, workflow_name, agent_id),
 * then viewed per workflow and charted per day. Runs on the simulator: `node --conditions=switchyard-source
 * examples/workflows.ts`.
 */
import { createGateway, uuidv7 } from 'switchyard-llm';

const gateway = createGateway({ mock: true, deployments: new URL('./deployments', import.meta.url).pathname });

// Sequential: a deployed summariser's structured output feeds a writer agent.
async function digest(document: string): Promise<string> {
  const metadata = { trace_id: uuidv7(), workflow_name: 'daily-digest' }; // one trace id per run (UUIDv7 sorts by time)
  const summary = await gateway.createCompletion({
    model: 'switchyard/deployment/summarizer:production#1', // prompt, schema and model live in the deployment
    input: { audience: 'engineers', document },
    metadata,
  });
  const { title, bullets } = summary.choices[0]!.message.parsed as { title: string; bullets: string[] };
  const post = await gateway.createCompletion({
    model: 'gpt-sol-latest',
    messages: [{ role: 'user', content: `Write a short post titled "${title}" covering: ${bullets.join('; ')}` }],
    metadata: { ...metadata, agent_id: 'writer' },
  });
  console.log(`[sequential] ${post.choices[0]!.message.content}`);
  return metadata.trace_id;
}

// Parallel: two reviewers look at the same change at once; their verdicts are combined at the end.
async function review(change: string): Promise<string> {
  const metadata = { trace_id: uuidv7(), workflow_name: 'code-review' };
  const [security, style] = await Promise.all(
    (['security-reviewer', 'style-reviewer'] as const).map((agent_id) =>
      gateway.createCompletion({
        model: agent_id === 'security-reviewer' ? 'claude-sonnet-latest' : 'gemini-flash-latest',
        messages: [{ role: 'user', content: `Review this change as the ${agent_id}: ${change}` }],
        metadata: { ...metadata, agent_id },
      }),
    ),
  );
  console.log(
    `[parallel] security: ${security!.choices[0]!.message.content}\n[parallel] style: ` +
      `${style!.choices[0]!.message.content}`,
  );
  return metadata.trace_id;
}

const digestTrace = await digest('Switchyard 0.1 ships a catalog, routing, reasoning and structured outputs.');
const reviewTrace = await review('Replace the retry loop with exponential backoff.');
await gateway.flush(); // records are written off the request path; flush before reading them back

for (const traceId of [digestTrace, reviewTrace]) {
  const workflow = (await gateway.calls.workflow(traceId))!;
  console.log(
    `\n${workflow.workflow_name} (${traceId}): ${workflow.calls.length} calls, $${workflow.cost_usd.toFixed(6)}`,
  );
  for (const call of workflow.calls)
    console.log(
      `  ${call.created_at}  ${call.agent_id?.padEnd(18)} ${call.model}  ${call.latency_ms} ms  ` +
        (call.cost_usd === null ? 'price unknown' : `$${call.cost_usd.toFixed(6)}`),
    );
}
console.log('\nDaily cost per workflow:', await gateway.calls.dailyCost({ days: 1 }));
await gateway.close();
