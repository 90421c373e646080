import type { Catalog } from '../catalog/catalog.ts';
import type { ModelDeprecation } from '../catalog/model-lifecycle.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import type { ProviderSettings } from '../providers/provider.ts';
import type { ProviderLookup } from '../providers/provider-pool.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { CallRecorder } from '../records/call-recorder.ts';
import type { HedgeSetting } from '../types.ts';
import type { StreamTimeouts } from './open-stream.ts';
import type { Routing } from './route-offerings.ts';
import type { RetryPolicy } from './run-attempts.ts';
import type { BudgetStage, ResponseCacheStage } from './stages.ts';

/** What the stages of a call use from their gateway: built once by `createGateway`, shared by every call. */
export interface Services {
  readonly catalog: Catalog;
  readonly registry: ProviderRegistry;
  readonly getProvider: ProviderLookup;
  readonly recorder: CallRecorder;
  readonly deployments: DeploymentStore | undefined;
  /** Spend per trace, agent, workflow or key against `createGateway({ budgets })`; `undefined` without budgets. */
  readonly budgets: BudgetStage | undefined;
  /** The response cache stage (`createGateway({ cache })`), there when the cache is off too, to say so. */
  readonly cache: ResponseCacheStage;
  /** The providers this gateway can call (credentials found), to suggest `<provider>/<id>` for an unknown id. */
  readonly configuredProviders: () => string[];
  /** Told each call to a model its maker deprecated (`createGateway({ onModelDeprecated })`, once per model). */
  readonly modelDeprecated: ((deprecation: ModelDeprecation) => void) | undefined;
  readonly settings: {
    readonly strict: boolean;
    readonly promptCache: 'auto' | false;
    readonly fallbacks: readonly string[];
    /** The gateway's `routing`; a request's own wins. Default `order`. */
    readonly routing?: Routing | undefined;
    /** The gateway's `hedge`; a request's own wins. Default off. */
    readonly hedge?: HedgeSetting | undefined;
    /** The gateway's `streamFailover`; a request's `stream_failover` wins. Default on. */
    readonly streamFailover?: boolean | undefined;
    readonly retry: RetryPolicy;
    /** Time one provider attempt may take (the SDKs' request timeout), unless the provider's settings say otherwise. */
    readonly timeoutMs: number;
    readonly streamTimeouts: StreamTimeouts;
    readonly providers: Readonly<Record<string, ProviderSettings | undefined>> | undefined;
    /** The bound on the text that templating writes for one request (`renderMessages`). */
    readonly maxRenderedBytes: number;
  };
}
