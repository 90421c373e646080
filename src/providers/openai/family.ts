import { parametersOfOtherApis, parametersOnlyIn } from '../../request/request-parameters.ts';
import type { MediaApi, MediaCapabilities } from '../media-api.ts';
import { nativeOutputWhere, type ProviderDefinition, shapeOfOpenAIBody } from '../provider.ts';

/**
 * The OpenAI-compatible family: one adapter (`adapter.ts`), each provider's differences written down as data.
 * Facts from each provider's own API reference.
 */
export interface OpenAIFamilyQuirks {
  /** Provider id, as used in the catalog and in `<provider>/<model>`. */
  name: string;
  /** `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL` are read from the environment. */
  envPrefix: string;
  defaultBaseURL: string;
  /** Ollama runs locally and takes no key. */
  requiresApiKey: boolean;
  /** `gen_ai.provider.name` of the GenAI semantic conventions, where it is not the provider's id. */
  otelName?: string;
  /** Field that carries the output-token limit (OpenAI reasoning models reject `max_tokens`). */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Response field holding reasoning text, renamed to `reasoning_content`. */
  reasoningField?: 'reasoning' | 'reasoning_content';
  /**
   * Whether the provider constrains output to a JSON Schema (OpenRouter only passes it on, DeepSeek has JSON mode
   * only).
   */
  nativeStructuredOutputs: boolean;
  /** The provider serves `/embeddings` in OpenAI's shape. */
  embeddings?: boolean;
  /** Takes OpenAI's custom (free-form) tools and the `allowed_tools` tool choice (others get them made portable). */
  newToolKinds?: boolean;
  /** The provider's own finish reasons, under the OpenAI one each means. */
  finishReasonAliases?: Record<string, 'stop' | 'length' | 'tool_calls' | 'content_filter'>;
  /** Whether the provider honours `stream_options.include_usage`. */
  streamUsage: boolean;
  /** OpenAI pads stream chunks with an `obfuscation` field unless told not to. */
  disableObfuscation?: boolean;
  /** Parameters the provider names differently. */
  renamedParams?: Record<string, string>;
  /** Parameters the provider rejects: dropped with a warning. */
  unsupportedParams?: readonly string[];
  /** Mistral rejects tool-call ids that are not exactly nine letters or digits. */
  nineCharToolCallIds?: boolean;
  /** Body fields that switch reasoning off where no effort value does (DeepSeek's `thinking`). */
  disableReasoning?: Record<string, unknown>;
  /** DeepSeek needs the assistant's reasoning_content sent back inside a tool-call loop; the others reject it. */
  acceptsReasoningContent?: boolean;
  /** OpenRouter takes `cache_control` breakpoints and hands them to the models that cache; the others reject them. */
  passesCacheControl?: boolean;
  /** The models whose chat API searches the web (`web_search_options`); the others get it dropped with a warning. */
  webSearchModels?: RegExp;
  /** The media APIs it serves in OpenAI's shapes, and what its images API takes (every parameter when unsaid). */
  media?: {
    apis: ReadonlyArray<keyof MediaApi>;
    imageParams?: readonly string[];
    /** What it takes where OpenAI takes `size`: `width` and `height` (Together), or `aspect_ratio` and `resolution`. */
    sizeAs?: 'width_height' | 'aspect_ratio';
    /** The aspect ratios it makes (`W:H`), for `sizeAs: 'aspect_ratio'`: a size is sent as the nearest. */
    aspectRatios?: readonly string[];
    /** The values a parameter takes: another value is dropped with a warning. */
    imageValues?: Record<string, readonly string[]>;
    /** Values it names otherwise, meaning the same (Together's `base64` for `b64_json`). */
    renamedValues?: Record<string, Record<string, string>>;
  };
}

/** OpenAI's chat API searches the web with its search models only (`gpt-4o-search-preview`, `gpt-5-search-api`). */
export const OPENAI_SEARCH_MODELS = /-search-(preview|api)/;

/** Parameters only OpenAI's own API knows (the request table's `onlyIn`): the rest of the family drops them. */
const OPENAI_ONLY = parametersOnlyIn('openai');

/** Parameters of other APIs that no provider of the family takes (Gemini's context cache). */
const NOT_OPENAI = parametersOfOtherApis('openai');

export const openAIFamily: Record<string, OpenAIFamilyQuirks> = {
  openai: {
    name: 'openai',
    embeddings: true,
    nativeStructuredOutputs: true,
    envPrefix: 'OPENAI',
    defaultBaseURL: 'https://api.openai.com/v1',
    requiresApiKey: true,
    maxTokensField: 'max_completion_tokens',
    streamUsage: true,
    disableObfuscation: true,
    newToolKinds: true,
    unsupportedParams: NOT_OPENAI,
    webSearchModels: OPENAI_SEARCH_MODELS,
    media: { apis: ['generateImage', 'editImage', 'createSpeech', 'transcribe'] },
  },
  groq: {
    name: 'groq',
    nativeStructuredOutputs: true,
    envPrefix: 'GROQ',
    defaultBaseURL: 'https://api.groq.com/openai/v1',
    requiresApiKey: true,
    maxTokensField: 'max_completion_tokens',
    reasoningField: 'reasoning',
    streamUsage: true,
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI, 'logprobs', 'top_logprobs', 'logit_bias'],
    media: { apis: ['transcribe'] },
  },
  xai: {
    name: 'xai',
    otelName: 'x_ai',
    nativeStructuredOutputs: true,
    envPrefix: 'XAI',
    defaultBaseURL: 'https://api.x.ai/v1',
    requiresApiKey: true,
    maxTokensField: 'max_completion_tokens',
    reasoningField: 'reasoning_content',
    streamUsage: true,
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI],
    // docs.x.ai's images API: no `size`, `style`; `aspect_ratio`, `resolution` (1k, 2k), `quality` low to high.
    media: {
      apis: ['generateImage'],
      imageParams: ['prompt', 'n', 'response_format', 'quality', 'user'],
      sizeAs: 'aspect_ratio',
      aspectRatios: [
        '1:1',
        '3:4',
        '4:3',
        '9:16',
        '16:9',
        '2:3',
        '3:2',
        '9:19.5',
        '19.5:9',
        '9:20',
        '20:9',
        '1:2',
        '2:1',
      ],
      imageValues: { quality: ['low', 'medium', 'high'], response_format: ['url', 'b64_json'] },
    },
  },
  deepseek: {
    name: 'deepseek',
    nativeStructuredOutputs: false,
    envPrefix: 'DEEPSEEK',
    defaultBaseURL: 'https://api.deepseek.com/v1',
    requiresApiKey: true,
    maxTokensField: 'max_tokens',
    reasoningField: 'reasoning_content',
    acceptsReasoningContent: true,
    disableReasoning: { thinking: { type: 'disabled' } },
    streamUsage: true,
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI],
  },
  mistral: {
    name: 'mistral',
    otelName: 'mistral_ai',
    embeddings: true,
    nativeStructuredOutputs: true,
    envPrefix: 'MISTRAL',
    defaultBaseURL: 'https://api.mistral.ai/v1',
    requiresApiKey: true,
    maxTokensField: 'max_tokens',
    streamUsage: true,
    renamedParams: { seed: 'random_seed' },
    // Mistral's "model_length": the model's own context ran out; "error" stays an invalid answer.
    finishReasonAliases: { model_length: 'length' },
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI, 'logit_bias', 'logprobs', 'top_logprobs'],
    nineCharToolCallIds: true,
  },
  together: {
    name: 'together',
    embeddings: true,
    nativeStructuredOutputs: true,
    envPrefix: 'TOGETHER',
    defaultBaseURL: 'https://api.together.xyz/v1',
    requiresApiKey: true,
    maxTokensField: 'max_tokens',
    reasoningField: 'reasoning',
    streamUsage: true,
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI],
    // Together's images API: `width`/`height`, `response_format` `base64` or `url`, `output_format` jpeg or png.
    media: {
      apis: ['generateImage'],
      imageParams: ['prompt', 'n', 'response_format', 'output_format', 'width', 'height', 'seed', 'steps'],
      sizeAs: 'width_height',
      imageValues: { response_format: ['url'], output_format: ['jpeg', 'png'] },
      renamedValues: { response_format: { b64_json: 'base64' } },
    },
  },
  fireworks: {
    name: 'fireworks',
    embeddings: true,
    nativeStructuredOutputs: true,
    envPrefix: 'FIREWORKS',
    defaultBaseURL: 'https://api.fireworks.ai/inference/v1',
    requiresApiKey: true,
    maxTokensField: 'max_tokens',
    reasoningField: 'reasoning_content',
    streamUsage: true,
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI],
  },
  openrouter: {
    name: 'openrouter',
    nativeStructuredOutputs: false,
    envPrefix: 'OPENROUTER',
    defaultBaseURL: 'https://openrouter.ai/api/v1',
    requiresApiKey: true,
    maxTokensField: 'max_tokens',
    reasoningField: 'reasoning',
    streamUsage: true,
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI],
    passesCacheControl: true,
  },
  ollama: {
    name: 'ollama',
    embeddings: true,
    nativeStructuredOutputs: true,
    envPrefix: 'OLLAMA',
    defaultBaseURL: 'http://localhost:11434/v1',
    requiresApiKey: false,
    maxTokensField: 'max_tokens',
    reasoningField: 'reasoning',
    streamUsage: true,
    unsupportedParams: [...OPENAI_ONLY, ...NOT_OPENAI],
  },
};

/** A provider of the family: the OpenAI adapter, with the provider's quirks. */
export function openAIFamilyProvider(
  quirks: OpenAIFamilyQuirks,
  create?: ProviderDefinition['create'],
): ProviderDefinition {
  return {
    id: quirks.name,
    envPrefix: quirks.envPrefix,
    defaultBaseURL: quirks.defaultBaseURL,
    requiresApiKey: quirks.requiresApiKey,
    ...(quirks.otelName ? { otelName: quirks.otelName } : {}),
    capabilities: {
      nativeOutput: nativeOutputWhere(quirks.nativeStructuredOutputs),
      strictForm: quirks.nativeStructuredOutputs,
      embeddings: quirks.embeddings ?? false,
      customTools: quirks.newToolKinds ?? false,
      ...(quirks.media ? { media: { apis: quirks.media.apis, convertImage: convertImageOf(quirks) } } : {}),
    },
    create: create ?? (async (settings) => (await import('./adapter.ts')).createOpenAIProvider(settings, quirks)),
    // Reasoning text only where the provider gives it (OpenAI's own chat API never does).
    convertRequest: async (call) => ({
      ...shapeOfOpenAIBody((await import('./convert-request.ts')).toOpenAIRequest(call, quirks)),
      reasoning: { kind: quirks.reasoningField ? 'text' : 'hidden' },
    }),
  };
}

/** The family's images body conversion, loaded when first asked (the simulator's stand-in). */
function convertImageOf(quirks: OpenAIFamilyQuirks): NonNullable<MediaCapabilities['convertImage']> {
  return async (call) => (await import('./media-params.ts')).imageBodyFor(quirks, call);
}

/** OpenAI and the providers that speak its API (Azure has a folder of its own, for its client). */
export const openAIFamilyProviders: ProviderDefinition[] = Object.values(openAIFamily).map((quirks) =>
  openAIFamilyProvider(quirks),
);
