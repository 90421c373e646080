/**
 * The experiment loop: record an agent's calls, replay ten of them on two models × two prompts, compare, annotate,
 * deploy the winner and call it. Runs on the simulator: `node --conditions=switchyard-source examples/experiments.ts`.
 * See docs/experiments.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, formatDeploymentId } from 'switchyard-llm';
import { FileDeploymentStore } from 'switchyard-llm/stores';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-experiments-'));
const deployments = new FileDeploymentStore(directory); // where the winner goes
const gateway = createGateway({ mock: true, deployments });

// 1. Production traffic: the triage agent answers twelve tickets; each call keeps its `input` variables.
const tickets = [
  'The stream stops after the first chunk.',
  'How do I rotate an API key?',
  'I was charged twice this month.',
  'Fallbacks ignore my retry settings.',
  'Can I pin a provider per request?',
  'The invoice shows the wrong company name.',
  'Cost is null for my Ollama calls.',
  'Where are call records kept by default?',
  'Please refund the duplicate payment.',
  'Structured output fails on Gemini with a union root.',
  'Does serve support CORS?',
  'Upgrade my plan to the team tier.',
];
for (const ticket of tickets)
  await gateway.createCompletion({
    model: 'gpt-luna-latest',
    messages: [
      { role: 'system', content: 'You triage support tickets about {{product}}.' },
      { role: 'user', content: '{{ticket}}' },
    ],
    input: { product: 'Switchyard', ticket },
    metadata: { agent_id: 'triage' },
  });

// 2. The experiment: two prompts × two models (4 versions) on the 10 newest recorded calls (10 inputs).
const outputSchema = {
  json_schema: {
    type: 'object' as const, // a schema's root is an object
    properties: {
      category: { type: 'string', enum: ['bug', 'question', 'billing'] },
      reply: { type: 'string' },
    },
    required: ['category', 'reply'],
    additionalProperties: false,
  },
};
const prompts = {
  short: [
    { role: 'system' as const, content: 'Classify this {{product}} ticket and reply in one sentence.' },
    { role: 'user' as const, content: '{{ticket}}' },
  ],
  careful: [
    {
      role: 'system' as const,
      content:
        'You triage tickets about {{product}}. A bug is broken behaviour, billing is money, anything else is a ' +
        'question. Reply kindly, in at most two sentences.',
    },
    { role: 'user' as const, content: 'Ticket: {{ticket}}' },
  ],
};
const versions = ['gpt-luna-latest', 'claude-haiku-latest'].flatMap((model) =>
  Object.entries(prompts).map(([prompt, messages]) => ({
    label: `${model} / ${prompt}`,
    model,
    messages,
    output_schema: outputSchema,
    max_completion_tokens: 300, // bounds each cell's worst cost: the budget goes further
  })),
);
const created = await gateway.experiments.create({
  agent_id: 'triage',
  title: 'Triage: prompt and model',
  budget_usd: 0.5,
  versions,
  inputs: [{ from_calls: { filter: { status: 'ok' }, limit: 10 } }],
});
console.log(`${created.id}: ${created.versions.length} versions × ${created.inputs.length} inputs`);

// 3. Run every cell (four at a time), then print one row per version.
const experiment = await gateway.experiments.run(created.id, { concurrency: 4 });
const labelOf = new Map(experiment.versions.map((version) => [version.id, version.label]));
console.log(`status ${experiment.status}, spent $${experiment.spent_usd.toFixed(6)} of $${experiment.budget_usd}`);
console.log(`${'version'.padEnd(30)} completed  cost        p50 ms  valid`);
for (const summary of experiment.summaries) {
  const completed = `${summary.completed}/${summary.cells}`.padEnd(10);
  const p50 = String(summary.latency_ms.p50).padEnd(6);
  const label = labelOf.get(summary.version_id)!.padEnd(30);
  console.log(`${label} ${completed} $${summary.cost_usd.toFixed(6)}   ${p50}  ${summary.valid}/${summary.completed}`);
}

// 4. A reviewer scores the first two inputs of every version: a metric on the cell (not on its call). The simulator
// answers every ticket with the schema's first category ("bug"), so here the scores tie; real models' differ.
const expected = (ticket: string) =>
  /charged|refund|invoice|plan/.test(ticket) ? 'billing' : /stops|ignore|null|fails/.test(ticket) ? 'bug' : 'question';
const reviewed = experiment.inputs.slice(0, 2);
await gateway.annotations.add(
  experiment.cells
    .filter((cell) => reviewed.some((input) => input.id === cell.input_id) && cell.status === 'completed')
    .map((cell) => {
      const input = experiment.inputs.find((candidate) => candidate.id === cell.input_id)!;
      const answer = cell.parsed as { category: string };
      const right = answer.category === expected(String(input.variables?.ticket));
      return {
        target: { experiment_id: experiment.id, cell_id: cell.id },
        metric: { name: 'accuracy', value: right ? 1 : 0 },
        text: right ? undefined : `expected ${expected(String(input.variables?.ticket))}`,
      };
    }),
);

// 5. The winner: the best accuracy, then the most valid outputs, then the cheapest.
const results = await gateway.experiments.get(experiment.id);
const ranked = [...results.summaries].sort(
  (a, b) =>
    (b.metrics.accuracy?.average ?? -1) - (a.metrics.accuracy?.average ?? -1) ||
    (b.valid ?? 0) - (a.valid ?? 0) ||
    a.cost_usd - b.cost_usd,
);
for (const summary of ranked)
  console.log(`${labelOf.get(summary.version_id)!.padEnd(30)} accuracy ${JSON.stringify(summary.metrics.accuracy)}`);
const winner = results.versions.find((version) => version.id === ranked[0]!.version_id)!;
console.log(`winner: ${winner.label}`);

// 6. Deploy the winner's content as it ran, then call it by its id with `input` only.
const id = formatDeploymentId({ agent_id: 'triage', environment: 'production', number: 1 });
await deployments.put({
  id,
  agent_id: 'triage',
  environment: 'production',
  number: 1,
  created_at: new Date().toISOString(),
  description: `Winner of ${experiment.id}`,
  version: winner.content,
});
const answer = await gateway.createCompletion({
  model: `switchyard/deployment/${id}`,
  input: { product: 'Switchyard', ticket: 'My second invoice is missing.' },
});
console.log(`${id} (${answer.model}):`, answer.choices[0]!.message.parsed);

await gateway.close();
rmSync(directory, { recursive: true, force: true });
