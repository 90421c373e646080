import { SwitchyardError } from '../../errors.ts';
import type { Gateway } from '../../gateway.ts';
import { experimentCaller } from '../experiment-caller.ts';
import { htmlReply } from '../page/html-reply.ts';
import { renderExperimentList, renderExperimentNotFound, renderExperimentPage } from '../page/render-experiment.ts';
import type { Route } from '../router.ts';

const LISTED = 50;

/**
 * `GET /experiments[?agent_id=&cursor=]` and `GET /experiments/<id>`: the experiment view of the workflow page,
 * from `gateway.experiments` with the key's rules (`experimentCaller`); one the key does not read is a 404.
 */
export function experimentPageRoutes(gateway: Pick<Gateway, 'experiments'>, mock: boolean): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/experiments\/?$/,
      auth: 'page',
      checkHost: true,
      async handle({ request, access }) {
        const query: { agent_id?: string; limit: number; cursor?: string } = { limit: LISTED };
        const agentId = request.query.get('agent_id');
        const cursor = request.query.get('cursor');
        if (agentId) query.agent_id = agentId;
        if (cursor) query.cursor = cursor;
        const list = await gateway.experiments.list(query, experimentCaller(access));
        return htmlReply(200, renderExperimentList(list, { mock }));
      },
    },
    {
      method: 'GET',
      path: /^\/experiments\/([^/]+)$/,
      auth: 'page',
      checkHost: true,
      async handle({ params, access }) {
        const id = params[0] ?? '';
        try {
          const experiment = await gateway.experiments.get(id, {}, experimentCaller(access));
          return htmlReply(200, renderExperimentPage(experiment, { mock }));
        } catch (error) {
          if (error instanceof SwitchyardError && error.status === 404)
            return htmlReply(404, renderExperimentNotFound(id, { mock }));
          throw error;
        }
      },
    },
  ];
}
