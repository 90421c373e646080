import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSchema, type JsonSchema } from '../src/structured-output/json-schema-validator.ts';
import { startTestServer, type TestServer } from './server/start-test-server.ts';

/**
 * Agent frameworks' loops against `switchyard serve --mock`, each sending the requests its library sends (pydantic-ai's
 * output tool and PromptedOutput, instructor's JSON, MD_JSON, JSON_SCHEMA and TOOLS modes): the simulator must answer
 * as a model would, so each loop ends with an output its library accepts.
 */
let server: TestServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startTestServer();
  client = server.openai();
});
afterAll(() => server.stop());

const MODEL = 'gpt-4o-latest';
const object = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});
const weatherReport = object({ city: { type: 'string' }, summary: { type: 'string' }, celsius: { type: 'number' } });
const userDetail: JsonSchema = {
  $defs: {
    Address: {
      properties: { city: { title: 'City', type: 'string' }, country: { title: 'Country', type: 'string' } },
      required: ['city', 'country'],
      title: 'Address',
      type: 'object',
    },
  },
  properties: {
    name: { title: 'Name', type: 'string' },
    age: { title: 'Age', type: 'integer', minimum: 0 },
    address: { $ref: '#/$defs/Address' },
  },
  required: ['name', 'age', 'address'],
  title: 'UserDetail',
  type: 'object',
};

/** The value, after checking it is an instance of the schema. */
function instanceOf(schema: JsonSchema, value: unknown): unknown {
  const validator = compileSchema(schema);
  expect(validator.validate(value), validator.errors().join('; ')).toBe(true);
  return value;
}

const functionTool = (name: string, description: string, parameters: JsonSchema): ChatCompletionFunctionTool => ({
  type: 'function',
  function: { name, description, parameters, strict: true },
});
/** pydantic-ai's output tool, as its OpenAI model sends it. */
const finalResult = functionTool('final_result', 'The final response which ends this conversation', weatherReport);
const getWeather = functionTool('get_weather', 'Get the weather for a city.', object({ city: { type: 'string' } }));

/**
 * pydantic-ai's agent graph with tool output: `tool_choice: "required"` while text is not an allowed output, each
 * function call answered with a `tool` message, the run ended by a call of the output tool. Bounded: a simulator
 * that never calls the output tool fails here instead of looping.
 */
async function runPydanticAgent(tools: ChatCompletionFunctionTool[], prompt: string) {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a weather assistant.' },
    { role: 'user', content: prompt },
  ];
  const called: string[] = [];
  for (let requests = 1; requests <= 6; requests++) {
    const request: ChatCompletionCreateParamsNonStreaming = {
      model: MODEL,
      messages,
      n: 1,
      tools,
      tool_choice: 'required',
      stream: false,
    };
    const message = (await client.chat.completions.create(request)).choices[0]!.message;
    const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
    expect(calls.length).toBeGreaterThan(0);
    called.push(...calls.map((call) => call.function.name));
    const output = calls.find((call) => call.function.name === 'final_result');
    if (output) return { output: JSON.parse(output.function.arguments), requests, called };
    messages.push({ role: 'assistant', tool_calls: calls });
    for (const call of calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: `{"city":"Paris","sky":"clear","celsius":21}` });
  }
  throw new Error(`the agent never ended; it called ${called.join(', ')}`);
}

describe('pydantic-ai', () => {
  it('a tool, then the output tool: the run ends once the tool has answered', async () => {
    const run = await runPydanticAgent([getWeather, finalResult], 'What is the weather in Paris?');
    expect(run.called).toEqual(['get_weather', 'final_result']);
    instanceOf(weatherReport, run.output);
  });

  it('the output tool alone: the first request ends the run', async () => {
    const run = await runPydanticAgent([finalResult], 'Describe the weather in Paris.');
    expect(run.requests).toBe(1);
    instanceOf(weatherReport, run.output);
  });

  it('picks the tool the request is about, then not the one whose result it just got', async () => {
    const tools = [
      functionTool('get_time', 'The local time.', object({ city: { type: 'string' } })),
      getWeather,
      functionTool('get_news', 'Headlines.', object({})),
    ];
    const first = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'How is the weather in Oslo?' }],
      tools,
      tool_choice: 'required',
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    const second = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'How is the weather in Oslo?' },
        { role: 'assistant', tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'rain' },
      ],
      tools,
      tool_choice: 'required',
    });
    const next = second.choices[0]!.message.tool_calls![0]!;
    expect(next.type === 'function' && next.function.name).toBe('get_time');
  });

  it('PromptedOutput: the schema in the instructions, json_object, answered with an instance', async () => {
    const instructions =
      "Always respond with a JSON object that's compatible with this schema:\n\n" +
      `${JSON.stringify(weatherReport)}\n\nDon't include any text or Markdown fencing before or after.\n`;
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: instructions },
        { role: 'user', content: 'Weather in Lima?' },
      ],
      n: 1,
      response_format: { type: 'json_object' },
    });
    instanceOf(weatherReport, JSON.parse(completion.choices[0]!.message.content!));
  });
});

/** instructor's system message of its JSON and MD_JSON modes: the schema indented, as `json.dumps(indent=2)`. */
const instructorSystem =
  '\nAs a genius expert, your task is to understand the content and provide\nthe parsed objects in json that match ' +
  `the following json_schema:\n\n\n${JSON.stringify(userDetail, null, 2)}\n\nMake sure to return an instance of ` +
  'the JSON, not the schema itself\n';
const extract = 'Extract: Jason is 25 years old and lives in Paris, France.';

describe('instructor', () => {
  it('JSON mode: the schema in the system message and json_object, answered with an instance', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: instructorSystem },
        { role: 'user', content: extract },
      ],
      response_format: { type: 'json_object' },
    });
    instanceOf(userDetail, JSON.parse(completion.choices[0]!.message.content!));
  });

  it('MD_JSON mode: no response_format, answered in the ```json block the last message asks for', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: instructorSystem },
        {
          role: 'user',
          content: `${extract}\n\nReturn the correct JSON response within a \`\`\`json codeblock. not the JSON_SCHEMA`,
        },
      ],
    });
    const content = completion.choices[0]!.message.content!;
    // instructor's own extraction: the text between the fences.
    const fenced = /```(?:json)?(.*?)```/s.exec(content);
    expect(fenced, content).not.toBeNull();
    instanceOf(userDetail, JSON.parse(fenced![1]!));
  });

  it('JSON_SCHEMA mode: json_object with the schema beside it, answered with an instance', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: extract }],
      response_format: { type: 'json_object', schema: userDetail } as never,
    });
    instanceOf(userDetail, JSON.parse(completion.choices[0]!.message.content!));
  });

  it('TOOLS mode: the response model as a forced tool, called with an instance', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: extract }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'UserDetail',
            description: 'Correctly extracted `UserDetail` with all the required parameters with correct types',
            parameters: userDetail,
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'UserDetail' } },
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('UserDetail');
    instanceOf(userDetail, JSON.parse(call.type === 'function' ? call.function.arguments : ''));
  });
});
