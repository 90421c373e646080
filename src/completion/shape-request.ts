import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { InvalidRequestError } from '../errors.ts';
import { customToolsAsFunctions } from '../providers/custom-tools.ts';
import type { ProviderCall, ResolvedReasoning, StrictDecisions } from '../providers/provider.ts';
import { resolveReasoning } from '../request/resolve-reasoning.ts';
import { applyOutputSpec } from '../structured-output/apply-output-spec.ts';
import type { JsonSchema } from '../structured-output/json-schema-validator.ts';
import type { OutputSpec } from '../structured-output/output-spec.ts';
import { planStrictSchema, type StrictPlan } from '../structured-output/strict-json-schema.ts';
import { type CallPlan, WarningList } from './call-plan.ts';
import { gateModelSupport } from './gate-model-support.ts';
import type { Candidate } from './plan-candidates.ts';
import type { Services } from './services.ts';

/**
 * Exactly what one candidate is sent, decided once for that candidate: the caller's parameters its model takes,
 * reasoning resolved against its own limits, the output format native or in the prompt and the strict form as its
 * provider has them, and the warnings of each decision. Later stages (the adapter, the output and tool-argument
 * checks, the records) read these decisions; none of them is made again.
 */
export interface ShapedRequest {
  readonly candidate: Candidate;
  /** The OpenAI body for this candidate (`model` its provider's name), the output requirement applied. */
  readonly body: ChatCompletionCreateParamsBase;
  /** The caller's reasoning setting on this candidate's model; `undefined` when it set none or the model has none. */
  readonly reasoning: ResolvedReasoning | undefined;
  /** How the answer was asked for, when the caller asked for a format. */
  readonly output: ShapedOutput | undefined;
  /** The strict-form plans sent: the output schema's and each strict tool's, by tool name. */
  readonly strict: StrictDecisions;
  /** Names of the tools sent in OpenAI's strict form: their nulls for optional parameters mean "left out". */
  readonly strictTools: ReadonlySet<string>;
  /** This attempt's warnings: what its model or provider could not take as asked. */
  readonly warnings: WarningList;
  /** The custom tools sent as functions (a provider without custom tools), whose calls go back as custom calls. */
  readonly customTools: ReadonlySet<string> | undefined;
}

interface ShapedOutput {
  readonly spec: OutputSpec;
  /** The provider constrains the answer itself (`response_format` sent); else the schema is in the prompt. */
  readonly native: boolean;
  /** The schema went in OpenAI's strict form, where a `null` for an optional property means "left out". */
  readonly strictForm: boolean;
}

const NO_PLANS: ReadonlyMap<string, StrictPlan> = new Map();
const NO_TOOLS: ReadonlySet<string> = new Set();

/** Shapes the plan's request for `candidate`; `native: false` forces the prompted output path. */
export function shapeRequest(
  services: Services,
  plan: CallPlan,
  candidate: Candidate,
  options: { native?: boolean; extraMessages?: ChatCompletionCreateParamsBase['messages'] } = {},
): ShapedRequest {
  const warnings = new WarningList(services.settings.strict);
  const { model, offering } = candidate;
  const body: Record<string, unknown> = { ...plan.body, model: offering.model };
  if (options.extraMessages?.length) body.messages = [...plan.body.messages, ...options.extraMessages];
  gateModelSupport(body, model, warnings.warn);

  const capabilities = services.registry.get(offering.provider)?.capabilities;
  const strictProvider = capabilities?.strictForm === true;
  let output: ShapedOutput | undefined;
  let outputPlan: StrictPlan | undefined;
  if (plan.output) {
    const spec = plan.output;
    const native = options.native !== false && (capabilities?.nativeOutput(model, spec.kind) ?? false);
    if (native && strictProvider && spec.kind === 'json_schema' && spec.strict !== false)
      outputPlan = planStrictSchema(spec.modelSchema!);
    applyOutputSpec(body, spec, native, model.supports.json_mode);
    output = { spec, native, strictForm: outputPlan?.strict === true };
  }
  const toolPlans = strictProvider && plan.body.tools ? strictToolPlans(plan.body.tools) : NO_PLANS;
  const strictTools = strictNames(toolPlans);
  let shapedBody = body as unknown as ChatCompletionCreateParamsBase;
  const customs = capabilities?.customTools
    ? undefined
    : customToolsAsFunctions(shapedBody, warnings.warn, offering.provider);
  if (customs) shapedBody = customs.body;

  return {
    candidate,
    body: shapedBody,
    reasoning: reasoningOf(plan, candidate, warnings),
    output,
    strict: { output: outputPlan, tools: toolPlans },
    strictTools,
    warnings,
    customTools: customs?.names,
  };
}

/** The adapter's view of a shaped request: its body and decisions, the call's signal, its warnings. */
export function providerCallOf(plan: CallPlan, shaped: ShapedRequest, signal: AbortSignal | undefined): ProviderCall {
  return {
    body: shaped.body,
    model: shaped.candidate.model,
    modelKnown: shaped.candidate.known,
    promptCache: plan.promptCache,
    reasoning: shaped.reasoning,
    thinkingDisplay: plan.thinkingDisplay,
    output: plan.output,
    strict: shaped.strict,
    signal,
    warn: shaped.warnings.warn,
  };
}

/**
 * The caller's reasoning on this candidate's model: the plan's own for the requested model (validated there), else
 * resolved against this model's limits (a budget of 80 % of *its* maximum output for "high"). A fallback model that
 * cannot honour it drops it with a warning instead of failing the call it is rescuing.
 */
function reasoningOf(plan: CallPlan, candidate: Candidate, warnings: WarningList): ResolvedReasoning | undefined {
  if (candidate.model === plan.model) return plan.reasoning;
  if (!plan.reasoning) return undefined;
  try {
    return resolveReasoning(plan.request, candidate.model);
  } catch (error) {
    if (!(error instanceof InvalidRequestError)) throw error;
    warnings.warn({
      code: 'unsupported_parameter',
      param: error.param ?? 'reasoning',
      message: `${error.message} The fallback ${candidate.model.id} was called without it.`,
    });
    return undefined;
  }
}

/** A function tool without `parameters` takes none. Never changed: the plan's strict schema is a rewritten copy. */
const NO_PARAMETERS: JsonSchema = Object.freeze({ type: 'object', properties: Object.freeze({}) });

/** The strict-form plan of each function tool marked `strict: true`, by name. */
function strictToolPlans(tools: unknown): Map<string, StrictPlan> {
  const plans = new Map<string, StrictPlan>();
  if (!Array.isArray(tools)) return plans;
  for (const tool of tools as Array<{ type?: string; function?: { name: string; strict?: boolean | null } }>) {
    if (tool.type !== 'function' || tool.function?.strict !== true) continue;
    const parameters = (tool.function as { parameters?: JsonSchema }).parameters ?? NO_PARAMETERS;
    plans.set(tool.function.name, planStrictSchema(parameters));
  }
  return plans;
}

/** The names of the tools whose plan is strict. */
function strictNames(plans: ReadonlyMap<string, StrictPlan>): ReadonlySet<string> {
  if (plans.size === 0) return NO_TOOLS;
  const names = new Set<string>();
  for (const [name, plan] of plans) if (plan.strict) names.add(name);
  return names;
}
