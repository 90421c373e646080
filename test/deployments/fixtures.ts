import type { Deployment } from '../../src/deployments/index.ts';

/** A valid deployment of the recommended id shape; `overrides` replace top-level fields, `version` fields merge. */
export function makeDeployment(
  parts: { agent_id?: string; environment?: Deployment['environment']; number?: number; id?: string } = {},
  version: Partial<Deployment['version']> = {},
  extra: Partial<Omit<Deployment, 'version'>> = {},
): Deployment {
  const agent_id = parts.agent_id ?? 'support';
  const environment = parts.environment ?? 'production';
  const number = parts.number ?? 1;
  return {
    id: parts.id ?? `${agent_id}:${environment}#${number}`,
    agent_id,
    environment,
    number,
    version: {
      model: 'gpt-4o-latest',
      messages: [
        { role: 'system', content: 'You answer support tickets for {{product}}.' },
        { role: 'user', content: '{{ticket}}' },
      ],
      ...version,
    },
    created_at: `2025-10-${String(Math.min(number, 28)).padStart(2, '0')}T12:00:00Z`,
    ...extra,
  };
}
