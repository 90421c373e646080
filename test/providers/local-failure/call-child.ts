import { createGateway } from 'switchyard-llm';

/**
 * Calls as an application makes them, in a process of its own (the test preloads what it needs there). Each argument
 * is `<model>:<wire|sdk>[:stream]`; prints what each call threw as one JSON line: class, status, code and message.
 */
for (const call of process.argv.slice(2)) {
  const [model = '', transport = 'wire', mode] = call.split(':');
  const gateway = createGateway({
    env: process.env as Record<string, string>,
    transport: transport as 'wire' | 'sdk',
    retry: { maxRetries: 0 },
  });
  try {
    const request = { model, messages: [{ role: 'user' as const, content: 'hi' }] };
    if (mode === 'stream') for await (const _ of await gateway.createCompletion({ ...request, stream: true })) void _;
    else await gateway.createCompletion(request);
    console.log(JSON.stringify({ call, name: 'none' }));
  } catch (error) {
    const { name, status, code, message } = error as { name: string; status: number; code: string; message: string };
    console.log(JSON.stringify({ call, name, status, code, message }));
  }
}
