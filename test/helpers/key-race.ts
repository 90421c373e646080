import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Minting keys over MCP against real servers, racing a revocation; what survives it. */

export const root = resolve(import.meta.dirname, '../..');
export const node = join(root, 'node_modules/.bin/node');
export const cli = join(root, 'src/cli.ts');

export async function connectMcp(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'key-race', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

export type Minted =
  | { ok: true; key: string; id: string }
  | { ok: false; text: string /** The caller's key itself refused (HTTP 401), not the mint. */; refused: boolean };

/** One `create_api_key` call: the new key, or why not (a tool error, or the HTTP refusal of the caller's key). */
export async function mint(client: Client, args: Record<string, unknown> = {}): Promise<Minted> {
  try {
    const result = (await client.callTool({ name: 'create_api_key', arguments: args })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    const text = result.content[0]?.text ?? '';
    if (result.isError) return { ok: false, text, refused: false };
    const { key, id } = JSON.parse(text) as { key: string; id: string };
    return { ok: true, key, id };
  } catch (error) {
    return { ok: false, text: String(error), refused: (error as { code?: unknown }).code === 401 };
  }
}

/**
 * Each minter mints in a loop; `revoke` starts once a few keys are minted. A loop goes on after the revocation
 * returned until the server refuses its key (401: the server's trust in it ended). Every key minted.
 */
export async function raceRevoke(
  minters: Array<{ url: string; key: string }>,
  revoke: () => Promise<unknown>,
): Promise<Array<{ key: string; id: string }>> {
  const minted: Array<{ key: string; id: string }> = [];
  const clients = await Promise.all(minters.map(({ url, key }) => connectMcp(url, key)));
  let revoked = false;
  let started: () => void = () => {};
  const enough = new Promise<void>((resolve) => (started = resolve));
  const deadline = performance.now() + 60_000;
  const loops = clients.map(async (client) => {
    for (;;) {
      if (performance.now() > deadline) throw new Error('a minting loop never stopped');
      const result = await mint(client, { name: 'racer' });
      if (result.ok) {
        minted.push({ key: result.key, id: result.id });
        if (minted.length >= minters.length) started();
      } else if (revoked && result.refused) return;
    }
  });
  try {
    await enough;
    await revoke();
    revoked = true;
    await Promise.all(loops);
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  }
  return minted;
}

/** How many of `keys` some server still accepts: anything but 401 (a 403 for a scope the key lacks is a key). */
export async function stillAccepted(urls: string[], keys: string[]): Promise<number> {
  let accepted = 0;
  for (const key of keys) {
    for (const url of urls) {
      const response = await fetch(`${url}/v1/deployments`, { headers: { authorization: `Bearer ${key}` } });
      await response.body?.cancel();
      if (response.status !== 401) {
        accepted++;
        break;
      }
    }
  }
  return accepted;
}

/** `switchyard serve --mock` as a child process on `dataDir`: its URL, and a stop. */
export async function serveProcess(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(node, [cli, 'serve', '--mock', '--port', '0', '--data', dataDir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((done) => child.once('exit', done));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 20_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const line = stderr.split('\n').find((each) => each.includes('"msg":"listening"'));
      if (!line) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
