import type { Gateway } from '../../gateway.ts';
import type { OPENAI_EFFORTS } from '../../request/request-parameters.ts';
import { CODEX_BASE_INSTRUCTIONS } from './codex-instructions.ts';

type ListedModel = ReturnType<Gateway['listModels']>['data'][number];

/** One reasoning level of a model, as Codex's picker shows it. */
interface CodexReasoningLevel {
  effort: string;
  description: string;
}

/** A model as Codex's model catalog describes it (its `ModelInfo`: the fields Codex requires, and those we know). */
export interface CodexModelInfo {
  slug: string;
  display_name: string;
  description: string;
  supported_reasoning_levels: CodexReasoningLevel[];
  shell_type: 'default';
  /** `list`: in Codex's picker; `hide`: known to Codex (its metadata is used) without being offered. */
  visibility: 'list' | 'hide';
  supported_in_api: true;
  /** Codex's picker order, from 1: its default model is the first listed. */
  priority: number;
  upgrade: { model: string; migration_markdown: string } | null;
  base_instructions: string;
  supports_reasoning_summaries: false;
  support_verbosity: false;
  default_verbosity: null;
  /** The gateway converts free-form tools for every provider: Codex sends its `apply_patch` as one. */
  apply_patch_tool_type: 'freeform';
  truncation_policy: { mode: 'bytes'; limit: number };
  supports_parallel_tool_calls: boolean;
  context_window: number;
  experimental_supported_tools: string[];
  input_modalities: Array<'text' | 'image'>;
}

/** The efforts every reasoning model takes here: the gateway turns each into a thinking budget where needed. */
const BUDGET_EFFORTS = ['low', 'medium', 'high'];

/** Each effort of the Responses API (`reasoning.effort`), as Codex's picker describes it. */
const EFFORT_WORDS: Record<(typeof OPENAI_EFFORTS)[number], string> = {
  none: 'No reasoning',
  minimal: 'Least reasoning, fastest answers',
  low: 'Light reasoning, faster answers',
  medium: 'Balanced reasoning depth and speed',
  high: 'Deep reasoning for hard problems',
  xhigh: 'Deeper reasoning for the hardest problems',
  max: 'The most reasoning the model does',
};

/**
 * A catalog model as Codex's `ModelInfo`. What the catalog knows comes from it (name, context window, reasoning
 * levels, images, parallel tool calls, the lifecycle and the replacement of a deprecated model); the rest is what Codex
 * assumes of a model it does not know, but for `apply_patch_tool_type` and the base instructions.
 */
export function codexModel(model: ListedModel, options: { slug: string; listed: boolean; index: number }) {
  const info: CodexModelInfo = {
    slug: options.slug,
    display_name: options.slug !== model.id ? options.slug : model.alias_for ? `${model.name} (latest)` : model.name,
    description: descriptionOf(model),
    supported_reasoning_levels: reasoningLevelsOf(model).map((effort) => ({
      effort,
      description: EFFORT_WORDS[effort as keyof typeof EFFORT_WORDS],
    })),
    shell_type: 'default',
    visibility: options.listed ? 'list' : 'hide',
    supported_in_api: true,
    priority: options.index + 1,
    upgrade: upgradeOf(model),
    base_instructions: CODEX_BASE_INSTRUCTIONS,
    supports_reasoning_summaries: false,
    support_verbosity: false,
    default_verbosity: null,
    apply_patch_tool_type: 'freeform',
    // Codex's own for a model it does not know: tool outputs cut to 10 kB.
    truncation_policy: { mode: 'bytes', limit: 10_000 },
    supports_parallel_tool_calls: model.supports.parallel_tool_calls,
    context_window: model.context_window,
    experimental_supported_tools: [],
    input_modalities: model.supports.images ? ['text', 'image'] : ['text'],
  };
  return info;
}

/**
 * The efforts Codex may send for the model, lowest first: its own levels (`none` where it can stop reasoning), or
 * low/medium/high on a model set by a thinking budget. None for a model that does not reason or takes no setting;
 * Codex then sends none, and the model reasons as it does by default.
 */
function reasoningLevelsOf(model: ListedModel): string[] {
  const reasoning = model.reasoning;
  if (!model.supports.reasoning || !reasoning || reasoning.control === 'none') return [];
  const levels = reasoning.control === 'budget' ? BUDGET_EFFORTS : (reasoning.efforts ?? []);
  const withOff = reasoning.can_disable && !levels.includes('none') ? ['none', ...levels] : levels;
  // Codex sends the one chosen as `reasoning.effort`: only those the Responses API takes (not Qwen's `default`).
  return withOff.filter((effort) => Object.hasOwn(EFFORT_WORDS, effort));
}

function descriptionOf(model: ListedModel): string {
  const made = `${model.name} by ${model.owned_by}, through Switchyard.`;
  if (model.lifecycle !== 'deprecated') return made;
  const retires = model.retires_at ? ` It retires on ${model.retires_at}.` : '';
  return `${made} Deprecated by its maker.${retires}`;
}

/** A deprecated model's replacement, as Codex offers a move to another model. */
function upgradeOf(model: ListedModel): CodexModelInfo['upgrade'] {
  if (model.lifecycle !== 'deprecated' || !model.replacement) return null;
  const retires = model.retires_at ? `, and retires on ${model.retires_at}` : '';
  return {
    model: model.replacement,
    migration_markdown: `\`${model.id}\` is deprecated by its maker${retires}. \`${model.replacement}\` replaces it.`,
  };
}
