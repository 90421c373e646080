import type { AutoParseableResponseFormat } from 'openai/lib/parser';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { applyModelSupport } from './apply-model-support.ts';
import { Catalog, type ListModelsOptions, type ModelList } from './catalog/catalog.ts';
import type { ModelEntry } from './catalog/catalog-schema.ts';
import { defaultCatalog } from './catalog/default-catalog.ts';
import { CompletionStream, relayChunks } from './completion-stream.ts';
import { InvalidRequestError, ModelNotFoundError, ProviderError, StructuredOutputError, SwitchyardError, UnsupportedParameterError } from './errors.ts';
import { MockProvider } from './providers/mock/simulator.ts';
import type { ProviderCall, ProviderCompletion, ProviderSettings } from './providers/provider.ts';
import { createProviderPool } from './providers/provider-pool.ts';
import { constrainsOutputNatively, reservedProviderNames } from './providers/registry.ts';
import { resolveReasoning } from './reasoning.ts';
import { createDeploymentStore } from './deployments/create-store.ts';
import { createCallRecorder, type CallContext, type RecordOptions } from './records/call-recorder.ts';
import type { CallStore } from './records/call-store.ts';
import { computeTotalCost } from './records/compute-cost.ts';
import type { RecordQueueStats } from './records/record-queue.ts';
import { StreamRecorder } from './records/stream-recorder.ts';
import type { Deployment } from './deployments/deployment.ts';
import { resolveDeployment } from './deployments/resolve-deployment.ts';
import type { DeploymentStore } from './deployments/store.ts';
import { parseModelReference, type ModelReference } from './routing/parse-model.ts';
import { openStream, type StreamTimeouts } from './routing/open-stream.ts';
import { runAttempts, type Candidate, type RetryOptions } from './routing/run-attempts.ts';
import { applyOutputSpec, StreamedOutputCheck } from './structured-output/apply-output-spec.ts';
import { checkOutput, correctionMessages, resolveOutputSpec, type OutputCheck, type OutputSpec } from './structured-output/output-spec.ts';
import { renderMessages } from './templates.ts';
import type {
  Attempt,
  ChatCompletionMessageParam,
  CompletionRequest,
  CompletionRequestNonStreaming,
  CompletionChunk,
  CompletionRequestStreaming,
  CompletionResponse,
  CompletionWarning,
  ParsedCompletionResponse,
  SwitchyardResponseInfo,
} from './types.ts';
import { validateRequest } from './completion/validate-request.ts';

export interface GatewayOptions {
  /** Per-provider settings; anything left out comes from `<NAME>_API_KEY` / `<NAME>_BASE_URL`. */
  providers?: Record<string, ProviderSettings>;
  /** Where to read `<NAME>_API_KEY` / `<NAME>_BASE_URL` (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** `true` answers every model with the simulator; a `MockProvider` lets a test script the replies. */
  mock?: boolean | MockProvider;
  /** Models tried, in order, after every provider of the requested model failed (per request: `fallbacks`). */
  fallbacks?: string[];
  retry?: RetryOptions;
  /** Time one provider attempt may take, in milliseconds (default 10 minutes, as openai-node). */
  timeoutMs?: number;
  /**
   * Streams: time from the start of an attempt to its first content (text, reasoning, a tool call). Past it the
   * attempt is aborted and retried, or falls back, as nothing has reached the caller yet. Default: none.
   */
  firstTokenTimeoutMs?: number;
  /**
   * Streams: the longest wait for the provider's next chunk. Before the first content reaches the caller it fails
   * the attempt (retried); after, it ends the stream with a StreamInterruptedError. Default: none.
   */
  streamIdleTimeoutMs?: number;
  /** Largest answer body read from a provider, in bytes (default 64 MiB); a larger one fails with response_too_large. */
  maxResponseBytes?: number;
  /**
   * Connections kept to each provider (default 128). Calls beyond it wait for a free one; `switchyard serve` also
   * limits calls per API key, so that one key cannot hold them all.
   */
  maxConnectionsPerProvider?: number;
  /** Throw `UnsupportedParameterError` instead of dropping a parameter the model cannot take with a warning. */
  strict?: boolean;
  /** A catalog to use instead of the bundled one. */
  catalog?: Catalog;
  /**
   * Where deployments (`model: "switchyard/deployment/<id>"`) live: a directory of JSON/YAML files, the URL of a
   * `switchyard serve` (key from `SWITCHYARD_API_KEY`), or any `DeploymentStore`.
   */
  deployments?: string | DeploymentStore;
  /**
   * Call records: where they go (default: a bounded in-memory sink, queryable as `gateway.calls`), queue sizes, and
   * `redact: true` to store message contents and answers as "[redacted]". `false` turns recording off.
   */
  records?: false | RecordOptions;
}

/** Per-call options, kept out of the request body so the body stays exactly OpenAI's. */
export interface CompletionOptions {
  /** Aborts the request (and a running stream). */
  signal?: AbortSignal;
  /** Overrides the gateway's retry policy for this call (`totalTimeoutMs` is the call's deadline). */
  retry?: RetryOptions;
  /** Overrides `firstTokenTimeoutMs` (of the gateway and of the provider) for this call. */
  firstTokenTimeoutMs?: number;
  /** Overrides `streamIdleTimeoutMs` (of the gateway and of the provider) for this call. */
  streamIdleTimeoutMs?: number;
}

export interface Gateway {
  createCompletion(request: CompletionRequestStreaming, options?: CompletionOptions): Promise<CompletionStream>;
  createCompletion<Parsed>(
    request: CompletionRequestNonStreaming & { response_format: AutoParseableResponseFormat<Parsed> },
    options?: CompletionOptions,
  ): Promise<ParsedCompletionResponse<Parsed>>;
  createCompletion(request: CompletionRequestNonStreaming, options?: CompletionOptions): Promise<CompletionResponse>;
  createCompletion(request: CompletionRequest, options?: CompletionOptions): Promise<CompletionResponse | CompletionStream>;
  /** The catalog in the OpenAI `/v1/models` shape. */
  listModels(options?: ListModelsOptions): ModelList;
  /** The stored deployments, optionally of one agent (empty without a deployment store). */
  listDeployments(filter?: { agent_id?: string }): Promise<Deployment[]>;
  /** Queries over the call records (the first sink that answers queries: memory by default, or SQLite). */
  readonly calls: CallStore;
  /** Queue counters: records waiting, written, dropped because the queue was full, failed in a sink. */
  readonly recordStats: RecordQueueStats;
  /** Resolves once every record of the calls made so far has been written. */
  flush(): Promise<void>;
  /** Flushes the records and closes the sinks. */
  close(): Promise<void>;
  readonly catalog: Catalog;
}

const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8_000, totalTimeoutMs: 600_000 };

/** Fields of ours that no provider receives. */
const SWITCHYARD_FIELDS = [
  'metadata', 'input', 'reasoning', 'reasoning_effort', 'fallbacks', 'structured_output_fallback', 'stream', 'stream_options', 'response_format',
] as const;

export function createGateway(options: GatewayOptions = {}): Gateway {
  const catalog = options.catalog ?? defaultCatalog();
  const env = options.env ?? process.env;
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? 600_000;
  const mock = options.mock === true ? new MockProvider() : options.mock || undefined;
  const getProvider = createProviderPool({
    providers: options.providers,
    env,
    timeoutMs,
    mock,
    transport: { maxResponseBytes: options.maxResponseBytes, connections: options.maxConnectionsPerProvider },
  });
  const deploymentStore = options.deployments === undefined ? undefined : createDeploymentStore(options.deployments, { env });
  const recorder = createCallRecorder(options.records);

  function findModel(id: string): ModelEntry {
    const entry = catalog.find(id);
    if (!entry) throw new ModelNotFoundError(id, catalog.suggest(id));
    return entry;
  }

  /** The providers to try, in order: the model's (or the pinned one), then each fallback model's; all the simulator in mock mode. */
  function candidatesFor(model: ModelEntry, pinnedProvider: string | undefined, fallbacks: string[]): Candidate[] {
    let offerings = model.providers;
    if (pinnedProvider) {
      offerings = offerings.filter((offering) => offering.provider === pinnedProvider);
      if (offerings.length === 0) {
        throw new InvalidRequestError(
          `${model.id} is not served by ${pinnedProvider}. Its providers: ${model.providers.map((offering) => offering.provider).join(', ')}.`,
          'model',
          'provider_not_serving_model',
        );
      }
    }
    const fallbackModels = fallbacks.map(findModel);
    if (mock) {
      return [model, ...fallbackModels].map((entry) => ({
        model: entry,
        offering: { provider: 'mock', model: entry.id, pricing: entry.providers[0]!.pricing },
      }));
    }
    const candidates = offerings.map((offering) => ({ model, offering }));
    for (const entry of fallbackModels) {
      for (const offering of entry.providers) candidates.push({ model: entry, offering });
    }
    return candidates;
  }

  /** The one entry point: runs the call, and records it (success or failure) off the request path. */
  async function createCompletion(request: CompletionRequest, callOptions: CompletionOptions = {}): Promise<CompletionResponse | CompletionStream> {
    const call = recorder.begin();
    try {
      const result = await complete(request, callOptions, call);
      if (!(result instanceof CompletionStream)) recorder.record(request, call, { info: result.switchyard, response: result });
      return result;
    } catch (thrown) {
      const error = isStackOverflow(thrown)
        ? new InvalidRequestError('The request is nested too deeply to process; flatten the deepest values.', null, 'too_deep')
        : thrown;
      if (error instanceof SwitchyardError) error.callId = call.id;
      recorder.record(request, call, { error });
      throw error;
    }
  }

  async function complete(request: CompletionRequest, callOptions: CompletionOptions, call: CallContext): Promise<CompletionResponse | CompletionStream> {
    const startedAt = performance.now();
    // 1. Validate and resolve what is asked for; a deployment expands into the request it stores.
    validateRequest(request);
    const parsed = parseModelReference(request.model, reservedProviderNames);
    const warnings: CompletionWarning[] = [];
    const deploymentId = parsed.kind === 'deployment' ? parsed.deploymentId : undefined;
    let reference: ModelReference & { kind: 'model' };
    if (parsed.kind === 'deployment') ({ request, reference } = await expandDeployment(request, parsed.deploymentId, warnings));
    else reference = parsed;
    const model = findModel(reference.model);
    call.model = model.id;
    call.deploymentId = deploymentId;
    call.metadata = request.metadata ?? undefined;
    if (!request.messages || request.messages.length === 0) {
      throw new InvalidRequestError('"messages" is required for a direct model call (only deployments may omit it).', 'messages');
    }
    const reasoning = resolveReasoning(request, model);
    const agentId = request.metadata?.agent_id ?? reference.agentId;
    call.agentId = agentId;

    // 2. The provider-neutral body: the caller's OpenAI fields, templated, minus ours and minus what the model cannot take.
    const output = resolveOutputSpec(request.response_format);
    const body: Record<string, unknown> = { ...request };
    for (const field of SWITCHYARD_FIELDS) delete body[field];
    if (request.input !== undefined) body.messages = renderMessages(request.messages, request.input);
    call.messages = body.messages as ChatCompletionMessageParam[];
    applyModelSupport(body, model, options.strict ?? false, warnings);
    const warn = (warning: CompletionWarning): void => {
      if (options.strict && warning.code === 'unsupported_parameter') {
        throw new UnsupportedParameterError(`${warning.message} (strict mode: remove it, or create the gateway without strict: true).`, warning.param ?? '');
      }
      if (!warnings.some((known) => known.code === warning.code && known.message === warning.message)) warnings.push(warning);
    };
    const callFor = (candidate: Candidate, native: boolean, signal: AbortSignal, extraMessages: ChatCompletionMessageParam[] = []): ProviderCall => {
      const callBody: Record<string, unknown> = { ...body, model: candidate.offering.model };
      if (extraMessages.length > 0) callBody.messages = [...(body.messages as ChatCompletionMessageParam[]), ...extraMessages];
      if (output) applyOutputSpec(callBody, output, native, candidate.model.supports.json_mode);
      return {
        body: callBody as unknown as ChatCompletionCreateParamsBase,
        model: candidate.model,
        reasoning: candidate.model === model ? reasoning : undefined,
        signal,
        warn,
      };
    };
    const infoFor = (candidate: Candidate, attempts: Attempt[]): SwitchyardResponseInfo => ({
      model: candidate.model.id,
      provider: candidate.offering.provider,
      provider_model: candidate.offering.model,
      ...(agentId !== undefined ? { agent_id: agentId } : {}),
      ...(deploymentId !== undefined ? { deployment_id: deploymentId } : {}),
      call_id: call.id,
      cost_usd: 0,
      attempts,
      warnings,
    });

    // 3. Try the providers in order until one answers.
    const candidates = candidatesFor(model, reference.provider, request.fallbacks ?? options.fallbacks ?? []);
    const callRetry = callOptions.retry ? { ...retry, ...callOptions.retry } : retry;
    const deadlineAt = startedAt + callRetry.totalTimeoutMs;
    if (request.stream) {
      // The stream's start (up to its first content) is read inside the attempt, so a provider that fails, stalls
      // or goes quiet before the caller has anything is retried.
      const { value, candidate, attempts, scope } = await runAttempts(
        candidates,
        getProvider,
        (provider, candidate, scope) =>
          withPromptedFallback(candidate, async (native) => {
            const source = await provider.stream(callFor(candidate, native, scope.signal));
            return openStream(source, scope, streamTimeouts(candidate.offering.provider, callOptions));
          }),
        callRetry,
        callOptions.signal,
        deadlineAt,
      );
      const info = infoFor(candidate, attempts);
      const observed = new StreamRecorder();
      const pricing = candidate.offering.pricing;
      const chunks = relayChunks(value, {
        model: candidate.model.id,
        includeUsage: request.stream_options?.include_usage === true,
        info,
        scope,
        idleMs: streamTimeouts(candidate.offering.provider, callOptions).idleMs,
        observe: (chunk) => observed.observe(chunk),
        check: output && new StreamedOutputCheck(output, attempts),
        onEnd: (error) => {
          const summary = observed.summary();
          call.billed.push({ usage: summary.usage, pricing });
          info.cost_usd = computeTotalCost(call.billed);
          recorder.record(request, call, { info, stream: summary, ...(error === undefined ? {} : { error }) });
        },
      });
      return new CompletionStream(chunks, info);
    }

    const attempts: Attempt[] = [];
    const run = async (runCandidates: Candidate[], extraMessages: ChatCompletionMessageParam[] = []) => {
      const result = await runAttempts(
        runCandidates,
        getProvider,
        (provider, candidate, scope) =>
          withPromptedFallback(candidate, (native) => provider.complete(callFor(candidate, native, scope.signal, extraMessages))),
        callRetry,
        callOptions.signal,
        deadlineAt,
      ).catch((error: unknown) => {
        if (error instanceof SwitchyardError) error.attempts.unshift(...attempts);
        throw error;
      });
      result.scope.dispose();
      attempts.push(...result.attempts);
      call.billed.push({ usage: result.value.usage, pricing: result.candidate.offering.pricing });
      return result;
    };
    let { value: completion, candidate } = await run(candidates);

    // 4. Structured output: extract, repair, validate; once more with the errors fed back; then the fallback model.
    if (output) {
      let check = checkCompletion(completion, output);
      if (check && !check.ok) {
        warn({ code: 'structured_output_retry', message: `The answer did not match the schema (${check.errors[0]}); the model was asked to correct it.` });
        const answer = completion.choices[0]?.message.content;
        ({ value: completion, candidate } = await run(candidates, correctionMessages(answer, check.errors)));
        check = checkCompletion(completion, output);
      }
      if (check && !check.ok && request.structured_output_fallback) {
        warn({ code: 'structured_output_fallback', message: `Falling back to ${request.structured_output_fallback} for a schema-valid answer.` });
        ({ value: completion, candidate } = await run(candidatesFor(findModel(request.structured_output_fallback), undefined, [])));
        check = checkCompletion(completion, output);
      }
      if (check && !check.ok) {
        throw new StructuredOutputError(
          `${candidate.model.id} did not produce JSON matching the schema "${output.name}": ${check.errors.slice(0, 5).join('; ')}.`,
          completion.choices[0]?.message.content ?? null,
          check.errors,
          attempts,
        );
      }
    }

    // The envelope is ours to state: the catalog id, and the object type whatever a provider wrote there.
    completion.model = candidate.model.id;
    completion.object = 'chat.completion';
    if (completion.usage) {
      completion.usage.completion_tokens_details ??= {};
      completion.usage.completion_tokens_details.reasoning_tokens ??= 0;
    }
    const info = infoFor(candidate, attempts);
    info.cost_usd = computeTotalCost(call.billed);
    // The provider's completion object is ours: extend it rather than copy it.
    return Object.assign(completion, { switchyard: info });

    /**
     * Native structured output where model and provider have it; a provider that rejects the schema gets the prompted
     * path. Without an output spec it is a plain pass-through (no extra promise on the common path).
     */
    function withPromptedFallback<T>(candidate: Candidate, attempt: (native: boolean) => Promise<T>): Promise<T> {
      if (output === undefined) return attempt(false);
      if (!constrainsOutputNatively(candidate.offering.provider, candidate.model, output.kind)) return attempt(false);
      return attempt(true).catch((error: unknown) => {
        if (!(error instanceof ProviderError && error.status === 400 && /schema|response_format/i.test(error.message))) throw error;
        warn({ code: 'converted_parameter', param: 'response_format', message: `${candidate.offering.provider} rejected the schema natively; it was sent in the prompt instead.` });
        return attempt(false);
      });
    }
  }

  /** The stream limits of one attempt: the call's own, else the provider's, else the gateway's. */
  function streamTimeouts(provider: string, callOptions: CompletionOptions): StreamTimeouts {
    const settings = options.providers?.[provider];
    return {
      firstTokenMs: callOptions.firstTokenTimeoutMs ?? settings?.firstTokenTimeoutMs ?? options.firstTokenTimeoutMs,
      idleMs: callOptions.streamIdleTimeoutMs ?? settings?.streamIdleTimeoutMs ?? options.streamIdleTimeoutMs,
    };
  }

  /** The deployment's stored request, rendered with the caller's `input` and merged with the caller's settings. */
  async function expandDeployment(
    request: CompletionRequest,
    id: string,
    warnings: CompletionWarning[],
  ): Promise<{ request: CompletionRequest; reference: ModelReference & { kind: 'model' } }> {
    if (!deploymentStore) {
      throw new InvalidRequestError(
        `"${request.model}" is a deployment reference, and this gateway has no deployment store: pass createGateway({ deployments: <directory or URL> }).`,
        'model',
        'deployment_not_found',
      );
    }
    const resolved = await resolveDeployment(deploymentStore, id, request);
    if ('stale' in deploymentStore && deploymentStore.stale) {
      warnings.push({ code: 'deployment_store_stale', message: `The deployment store is unreachable; "${id}" was served from its cache.` });
    }
    const expanded = {
      ...resolved.settings,
      model: resolved.model,
      messages: resolved.messages,
      // The deployment's agent wins over the caller's metadata and any model prefix; trace and workflow are kept.
      metadata: { ...request.metadata, agent_id: resolved.agentId },
    } as CompletionRequest;
    validateRequest(expanded);
    const reference = parseModelReference(resolved.model, reservedProviderNames);
    if (reference.kind !== 'model') throw new InvalidRequestError(`Deployment "${id}" names another deployment as its model.`, 'model');
    return { request: expanded, reference };
  }

  return {
    createCompletion: createCompletion as Gateway['createCompletion'],
    listModels: (listOptions) => catalog.list(listOptions),
    listDeployments: async (filter) => (deploymentStore ? deploymentStore.list(filter) : []),
    calls: recorder.calls,
    get recordStats() {
      return recorder.stats;
    },
    flush: recorder.flush,
    close: recorder.close,
    catalog,
  };
}

/** Recursion over a caller's value nested tens of thousands deep overflows the stack: the request's fault, not ours. */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/** Validation result for an answer, or `undefined` when there is nothing to validate (a refusal, a tool call). */
function checkCompletion(completion: ProviderCompletion, output: OutputSpec): OutputCheck | undefined {
  const choice = completion.choices[0];
  if (!choice || choice.message.refusal || choice.finish_reason === 'content_filter' || choice.message.tool_calls?.length) return undefined;
  const check = checkOutput(choice.message.content, output);
  if (check.ok) {
    choice.message.content = check.content;
    choice.message.parsed = check.parsed;
  }
  return check;
}
