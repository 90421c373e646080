/** The scenario as a Cloudflare Worker: `GET /?fakes=<json>` runs it and answers the rows as JSON. */
import * as switchyard from 'switchyard-llm';
import { runScenario } from './scenario.ts';

export default {
  async fetch(request: Request): Promise<Response> {
    const fakes = JSON.parse(new URL(request.url).searchParams.get('fakes') ?? '{}');
    return Response.json(await runScenario(switchyard, fakes));
  },
};
