import { createGateway } from 'switchyard-llm';

/**
 * Calls as an application makes them, in a process of its own (on another Node.js, or with a preload). Each argument
 * is `<model>:<wire|sdk>[:stream]`; prints each call's outcome as one JSON line: the answer's text (`name: 'none'`),
 * or what it threw: class, status, code and message.
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
    let content = '';
    if (mode === 'stream')
      for await (const chunk of await gateway.createCompletion({ ...request, stream: true }))
        content += chunk.choices[0]?.delta.content ?? '';
    else content = (await gateway.createCompletion(request)).choices[0]?.message.content ?? '';
    console.log(JSON.stringify({ call, name: 'none', content }));
  } catch (error) {
    const { name, status, code, message } = error as { name: string; status: number; code: string; message: string };
    console.log(JSON.stringify({ call, name, status, code, message }));
  }
}
