import type { SensitiveDataMode } from '../guardrails/mode.ts';
import type { SwitchyardResponseInfo } from '../types.ts';

/** OpenAI's embeddings request, plus `metadata` for attribution (the keys `CompletionRequest.metadata` recognises). */
export interface EmbeddingRequest {
  /** A catalog embedding model (`text-embedding-3-small`), or `<provider>/<any id>`. */
  model: string;
  /** One text or several (at most 2,048), each non-empty. */
  input: string | string[];
  /** Shorter vectors, for models that can give them (`shortenable` in the catalog). */
  dimensions?: number;
  /** `float` (default): arrays of numbers; `base64`: little-endian float32s, base64-encoded, as OpenAI sends them. */
  encoding_format?: 'float' | 'base64';
  /** OpenAI's end-user id: sent to a provider that takes one (OpenAI's API), and kept in the record's metadata. */
  user?: string;
  /** This request's own sensitive-data mode: it can only tighten the gateway's and the key's (docs/teams.md). */
  sensitive_data?: SensitiveDataMode;
  metadata?: Record<string, string> | null;
}

export interface EmbeddingResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  /** The catalog id (or `<provider>/<id>`) that answered. */
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
  switchyard: SwitchyardResponseInfo;
}

/** A row of the embedding catalog (`src/catalog/embedding-models.json`). */
export interface EmbeddingModel {
  id: string;
  name: string;
  /** The vector length the model gives by default. */
  dimensions: number;
  /** Whether `dimensions` can ask for shorter vectors. */
  shortenable: boolean;
  max_input_tokens: number;
  providers: Array<{ provider: string; model: string; pricing: { input: number } }>;
}
