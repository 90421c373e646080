import { ToolArgumentsError } from '../errors.ts';
import type { ProviderCompletion } from '../providers/provider.ts';
import { checkToolCalls, type ToolCallCheck, toolCorrectionMessages } from '../structured-output/tool-arguments.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import type { AttemptResult } from './run-attempts.ts';
import { correct } from './run-completion.ts';
import type { Services } from './services.ts';

/**
 * Part of stage 4, for answers that call tools: each call's arguments repaired and validated against its tool's
 * `parameters`; on a mismatch the model is asked once more with the problems; then, per `tool_call_validation`,
 * a `ToolArgumentsError` (`"error"`) or a warning (`"warn"`, the default). `"off"` skips the check.
 */
export async function enforceToolArguments(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
  answered: AttemptResult<ProviderCompletion>,
): Promise<AttemptResult<ProviderCompletion>> {
  const mode = plan.request.tool_call_validation ?? 'warn';
  if (mode === 'off' || !plan.request.tools?.length) return answered;
  let result = answered;
  let check = checkAnswer(plan, trace, result);
  if (check?.errors.length) {
    trace.warn({
      code: 'tool_arguments_retry',
      message: `A tool call's arguments did not match its parameters (${check.errors[0]}); the model was asked again.`,
    });
    const message = result.value.choices[0]!.message;
    result = await correct(services, plan, trace, result, toolCorrectionMessages(message, check.errors));
    check = checkAnswer(plan, trace, result);
  }
  if (!check?.errors.length) return result;
  const summary =
    `${result.candidate.model.id} called tools with arguments that do not match their parameters: ` +
    `${check.errors.slice(0, 5).join('; ')}.`;
  if (mode === 'error') throw new ToolArgumentsError(summary, check.errors, trace.attempts);
  trace.warn({ code: 'tool_arguments_invalid', message: summary });
  return result;
}

function checkAnswer(
  plan: CallPlan,
  trace: CallTrace,
  result: AttemptResult<ProviderCompletion>,
): ToolCallCheck | undefined {
  const message = result.value.choices[0]?.message;
  if (!message?.tool_calls?.length) return undefined;
  const check = checkToolCalls(
    message,
    plan.request.tools,
    result.shaped?.strictTools ?? new Set(),
    plan.schemaValidator,
  );
  for (const name of check.repaired)
    trace.warn({
      code: 'tool_arguments_repaired',
      message: `The arguments of a call to ${name} were repaired to JSON.`,
    });
  return check;
}
