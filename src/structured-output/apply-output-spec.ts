import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { StructuredOutputError } from '../errors.ts';
import type { Attempt, CompletionChunk } from '../types.ts';
import { checkOutput, nativeResponseFormat, type OutputSpec, schemaInstruction } from './output-spec.ts';
import { StreamUnwrapper } from './unwrap-stream.ts';

/**
 * Puts the output requirement into a provider call. Native: the plain `response_format` (adapters translate it to
 * their provider's form). Prompted: the schema goes into a system message after the caller's own, and JSON mode is
 * switched on where the model has it.
 */
export function applyOutputSpec(
  body: Record<string, unknown>,
  spec: OutputSpec,
  native: boolean,
  jsonMode: boolean,
): void {
  const messages = body.messages as ChatCompletionMessageParam[];
  // The schema itself must reach the model when it is not enforced natively; JSON mode (native or not) needs the
  // word "JSON" somewhere in the conversation, or OpenAI-style providers reject the request.
  const needsInstruction = spec.kind === 'json_schema' ? !native : !messages.some(mentionsJson);
  if (needsInstruction) {
    const leading = messages.findIndex((message) => message.role !== 'system' && message.role !== 'developer');
    const at = leading === -1 ? messages.length : leading;
    body.messages = [...messages.slice(0, at), schemaInstruction(spec), ...messages.slice(at)];
  }
  if (native) body.response_format = nativeResponseFormat(spec);
  else if (jsonMode) body.response_format = { type: 'json_object' };
  else delete body.response_format;
}

function mentionsJson(message: ChatCompletionMessageParam): boolean {
  const content = message.content;
  if (typeof content === 'string') return /json/i.test(content);
  return Array.isArray(content) && content.some((part) => part.type === 'text' && /json/i.test(part.text));
}

/**
 * Checks a streamed answer: content passes through as it comes (a wrapped root unwrapped on the way), and the whole
 * of it is validated at the end, so an answer that does not match the schema ends the stream with a
 * `StructuredOutputError` instead of passing as valid.
 */
export class StreamedOutputCheck {
  readonly #spec: OutputSpec;
  readonly #attempts: Attempt[];
  readonly #strictForm: boolean;
  readonly #unwrapper: StreamUnwrapper | undefined;
  #content = '';
  // Refusals, tool calls and filtered answers are not the JSON answer: nothing to validate.
  #skip = false;

  constructor(spec: OutputSpec, attempts: Attempt[], strictForm = false) {
    this.#spec = spec;
    this.#attempts = attempts;
    this.#strictForm = strictForm;
    this.#unwrapper = spec.wrapped ? new StreamUnwrapper() : undefined;
  }

  /** Sees each chunk before the caller does; unwraps a wrapped root's content in place. */
  observe(chunk: CompletionChunk): void {
    const choice = chunk.choices[0];
    if (!choice) return;
    const content = choice.delta.content;
    if (typeof content === 'string') {
      this.#content += content;
      if (this.#unwrapper) choice.delta.content = this.#unwrapper.next(content);
    }
    if (
      choice.delta.refusal ||
      choice.delta.tool_calls ||
      choice.finish_reason === 'content_filter' ||
      choice.finish_reason === 'tool_calls'
    )
      this.#skip = true;
  }

  /** Throws when the finished answer does not match the schema. */
  finish(): void {
    if (this.#skip) return;
    const check = checkOutput(this.#content, this.#spec, this.#strictForm);
    if (check.ok) return;
    throw new StructuredOutputError(
      `The streamed answer does not match the schema "${this.#spec.name}": ${check.errors.slice(0, 5).join('; ')}.`,
      this.#content,
      check.errors,
      this.#attempts,
    );
  }
}
