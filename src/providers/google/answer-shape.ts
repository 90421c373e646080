import {
  array,
  boolean,
  nullish,
  number,
  object,
  plainObject,
  type Shape,
  string,
  tokenCount,
} from '../../internal/shape.ts';

/**
 * What a Gemini `GenerateContentResponse` (a whole answer, or one chunk of a stream) must look like before it is
 * converted: the fields the conversion reads, with their documented types.
 */

const part: Shape = object({
  text: nullish(string),
  thought: nullish(boolean),
  thoughtSignature: nullish(string),
  functionCall: nullish(object({ id: nullish(string), name: string, args: nullish(plainObject) })),
  inlineData: nullish(object({ mimeType: nullish(string), data: nullish(string) })),
});

/** Per-modality token counts (`candidatesTokensDetails`): image output is priced apart from text. */
const modalityCounts: Shape = nullish(array(object({ modality: nullish(string), tokenCount: nullish(tokenCount) })));

const candidate: Shape = object({
  index: nullish(number),
  finishReason: nullish(string),
  content: nullish(object({ parts: nullish(array(part)) })),
});

export const checkResponse: Shape = object({
  responseId: nullish(string),
  candidates: nullish(array(candidate)),
  usageMetadata: nullish(
    object({
      promptTokenCount: nullish(tokenCount),
      toolUsePromptTokenCount: nullish(tokenCount),
      candidatesTokenCount: nullish(tokenCount),
      thoughtsTokenCount: nullish(tokenCount),
      cachedContentTokenCount: nullish(tokenCount),
      candidatesTokensDetails: modalityCounts,
    }),
  ),
  promptFeedback: nullish(object({ blockReason: nullish(string), blockReasonMessage: nullish(string) })),
});

/** batchEmbedContents: a vector of numbers per input. */
export const checkEmbeddings: Shape = object({
  embeddings: array(object({ values: array(number, { min: 1 }) }), { min: 1 }),
});
