import { SUPPORTS_EVERYTHING } from '../../catalog/model-profile.ts';
import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';
import { nativeOutputWhere, type ProviderDefinition } from '../provider.ts';
import { CLAUDE_REASONING_FORMAT } from '../reasoning-format.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'Amazon Bedrock credentials');
const nodeOs = lazyNodeBuiltin('node:os', 'Amazon Bedrock credentials');
const nodePath = lazyNodeBuiltin('node:path', 'Amazon Bedrock credentials');

/** Environment variables of the standard AWS credential chain (any one means credentials may be found). */
const AWS_CHAIN = [
  'AWS_ACCESS_KEY_ID',
  'AWS_PROFILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_BEARER_TOKEN_BEDROCK',
];

/** Bedrock's own settings, beside the shared ones. */
export interface BedrockSettings {
  /** The AWS region (default from `AWS_REGION`, else `AWS_DEFAULT_REGION`). */
  region?: string | undefined;
  /** Explicit AWS credentials; without them, the standard AWS chain (environment, profile, web identity). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}

/**
 * AWS Bedrock's Converse API, through `@aws-sdk/client-bedrock-runtime`. Model ids are Bedrock's
 * (`anthropic.claude-sonnet-4-5-20250929-v1:0`) or cross-region inference profiles (`us.`, `eu.`, `global.`).
 * Structured output goes in the prompt.
 */
export const bedrockProvider: ProviderDefinition<BedrockSettings> = {
  id: 'bedrock',
  envPrefix: 'BEDROCK',
  defaultBaseURL: '',
  requiresApiKey: false,
  capabilities: {
    nativeOutput: nativeOutputWhere(false),
    // Amazon Nova Canvas and Titan Image Generator through InvokeModel (`media.ts`).
    media: {
      apis: ['generateImage'],
      convertImage: async (call) => (await import('./image-request.ts')).toBedrockImageRequest(call),
    },
  },
  otelName: 'aws.bedrock',
  uncatalogued: {
    context_window: 128_000,
    max_output_tokens: 8_192,
    supports: { ...SUPPORTS_EVERYTHING, structured_outputs: false, json_mode: false },
    // Claude ids get a thinking budget (as on Anthropic's API); other models' reasoning knobs differ.
    reasoning: { control: 'budget', can_disable: true, min_budget: 1_024 },
  },
  resolveCredentials(configured, env) {
    const region = configured.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    if (!region) return { missing: 'AWS_REGION (or providers.bedrock.region)' };
    const apiKey = configured.apiKey ?? env.BEDROCK_API_KEY ?? env.AWS_BEARER_TOKEN_BEDROCK;
    const chain =
      AWS_CHAIN.some((name) => env[name]) ||
      nodeFs().existsSync(nodePath().join(nodeOs().homedir(), '.aws', 'credentials'));
    if (!apiKey && !configured.credentials && !chain)
      return {
        missing: 'AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or BEDROCK_API_KEY)',
      };
    const baseURL = configured.baseURL ?? env.BEDROCK_BASE_URL ?? `https://bedrock-runtime.${region}.amazonaws.com`;
    return { apiKey: apiKey ?? 'unused', baseURL, region };
  },
  secrets: (settings) => [settings.credentials?.secretAccessKey, settings.credentials?.sessionToken],
  create: async (settings) => (await import('./adapter.ts')).createBedrockProvider(settings),
  convertRequest: async (call) => {
    const { toConverseRequest, isClaude } = await import('./convert-request.ts');
    const input = toConverseRequest(call);
    return {
      choices: 1,
      maxTokens: input.inferenceConfig?.maxTokens,
      stop: input.inferenceConfig?.stopSequences ?? [],
      logprobs: false,
      // Claude's reasoning comes signed, as from Anthropic; the other models' as text.
      reasoning: isClaude(input.modelId ?? '')
        ? { kind: 'signed-text', format: CLAUDE_REASONING_FORMAT }
        : { kind: 'text' },
    };
  },
};
