import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCallRecord } from '../../src/entries/records.ts';
import { MemorySink, SqliteSink } from '../../src/entries/stores.ts';
import { type CallRecord, SwitchyardError } from '../../src/index.ts';
import { StreamRecorder, ZERO_USAGE } from '../../src/records/index.ts';
import { sendJSON, startFakeHttpServer } from '../fake-servers/http.ts';
import { gatewayAgainst } from '../helpers/openai-env.ts';

const request = { model: 'gpt-4o-latest', messages: [{ role: 'user' as const, content: 'hi' }] };
const completion = (choice: unknown) => ({
  id: 'chatcmpl-odd',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: 'gpt-4o-2024-11-20',
  choices: [choice],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});

/** 200 answers whose first choice is not what the wire format promises. */
const MALFORMED_CHOICES: Array<[string, unknown, RegExp]> = [
  ['no message', { index: 0, finish_reason: 'stop' }, /choices\[0\]\.message is missing/],
  ['message: null', { index: 0, message: null, finish_reason: 'stop' }, /choices\[0\]\.message is null/],
  [
    'tool_calls not an array',
    { index: 0, message: { role: 'assistant', content: null, tool_calls: 'lots' }, finish_reason: 'tool_calls' },
    /tool_calls is a string/,
  ],
  [
    'tool_calls: [null]',
    { index: 0, message: { role: 'assistant', content: null, tool_calls: [null] }, finish_reason: 'tool_calls' },
    /tool_calls\[0\] is null/,
  ],
];

describe('building a record never throws', () => {
  it.each(MALFORMED_CHOICES)(
    'a choice with %s: the record keeps what is known and says what failed',
    (_name, choice, why) => {
      const record = buildCallRecord({ request, startedAt: 0, response: completion(choice) as never });
      expect(record).toMatchObject({
        status: 'ok',
        output: null,
        requested_model: 'gpt-4o-latest',
        usage: { prompt_tokens: 3, completion_tokens: 2 },
      });
      expect(record.input_messages).toEqual(request.messages);
      const note = record.warnings.find((warning) => warning.code === 'record_incomplete');
      expect(note?.message).toMatch(/output: /);
      expect(note?.message).toMatch(why);
    },
  );

  it('usage that is not an object costs only the usage', () => {
    const record = buildCallRecord({
      request,
      startedAt: 0,
      response: { ...completion({ index: 0, message: { role: 'assistant', content: 'ok' } }), usage: 'lots' } as never,
    });
    expect(record.output?.content).toBe('ok');
    expect(record.usage).toEqual(ZERO_USAGE);
  });

  it('stores only string metadata: other values are dropped, and named in a warning', () => {
    const record = buildCallRecord({
      request: {
        ...request,
        metadata: { trace_id: { nested: 1 }, agent_id: 42, workflow_name: 'wf', customer: 'acme', flag: true },
      },
      startedAt: 0,
    });
    expect(record).toMatchObject({
      trace_id: null,
      agent_id: null,
      workflow_name: 'wf',
      metadata: { customer: 'acme' },
    });
    expect(record.warnings).toContainEqual(
      expect.objectContaining({
        code: 'metadata_dropped',
        message: expect.stringMatching(/trace_id: an? object; agent_id: a number; flag: a boolean/),
      }),
    );
    expect(buildCallRecord({ request: { ...request, metadata: ['x'] }, startedAt: 0 }).metadata).toEqual({});
  });

  it('stores ids with lone surrogates as well-formed text, as SQLite and URLs need them', () => {
    const record = buildCallRecord({
      request: { ...request, metadata: { trace_id: 'a\ud800b', agent_id: '\udc00' } },
      startedAt: 0,
    });
    expect(record.trace_id).toBe('a\ufffdb');
    expect(record.agent_id).toBe('\ufffd');
    expect(() => encodeURIComponent(record.trace_id!)).not.toThrow();
  });
});

describe('a stream recorder never throws', () => {
  it('takes what it can from chunks that break the wire format', () => {
    const recorder = new StreamRecorder();
    const chunk = (choices: unknown, usage?: unknown) =>
      ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices, usage }) as never;
    const odd = [
      chunk([{ index: 0, delta: null }]),
      chunk(null),
      chunk('lots', 'lots'),
      chunk([null]),
      chunk([{ index: 0, delta: { content: 5, tool_calls: 'x' } }]),
      chunk([{ index: 0, delta: { tool_calls: [null, { index: 0, function: null }] } }]),
      chunk([
        {
          index: 0,
          delta: {
            content: 'kept',
            tool_calls: [{ index: 1, id: 'call_1', function: { name: 'f', arguments: '{}' } }],
          },
          finish_reason: 'stop',
        },
      ]),
    ];
    for (const piece of odd) expect(() => recorder.observe(piece)).not.toThrow();
    const { output } = recorder.summary();
    expect(output).toMatchObject({ content: 'kept', finish_reason: 'stop' });
    expect(output!.tool_calls.at(-1)).toEqual({
      id: 'call_1',
      type: 'function',
      function: { name: 'f', arguments: '{}' },
    });
  });
});

describe('over-long text is stored cut, with a marker saying how much', () => {
  const long = 'x'.repeat(3_000);
  it('caps answers, reasoning, tool arguments, messages and input at maxTextLength', () => {
    const record = buildCallRecord({
      request: {
        ...request,
        messages: [{ role: 'user', content: [{ type: 'text', text: long }] }],
        input: { doc: long, short: 'ok' },
      },
      startedAt: 0,
      maxTextLength: 1_000,
      response: completion({
        index: 0,
        finish_reason: 'stop',
        message: {
          role: 'assistant',
          content: long,
          reasoning_content: long,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: long } }],
        },
      }) as never,
    });
    const marker = '… [truncated by switchyard: 2000 of 3000 characters not stored]';
    expect(record.output!.content).toBe(`${'x'.repeat(1_000)}${marker}`);
    expect(record.output!.reasoning_content).toBe(`${'x'.repeat(1_000)}${marker}`);
    expect(record.output!.tool_calls[0]!.function.arguments).toBe(`${'x'.repeat(1_000)}${marker}`);
    expect((record.input_messages![0]!.content as Array<{ text: string }>)[0]!.text).toBe(
      `${'x'.repeat(1_000)}${marker}`,
    );
    expect(record.input).toEqual({ doc: `${'x'.repeat(1_000)}${marker}`, short: 'ok' });
    expect(record.warnings).toContainEqual(
      expect.objectContaining({
        code: 'record_truncated',
        message: expect.stringContaining(
          'input_messages[0].content[0].text; input.doc; output.content; output.reasoning_content; ' +
            'output.tool_calls[0].function.arguments',
        ),
      }),
    );
  });

  it('keeps 200 levels of a deeply nested value, so every sink can write it (found by serve-fuzz)', async () => {
    // Deep enough that a sink's JSON.stringify, deeper in the stack than the copy, may overflow where the copy did not.
    let deep: unknown = 'bottom';
    for (let level = 0; level < 3_000; level++) deep = { a: deep };
    const record = buildCallRecord({ request: { model: 'm', messages: [], input: deep }, startedAt: 0 });
    expect(() => JSON.stringify(record)).not.toThrow();
    let level = 0;
    for (
      let value = record.input as Record<string, unknown>;
      typeof value === 'object';
      value = value.a as Record<string, unknown>
    )
      level += 1;
    expect(level).toBe(200);
    expect(record.warnings).toContainEqual({
      code: 'record_truncated',
      message: 'Values nested deeper than 200 levels replaced by a marker: input.',
    });
    const sink = new SqliteSink(':memory:');
    await expect(sink.write([record])).resolves.toBeUndefined();
    sink.close();
  });

  it('never splits a surrogate pair, and keeps text at the limit whole', () => {
    const short = { model: 'm', messages: [] };
    const emoji = `${'a'.repeat(9)}😀rest`;
    expect(
      buildCallRecord({
        request: short,
        startedAt: 0,
        maxTextLength: 10,
        response: completion({ index: 0, message: { content: emoji } }) as never,
      }).output!.content,
    ).toBe(`${'a'.repeat(9)}… [truncated by switchyard: 6 of 15 characters not stored]`);
    const exact = 'y'.repeat(10);
    const record = buildCallRecord({
      request: short,
      startedAt: 0,
      maxTextLength: 10,
      response: completion({ index: 0, message: { content: exact } }) as never,
    });
    expect(record.output!.content).toBe(exact);
    expect(record.warnings).toEqual([]);
  });

  it('defaults to 1,000,000 characters per field, through the gateway', async () => {
    const server = await startFakeHttpServer((_request, response) =>
      sendJSON(
        response,
        200,
        completion({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'z'.repeat(1_500_000) } }),
      ),
    );
    const sink = new MemorySink();
    const gateway = gatewayAgainst(`${server.origin}/v1`, { records: { sinks: [sink] } });
    try {
      const answer = await gateway.createCompletion(request);
      expect(answer.choices[0]!.message.content).toHaveLength(1_500_000);
      await gateway.flush();
      const [record] = sink.records();
      expect(record!.output!.content).toHaveLength(
        1_000_000 + '… [truncated by switchyard: 500000 of 1500000 characters not stored]'.length,
      );
      expect(record!.output!.content!.endsWith('500000 of 1500000 characters not stored]')).toBe(true);
    } finally {
      await gateway.close();
      await server.close();
    }
  });
});

describe('a malformed provider answer through the gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-robust-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never kills the process: every call ends in an answer or a typed error, and has a record', async () => {
    let next = 0;
    const server = await startFakeHttpServer((_request, response) =>
      sendJSON(response, 200, completion(MALFORMED_CHOICES[next++ % MALFORMED_CHOICES.length]![1])),
    );
    const sink = new SqliteSink(join(dir, 'calls.sqlite'));
    const gateway = gatewayAgainst(`${server.origin}/v1`, { records: { sinks: [sink] }, retry: { maxRetries: 0 } });
    try {
      const ids: string[] = [];
      let answered = 0;
      for (let index = 0; index < MALFORMED_CHOICES.length; index++) {
        try {
          ids.push((await gateway.createCompletion(request)).switchyard.call_id);
          answered += 1;
        } catch (error) {
          expect(error).toBeInstanceOf(SwitchyardError);
          ids.push((error as SwitchyardError).callId!);
        }
      }
      await gateway.flush();
      const records = await Promise.all(
        ids.map(async (id) => (await gateway.calls.list({ limit: 10 })).data.find((record) => record.id === id)),
      );
      expect(records.every(Boolean)).toBe(true);
      // Answers that reached the caller are recorded in part, and counted; refused ones are error records.
      const incomplete = (records as CallRecord[]).filter((record) =>
        record.warnings.some((warning) => warning.code === 'record_incomplete'),
      );
      expect(incomplete).toHaveLength(answered);
      expect(gateway.recordStats).toMatchObject({
        build_failed: answered,
        written: MALFORMED_CHOICES.length,
        failed: 0,
      });
    } finally {
      await gateway.close();
      await server.close();
    }
  });
});
