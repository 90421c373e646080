import { ToolArgumentsError } from '../errors.ts';
import type { StreamRecorder } from '../records/stream-recorder.ts';
import { StreamedOutputCheck } from '../structured-output/apply-output-spec.ts';
import { checkToolCalls } from '../structured-output/tool-arguments.ts';
import type { CompletionChunk } from '../types.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import type { OpenedStream } from './open-stream.ts';
import type { AttemptResult } from './run-attempts.ts';

/** What a stream's end is held to, for the relay: chunks seen as they pass, a verdict when the stream ends. */
export interface StreamCheck {
  observe(chunk: CompletionChunk): void;
  finish(): void;
}

/**
 * The checks at a stream's end: the answer against `response_format`, and the tool calls' arguments against their
 * tools' parameters. A stream cannot be asked again: a mismatch in the arguments ends it with `ToolArgumentsError`
 * under `tool_call_validation: "error"`, else it is a `tool_arguments_invalid` warning on the call.
 */
export function streamChecks(
  plan: CallPlan,
  trace: CallTrace,
  opened: AttemptResult<OpenedStream>,
  observed: StreamRecorder,
): StreamCheck | undefined {
  const output =
    plan.output && new StreamedOutputCheck(plan.output, trace.attempts, opened.shaped?.output?.strictForm ?? false);
  const mode = plan.request.tool_call_validation ?? 'warn';
  const tools = mode === 'off' ? undefined : plan.request.tools;
  if (!output && !tools?.length) return undefined;
  const strictTools = opened.shaped?.strictTools ?? new Set<string>();
  return {
    observe: (chunk) => output?.observe(chunk),
    finish: () => {
      output?.finish();
      if (!tools?.length) return;
      // Its own copies (a check may rewrite arguments it repairs; the record keeps them as streamed), no full summary.
      const calls = observed.toolCalls();
      if (calls.length === 0) return;
      const message = { role: 'assistant' as const, content: null, refusal: null, tool_calls: calls };
      const { errors } = checkToolCalls(message as never, tools, strictTools, plan.schemaValidator);
      if (errors.length === 0) return;
      const summary =
        `${opened.candidate.model.id} streamed tool calls whose arguments do not match their parameters: ` +
        `${errors.slice(0, 5).join('; ')}.`;
      if (mode === 'error') throw new ToolArgumentsError(summary, errors, trace.attempts);
      trace.warn({ code: 'tool_arguments_invalid', message: summary });
    },
  };
}
