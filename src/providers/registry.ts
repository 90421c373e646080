import { InvalidRequestError } from '../errors.ts';
import { anthropicProvider } from './anthropic/definition.ts';
import { azureProvider } from './azure/definition.ts';
import { bedrockProvider } from './bedrock/definition.ts';
import { googleProvider } from './google/definition.ts';
import { openAIFamilyProviders } from './openai/family.ts';
import type { ProviderDefinition, ProviderSettings } from './provider.ts';
import { vertexProvider } from './vertex/definition.ts';

/** The settings a definition takes beside the shared ones. */
type OwnSettingsOf<Definition> = Definition extends ProviderDefinition<infer Own> ? Own : never;

/** The built-in providers that take settings of their own, and those settings. */
interface OwnSettings {
  azure: OwnSettingsOf<typeof azureProvider>;
  bedrock: OwnSettingsOf<typeof bedrockProvider>;
  vertex: OwnSettingsOf<typeof vertexProvider>;
}

type BuiltInSettings = {
  [Id in keyof OwnSettings]?:
    | (ProviderSettings & OwnSettings[Id] & { definition?: ProviderDefinition | undefined })
    | undefined;
};

/**
 * Every provider's own settings together. TypeScript checks an object literal's every property against the index
 * signature too, so it must take the built-in providers' own settings; the named properties keep each to its own.
 */
type AnyOwnSettings = Partial<OwnSettings['azure'] & OwnSettings['bedrock'] & OwnSettings['vertex']>;

/**
 * The settings of each provider, by id: the shared ones, plus a built-in provider's own (`providers.azure.apiVersion`,
 * `providers.bedrock.region`, …), plus the `definition` of a provider of your own.
 */
export interface ProvidersSettings extends BuiltInSettings {
  // `| undefined`: a consumer without exactOptionalPropertyTypes reads `azure?:` as `… | undefined`, which the index
  // signature must hold too.
  [id: string]: (ProviderSettings & AnyOwnSettings & { definition?: ProviderDefinition | undefined }) | undefined;
}

/** Every provider Switchyard ships, each defined in its own folder. */
export const builtInProviders: readonly ProviderDefinition[] = [
  ...openAIFamilyProviders,
  azureProvider,
  anthropicProvider,
  googleProvider,
  bedrockProvider,
  vertexProvider,
];

/**
 * Provider names the `model` parameter reads as `<provider>/…` although no definition has them yet: names the
 * catalog's data uses for clouds this version cannot call, and the simulator's.
 */
const RESERVED_NAMES = ['mock'];

/** The providers of one gateway: the built-in ones, and any the caller defined (which may replace a built-in). */
export class ProviderRegistry {
  readonly #byId = new Map<string, ProviderDefinition>();
  /** Names read as `<provider>/` prefixes in the `model` parameter. */
  readonly reservedNames: ReadonlySet<string>;

  constructor(definitions: readonly ProviderDefinition[]) {
    for (const definition of definitions) this.#byId.set(definition.id, definition);
    this.reservedNames = new Set([...this.#byId.keys(), ...RESERVED_NAMES]);
  }

  get(id: string): ProviderDefinition | undefined {
    return this.#byId.get(id);
  }

  get definitions(): IterableIterator<ProviderDefinition> {
    return this.#byId.values();
  }
}

/** The registry of the built-in providers alone. */
export const builtInRegistry = new ProviderRegistry(builtInProviders);

/** Names reserved as `<provider>/` prefixes by the built-in providers. */
export const reservedProviderNames: ReadonlySet<string> = builtInRegistry.reservedNames;

/** The built-in providers and those the caller defined in `providers`. */
export function everyProvider(providers: ProvidersSettings | undefined): ProviderDefinition[] {
  return [...builtInProviders, ...providersDefinedIn(providers)];
}

/** Providers the caller defined in `providers`, each under its own id. */
function providersDefinedIn(providers: ProvidersSettings | undefined): ProviderDefinition[] {
  return Object.entries(providers ?? {}).flatMap(([id, settings]) => {
    const definition = settings?.definition;
    if (!definition) return [];
    if (definition.id !== id) {
      throw new InvalidRequestError(
        `providers.${id} holds the definition of "${definition.id}"; put it under providers["${definition.id}"].`,
        `providers.${id}`,
      );
    }
    return [definition];
  });
}
