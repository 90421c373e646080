import { StructuredOutputError } from '../errors.ts';
import type { ProviderCompletion } from '../providers/provider.ts';
import {
  checkOutput,
  correctionMessages,
  type OutputCheck,
  type OutputSpec,
} from '../structured-output/output-spec.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { enforceToolArguments } from './enforce-tool-arguments.ts';
import { candidatesOf } from './plan-candidates.ts';
import type { AttemptResult } from './run-attempts.ts';
import { correct, runCompletion } from './run-completion.ts';
import type { Services } from './services.ts';

/**
 * Stage 4, for answers: the answer held to `response_format`. It is extracted, repaired and validated; on a
 * mismatch the model is asked once more with the errors, then `structured_output_fallback` is asked; after that,
 * `StructuredOutputError`. A valid answer's content is the validated JSON, and `message.parsed` holds it.
 */
export async function enforceOutput(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  answered: AttemptResult<ProviderCompletion>,
): Promise<AttemptResult<ProviderCompletion>> {
  const checked = await enforceToolArguments(services, plan, trace, answered);
  const output = plan.output;
  if (!output) return checked;
  let result = checked;
  let check = checkAnswer(result, output);
  if (check && !check.ok) {
    trace.warn({
      code: 'structured_output_retry',
      message: `The answer did not match the schema (${check.errors[0]}); the model was asked to correct it.`,
    });
    const answer = result.value.choices[0]?.message.content;
    result = await correct(services, plan, trace, result, correctionMessages(answer, check.errors));
    check = checkAnswer(result, output);
  }
  const fallback = plan.request.structured_output_fallback;
  if (check && !check.ok && fallback) {
    trace.warn({
      code: 'structured_output_fallback',
      message: `Falling back to ${fallback} for a schema-valid answer.`,
    });
    result = await runCompletion(services, plan, trace, candidatesOf(services, fallback, trace.warn, plan.access));
    check = checkAnswer(result, output);
  }
  if (check && !check.ok) {
    throw new StructuredOutputError(
      `${result.candidate.model.id} did not produce JSON matching the schema "${output.name}": ` +
        `${check.errors.slice(0, 5).join('; ')}.`,
      result.value.choices[0]?.message.content ?? null,
      check.errors,
      trace.attempts,
    );
  }
  return result;
}

/**
 * The check of an answer, or `undefined` when there is nothing to check (a refusal, a tool call, a filtered answer).
 * Whether the answer came in OpenAI's strict form was decided when its request was shaped.
 */
function checkAnswer(result: AttemptResult<ProviderCompletion>, output: OutputSpec): OutputCheck | undefined {
  const choice = result.value.choices[0];
  if (
    !choice ||
    choice.message.refusal ||
    choice.finish_reason === 'content_filter' ||
    choice.message.tool_calls?.length
  )
    return undefined;
  const check = checkOutput(choice.message.content, output, result.shaped?.output?.strictForm ?? false);
  if (check.ok) {
    choice.message.content = check.content;
    choice.message.parsed = check.parsed;
  }
  return check;
}
