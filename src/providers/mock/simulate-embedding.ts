import { sha256 } from '../../internal/sha256.ts';
import type { EmbeddingCall, ProviderEmbedding } from '../embedding-api.ts';

/** Vector length when neither the request nor the catalog gives one. */
const DEFAULT_DIMENSIONS = 256;

/**
 * The simulator's embeddings: per text, a unit vector drawn from a generator seeded with the text's SHA-256, so one
 * text always gets one vector and different texts get different ones. Tokens are counted at four characters each,
 * as the simulator counts them for chat.
 */
export function simulateEmbedding(call: EmbeddingCall): ProviderEmbedding {
  const dimensions = call.dimensions ?? call.catalogDimensions ?? DEFAULT_DIMENSIONS;
  const vectors = call.input.map((text) => unitVector(text, dimensions));
  const promptTokens = call.input.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
  return { vectors, promptTokens };
}

function unitVector(text: string, dimensions: number): number[] {
  const seed = sha256(text);
  // xorshift32 from the first four bytes (never zero, or the generator would stay at zero).
  let state = new DataView(seed.buffer, seed.byteOffset).getUint32(0, true) || 0x9e3779b9;
  const values = new Array<number>(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const value = state / 0xffffffff - 0.5;
    values[index] = value;
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm);
  return values.map((value) => Number((value * scale).toFixed(7)));
}
