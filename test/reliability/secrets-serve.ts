import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { databasePath } from '../../src/server/index.ts';
import { captureOutput } from '../helpers/capture-output.ts';
import { type Backends, bounded, MODELS } from './harness.ts';
import { providersWithSecrets, SECRETS_TRACE, type SecretScenario } from './secret-scenarios.ts';
import { withoutGoogle } from './secrets-library.ts';
import { readTable, type ServeRig, serveGatewayOptions, startServeRig } from './serve-harness.ts';

/**
 * The secrets table (secret-scenarios.ts) through `switchyard serve`, with known client keys beside the provider
 * keys: each scenario's status, headers, body and SSE events are filed; then what only a server has: refused client
 * keys (revoked, never issued, another server's, none), the call-record API and the workflow page, its log lines, the
 * rows of its SQLite file (client keys only as their SHA-256 in api_keys, next to the display prefix), the raw bytes
 * of that file, and the console, stdout and stderr of the process.
 */
export const SERVE_CAPTURE_MARKER = 'serve-secrets: capture is on';

export interface ServeRun {
  channels: Record<string, string[]>;
  scenarios: string[];
  /** The one in use, another server's, one revoked, one never issued. */
  clientKeys: string[];
}

export async function runSecretsThroughServe(backends: Backends, table: SecretScenario[]): Promise<ServeRun> {
  const channels: Record<string, string[]> = {
    'server log lines': [],
    'response bodies': [],
    'response headers': [],
    'SSE events': [],
    'call-record API and workflow page': [],
    'SQLite calls rows': [],
    'SQLite api_keys rows': [],
    'SQLite deployments rows': [],
    'SQLite file bytes': [],
    'console, stdout, stderr, warnings': [],
  };
  const scenarios: string[] = [];
  const providers = providersWithSecrets(backends);
  const retry = { initialDelayMs: 5, maxDelayMs: 50 };
  const rigs = {
    main: await startServeRig(backends, { gateway: serveGatewayOptions(backends, { providers, retry }) }),
    partial: await startServeRig(backends, {
      gateway: serveGatewayOptions(backends, { providers: withoutGoogle(providers), retry }),
    }),
  };
  const { main, partial } = rigs;
  const revoked = await main.server.keys.create('to revoke');
  await main.server.keys.revoke(revoked.info.id);
  const clientKeys = [main.key, partial.key, revoked.key, `sy-${'Q'.repeat(20)}NEVERissuedCLIENTkey0`];

  /** One request through the server: its status, headers, body and (for streams) each SSE event are filed. */
  const observe = async (rig: ServeRig, name: string, body: unknown, key?: string | null): Promise<number> => {
    scenarios.push(name);
    const response = await bounded(
      rig.post('/v1/chat/completions', body, key === undefined ? {} : { key }),
      10_000,
      name,
    );
    const text = await bounded(response.text(), 10_000, name);
    channels['response bodies']!.push(text);
    channels['response headers']!.push(JSON.stringify([...response.headers]));
    if (response.headers.get('content-type')?.startsWith('text/event-stream'))
      channels['SSE events']!.push(...text.split('\n\n').filter(Boolean));
    return response.status;
  };

  await captureOutput(channels['console, stdout, stderr, warnings']!, async () => {
    console.warn(SERVE_CAPTURE_MARKER);
    for (const scenario of table) {
      scenario.arm?.(backends);
      expect(await observe(rigs[scenario.gateway], scenario.name, scenario.request), scenario.name).toBe(
        scenario.status,
      );
    }
    // Refused client keys: revoked, never issued, another server's, missing.
    const ask = { model: MODELS.openai, messages: [{ role: 'user', content: 'Say hello' }] };
    expect(await observe(main, 'revoked client key', ask, clientKeys[2])).toBe(401);
    expect(await observe(main, 'client key never issued', ask, clientKeys[3])).toBe(401);
    expect(await observe(main, 'a client key of another server', ask, partial.key)).toBe(401);
    expect(await observe(main, 'no client key', ask, null)).toBe(401);

    // What the server shows of its records: the call-record API and the workflow page.
    for (const path of [
      '/v1/calls?limit=1000',
      `/v1/workflows/${SECRETS_TRACE}`,
      '/v1/agents',
      '/v1/costs/daily',
      '/',
    ]) {
      scenarios.push(`GET ${path}`);
      const response = await bounded(fetch(`${main.url}${path}`, { headers: { authorization: `Bearer ${main.key}` } }));
      expect(response.status, path).toBe(200);
      channels['call-record API and workflow page']!.push(await response.text());
    }
    await main.close();
    await partial.close();
  });

  for (const rig of [main, partial]) {
    channels['server log lines']!.push(...rig.logs.map((line) => JSON.stringify(line)));
    channels['SQLite calls rows']!.push(...readTable(rig.dataDir, 'calls').map((row) => JSON.stringify(row)));
    channels['SQLite api_keys rows']!.push(
      ...readTable(rig.dataDir, 'api_keys').map((row) =>
        JSON.stringify({ ...row, hash: Buffer.from(row.hash as Uint8Array).toString('hex') }),
      ),
    );
    channels['SQLite deployments rows']!.push(
      ...readTable(rig.dataDir, 'deployments').map((row) => JSON.stringify(row)),
    );
    for (const suffix of ['', '-wal', '-shm']) {
      const file = `${databasePath(rig.dataDir)}${suffix}`;
      if (existsSync(file)) channels['SQLite file bytes']!.push(readFileSync(file).toString('latin1'));
    }
    await rig.stop();
  }
  return { channels, scenarios, clientKeys };
}
