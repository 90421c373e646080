import type { JsonSchema } from '../structured-output/json-schema-validator.ts';
import { isRecord } from '../structured-output/schema-shape.ts';
import { templateVariables } from '../templates.ts';
import type { DeploymentVersion } from './deployment.ts';
import { outputSchemaBreaks } from './output-compatibility.ts';

/**
 * What would break the callers of `before` if they were moved to `after`, one line each, empty when nothing does.
 * Input: every `{{variable}}` of the prompt is required, so a variable `before` did not use is one callers do not
 * send (`a.b` is sent when `before` used `a.b` or `a.b.c`, not when it used only `a`); a version without a prompt
 * makes callers send `messages`. Output: see `outputSchemaBreaks`; losing the output schema breaks every field.
 * Model and settings changes break no caller's code, so they are not compared.
 */
export function compatibilityBreaks(before: DeploymentVersion, after: DeploymentVersion): string[] {
  return [...inputBreaks(before, after), ...outputBreaks(before, after)];
}

function inputBreaks(before: DeploymentVersion, after: DeploymentVersion): string[] {
  const breaks: string[] = [];
  if (before.messages.length > 0 && after.messages.length === 0)
    breaks.push('messages: the new version stores no prompt, so callers would have to send messages');
  const sent = templateVariables(before.messages);
  for (const variable of templateVariables(after.messages)) {
    const covered = sent.some((known) => known === variable || known.startsWith(`${variable}.`));
    if (!covered) breaks.push(`input.${variable}: a new required variable ({{${variable}}}) that callers do not send`);
  }
  return breaks;
}

function outputBreaks(before: DeploymentVersion, after: DeploymentVersion): string[] {
  const schemaBefore = outputSchemaOf(before);
  if (!schemaBefore) return [];
  const schemaAfter = outputSchemaOf(after);
  if (!schemaAfter) return ['output: the new version has no output schema, so answers are no longer structured'];
  return outputSchemaBreaks(schemaBefore, schemaAfter);
}

/** The schema answers follow: `output_schema`, or a stored `response_format` of type json_schema. */
export function outputSchemaOf(version: DeploymentVersion): JsonSchema | undefined {
  if (version.output_schema) return version.output_schema.json_schema;
  const format: unknown = version.response_format;
  if (!isRecord(format) || format.type !== 'json_schema' || !isRecord(format.json_schema)) return undefined;
  return isRecord(format.json_schema.schema) ? format.json_schema.schema : undefined;
}
