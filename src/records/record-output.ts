import type { RecordImage, RecordOutput, RecordToolCall } from './call-record.ts';

/** A completion's first choice as the record keeps it. */

/** The first choice's answer, or an error naming the first field that is not what the wire format promises. */
export function outputFromChoices(choices: unknown): RecordOutput | null {
  if (!Array.isArray(choices)) throw new Error(`choices is ${kindOf(choices)}, not an array`);
  const choice: unknown = choices[0];
  if (choice === undefined) return null;
  if (!isObject(choice)) throw new Error(`choices[0] is ${kindOf(choice)}, not an object`);
  const message = choice.message;
  if (!isObject(message)) throw new Error(`choices[0].message is ${kindOf(message)}, not an object`);
  const calls = message.tool_calls ?? [];
  if (!Array.isArray(calls)) throw new Error(`choices[0].message.tool_calls is ${kindOf(calls)}, not an array`);
  const toolCalls = calls.map((call: unknown, index): RecordToolCall => {
    if (!isObject(call)) throw new Error(`choices[0].message.tool_calls[${index}] is ${kindOf(call)}, not an object`);
    const target = isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : {};
    const argumentsText = target.arguments ?? target.input;
    return {
      id: String(call.id ?? ''),
      type: String(call.type ?? 'function'),
      function: { name: String(target.name ?? ''), arguments: typeof argumentsText === 'string' ? argumentsText : '' },
    };
  });
  return {
    content: optionalText(message.content, 'choices[0].message.content'),
    reasoning_content: optionalText(message.reasoning_content, 'choices[0].message.reasoning_content'),
    tool_calls: toolCalls,
    refusal: optionalText(message.refusal, 'choices[0].message.refusal'),
    finish_reason: optionalText(choice.finish_reason, 'choices[0].finish_reason'),
    ...imagesField(message.images),
  };
}

/** The output with every text capped (the record keeps at most `limit` characters per field). */
export function capOutput(
  output: RecordOutput,
  textOrNull: (value: string | null, field: string) => string | null,
): RecordOutput {
  return {
    content: textOrNull(output.content, 'output.content'),
    reasoning_content: textOrNull(output.reasoning_content, 'output.reasoning_content'),
    tool_calls: output.tool_calls.map((call, index) => ({
      ...call,
      function: {
        name: call.function.name,
        arguments: textOrNull(call.function.arguments, `output.tool_calls[${index}].function.arguments`) ?? '',
      },
    })),
    refusal: textOrNull(output.refusal, 'output.refusal'),
    finish_reason: output.finish_reason,
    ...(output.images ? { images: output.images } : {}),
  };
}

/** `images` for the record, when the answer has any: each image's type and size, never its bytes. */
export function imagesField(images: unknown): { images?: RecordImage[] } {
  if (!Array.isArray(images) || images.length === 0) return {};
  return { images: images.map(recordImage) };
}

/** `data:image/png;base64,…` as `{ media_type: "image/png", bytes }`, the size worked out from the text's length. */
export function recordImage(image: unknown): RecordImage {
  const url = isObject(image) && isObject(image.image_url) ? image.image_url.url : undefined;
  const match = typeof url === 'string' ? /^data:([^;,]+)(;base64)?,/.exec(url) : null;
  if (!match || typeof url !== 'string') return { media_type: null, bytes: null };
  const data = url.length - match[0].length;
  if (!match[2]) return { media_type: match[1]!, bytes: data };
  const padding = url.endsWith('==') ? 2 : url.endsWith('=') ? 1 : 0;
  return { media_type: match[1]!, bytes: Math.max(0, Math.floor((data * 3) / 4) - padding) };
}

function optionalText(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new Error(`${field} is ${kindOf(value)}, not a string`);
  return value;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return value === undefined ? 'missing' : `a ${typeof value}`;
}
