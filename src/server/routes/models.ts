import type { Modality } from '../../catalog/media-schema.ts';
import { parseModelReference } from '../../completion/parse-model.ts';
import { ModelNotFoundError } from '../../errors.ts';
import type { Gateway } from '../../gateway.ts';
import { reservedProviderNames } from '../../providers/registry.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';
import { answeredAsAnthropic, anthropicModel, anthropicModelPage, wantsAnthropicShape } from './anthropic-models.ts';

/**
 * `GET /v1/models[?reasoning=true][&output_modality=image]` and `GET /v1/models/{id}`: the catalog as
 * `gateway.listModels()` gives it, the chat models under `data` and the media models under `media`. No key.
 * A request with `anthropic-version` (Anthropic's SDKs) gets Anthropic's shapes: `ModelInfo`, pages of them.
 */
export function modelRoutes(gateway: Gateway): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/v1\/models$/,
      auth: 'none',
      async handle({ request }) {
        if (wantsAnthropicShape(request))
          return answeredAsAnthropic(async () => json(anthropicModelPage(gateway.listModels().data, request.query)));
        const output = modalityParam(request.query);
        // The media models beside the chat models (none when only reasoning models are asked for).
        const list = gateway.listModels({ reasoning: booleanParam(request.query, 'reasoning') ?? false, ...output });
        return json({ ...list, media: list.media ?? [] });
      },
    },
    {
      // Ids hold dots and colons. Everything after /v1/models/ is read as the chat `model` parameter is:
      // `openai/gpt-4o` (or `openai%2Fgpt-4o`) and `<agent_id>/<model>` name the catalog model they call. A model
      // outside the catalog has no facts to show: 404, although a chat call to `<provider>/<id>` reaches it.
      method: 'GET',
      path: /^\/v1\/models\/(.+)$/,
      auth: 'none',
      async handle({ request, params: [id = ''] }) {
        if (!wantsAnthropicShape(request)) return json(modelById(gateway, id));
        return answeredAsAnthropic(async () => json(anthropicModel(modelById(gateway, id))));
      },
    },
  ];
}

/** The listed model an id, alias or `model` reference names; a 404 for any other. */
function modelById(gateway: Gateway, id: string): ReturnType<Gateway['listModels']>['data'][number] {
  const models = gateway.listModels().data;
  // The catalog lists aliases (gpt-4o-latest) as models of their own: the name asked for wins over its target.
  const listed = (name: string) => {
    const entry = gateway.catalog.find(name);
    const byId = (wanted: string) => models.find((candidate) => candidate.id === wanted);
    return byId(name) ?? (entry && byId(entry.id));
  };
  const referenced = listed(id) ? undefined : referencedModel(gateway, id);
  const model = listed(id) ?? (referenced === undefined ? undefined : listed(referenced));
  if (!model) throw new ModelNotFoundError(id, gateway.catalog.suggest(id));
  return model;
}

/**
 * The catalog model a `model` reference (`<provider>/<model>`, `<agent_id>/<model>`) names, as a chat call resolves
 * it (a provider's own name for a model included); `undefined` for a deployment or a model outside the catalog.
 */
function referencedModel(gateway: Gateway, reference: string): string | undefined {
  const parsed = parseModelReference(reference, reservedProviderNames);
  if (parsed.kind !== 'model') return undefined;
  if (gateway.catalog.find(parsed.model)) return parsed.model;
  return parsed.provider === undefined ? undefined : gateway.catalog.findOffering(parsed.provider, parsed.model)?.id;
}

/** `?output_modality=text|image|audio`: only the models that give it. */
function modalityParam(query: URLSearchParams): { output_modality?: Modality } {
  const value = query.get('output_modality');
  if (value === null || value === '') return {};
  if (value === 'text' || value === 'image' || value === 'audio') return { output_modality: value };
  throw new HttpError(400, '"output_modality" must be text, image or audio.', {
    param: 'output_modality',
    code: 'invalid_parameter',
  });
}

/** `true`/`1`, `false`/`0`, or absent. */
function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new HttpError(400, `"${name}" must be true or false.`, { param: name, code: 'invalid_parameter' });
}
