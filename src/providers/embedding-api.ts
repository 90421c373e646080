import type { CompletionWarning } from '../types.ts';

/** What an adapter is handed for embeddings: the texts, validated, and the provider's model name. */
export interface EmbeddingCall {
  model: string;
  input: string[];
  /** Output dimensions asked for (models that can shorten their vectors). */
  dimensions?: number | undefined;
  /** The model's vector length per the catalog, when it lists the model. */
  catalogDimensions?: number | undefined;
  /** The end user, for a provider's abuse monitoring (OpenAI's `user`). */
  user?: string | undefined;
  signal?: AbortSignal | undefined;
  warn: (warning: CompletionWarning) => void;
}

/** One vector per input, in order, and the input tokens billed (`undefined` when the provider does not say). */
export interface ProviderEmbedding {
  vectors: number[][];
  promptTokens: number | undefined;
}
