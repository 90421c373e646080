import type { AutoParseableResponseFormat } from 'openai/lib/parser';
import type { ListModelsOptions, ModelList } from './catalog/catalog.ts';
import type { CompletionStream } from './completion/completion-stream.ts';
import { type CompletionOptions, createGateway, type Gateway } from './gateway.ts';
import type {
  CompletionRequestNonStreaming,
  CompletionRequestStreaming,
  CompletionResponse,
  ParsedCompletionResponse,
} from './types.ts';

let gateway: Gateway | undefined;

/** The gateway behind the top-level functions: configured from the environment on first use. */
function defaultGateway(): Gateway {
  gateway ??= createGateway();
  return gateway;
}

/** `createCompletion` on a default gateway that reads provider keys from `<NAME>_API_KEY`. */
export function createCompletion(
  request: CompletionRequestStreaming,
  options?: CompletionOptions,
): Promise<CompletionStream>;
export function createCompletion<Parsed>(
  request: CompletionRequestNonStreaming & { response_format: AutoParseableResponseFormat<Parsed> },
  options?: CompletionOptions,
): Promise<ParsedCompletionResponse<Parsed>>;
export function createCompletion(
  request: CompletionRequestNonStreaming,
  options?: CompletionOptions,
): Promise<CompletionResponse>;
export function createCompletion(
  request: CompletionRequestStreaming | CompletionRequestNonStreaming,
  options?: CompletionOptions,
): Promise<CompletionResponse | CompletionStream> {
  return defaultGateway().createCompletion(request, options);
}

/** The bundled model catalog in the OpenAI `/v1/models` shape. */
export function listModels(options?: ListModelsOptions): ModelList {
  return defaultGateway().listModels(options);
}
