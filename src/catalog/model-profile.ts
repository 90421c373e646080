import type { ModelEntry, ModelSupports } from './catalog-schema.ts';

/**
 * What Switchyard assumes of a model the catalog does not list (`<provider>/<any id>`), at one provider. Every
 * `supports` flag is on, so the caller's parameters reach the provider untouched instead of being gated; the
 * provider then accepts or refuses them itself. The limits are guesses, used only where a provider needs a number
 * the caller did not give (Anthropic's required `max_tokens`, thinking budgets from an effort).
 */
export type ModelProfile = Pick<ModelEntry, 'context_window' | 'max_output_tokens' | 'supports' | 'reasoning'>;

/** Every flag on: nothing is gated. */
export const SUPPORTS_EVERYTHING: Readonly<ModelSupports> = Object.freeze({
  reasoning: true,
  structured_outputs: true,
  json_mode: true,
  tools: true,
  parallel_tool_calls: true,
  images: true,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: true,
});

/**
 * The profile of providers that speak OpenAI's API (and of your own providers, unless they give one): reasoning as
 * `reasoning_effort`, with every level OpenAI defines passed as written.
 */
export const OPENAI_STYLE_PROFILE: ModelProfile = Object.freeze<ModelProfile>({
  context_window: 128_000,
  max_output_tokens: 32_768,
  supports: SUPPORTS_EVERYTHING,
  reasoning: { control: 'effort', can_disable: true, efforts: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] },
});

/** A model entry for `id`, served by `provider` under that same name at a price nobody knows. */
export function uncataloguedModel(id: string, provider: string, profile: ModelProfile): ModelEntry {
  return {
    id,
    name: id,
    maker: provider,
    release_date: '1970-01-01',
    ...profile,
    providers: [{ provider, model: id }],
  };
}
