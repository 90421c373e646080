import type { CompletionChunk } from '../../src/index.ts';

/** Every chunk of a stream, in order. */
export async function collect(stream: AsyncIterable<CompletionChunk>): Promise<CompletionChunk[]> {
  const chunks: CompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** The text of one delta field across the chunks (choice 0). */
export function deltaText(chunks: CompletionChunk[], field: 'content' | 'reasoning_content'): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta[field] ?? '').join('');
}

/** The streamed tool calls of choice 0 put back together by index, as a client would. */
export function assembleToolCalls(
  chunks: CompletionChunk[],
): Record<number, { id?: string; name?: string; arguments: string }> {
  const calls: Record<number, { id?: string; name?: string; arguments: string }> = {};
  for (const chunk of chunks) {
    for (const toolCall of chunk.choices[0]?.delta.tool_calls ?? []) {
      const call = (calls[toolCall.index] ??= { arguments: '' });
      if (toolCall.id) call.id = toolCall.id;
      if (toolCall.function?.name) call.name = toolCall.function.name;
      call.arguments += toolCall.function?.arguments ?? '';
    }
  }
  return calls;
}
