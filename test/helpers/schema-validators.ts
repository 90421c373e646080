/** The engines that check answers against their schemas: every structured-output test file runs on each. */
export const SCHEMA_VALIDATORS = ['ajv', 'interpreter'] as const;
