import type { CatalogData, ModelEntry } from '../../src/entries/providers.ts';
import { Catalog } from '../../src/index.ts';

/** A small fixed catalog, so provider tests do not move when the bundled data is updated. */
const supports: ModelEntry['supports'] = {
  reasoning: false,
  structured_outputs: true,
  json_mode: true,
  tools: true,
  parallel_tool_calls: true,
  images: true,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: false,
};
const price = { input: 2.5, output: 10, cached_input: 1.25 };

export const testCatalogData: CatalogData = {
  updated: '2026-11-22',
  models: [
    {
      id: 'gpt-4o-2024-11-20',
      name: 'GPT-4o',
      maker: 'openai',
      release_date: '2024-11-20',
      context_window: 128000,
      max_output_tokens: 16384,
      supports,
      providers: [
        { provider: 'openai', model: 'gpt-4o-2024-11-20', pricing: price },
        { provider: 'openrouter', model: 'openai/gpt-4o-2024-11-20', pricing: price },
        { provider: 'azure', model: 'gpt-4o-2024-11-20', pricing: price },
      ],
    },
    {
      id: 'o3-2025-04-16',
      name: 'o3',
      maker: 'openai',
      release_date: '2025-04-16',
      context_window: 200000,
      max_output_tokens: 100000,
      supports: { ...supports, reasoning: true, temperature: false, top_p: false, stop: false },
      reasoning: { control: 'effort', can_disable: false, efforts: ['low', 'medium', 'high'] },
      providers: [{ provider: 'openai', model: 'o3-2025-04-16', pricing: { input: 2, output: 8, cached_input: 0.5 } }],
    },
    {
      id: 'gpt-oss-120b',
      name: 'gpt-oss-120b',
      maker: 'openai',
      release_date: '2025-08-05',
      context_window: 131072,
      max_output_tokens: 32768,
      supports: { ...supports, reasoning: true, images: false },
      reasoning: { control: 'effort', can_disable: false, efforts: ['low', 'medium', 'high'] },
      providers: [
        { provider: 'groq', model: 'openai/gpt-oss-120b', pricing: { input: 0.15, output: 0.75, cached_input: 0.15 } },
        {
          provider: 'together',
          model: 'openai/gpt-oss-120b',
          pricing: { input: 0.15, output: 0.6, cached_input: 0.15 },
        },
      ],
    },
    {
      id: 'llama-3.3-70b-instruct',
      name: 'Llama 3.3 70B',
      maker: 'meta',
      release_date: '2024-12-06',
      context_window: 131072,
      max_output_tokens: 32768,
      supports: { ...supports, structured_outputs: false, images: false },
      providers: [
        {
          provider: 'groq',
          model: 'llama-3.3-70b-versatile',
          pricing: { input: 0.59, output: 0.79, cached_input: 0.59 },
        },
        {
          provider: 'together',
          model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
          pricing: { input: 0.88, output: 0.88, cached_input: 0.88 },
        },
        { provider: 'ollama', model: 'llama3.3:70b', pricing: { input: 0, output: 0, cached_input: 0 } },
      ],
    },
    {
      id: 'deepseek-reasoner-v3.2',
      name: 'DeepSeek V3.2 (thinking)',
      maker: 'deepseek',
      release_date: '2025-12-01',
      context_window: 128000,
      max_output_tokens: 65536,
      supports: { ...supports, reasoning: true, structured_outputs: false, images: false },
      reasoning: { control: 'none', can_disable: false },
      providers: [
        {
          provider: 'deepseek',
          model: 'deepseek-reasoner',
          pricing: { input: 0.28, output: 0.42, cached_input: 0.028 },
        },
      ],
    },
    {
      id: 'mistral-large-2411',
      name: 'Mistral Large 24.11',
      maker: 'mistral',
      release_date: '2024-11-18',
      context_window: 131072,
      max_output_tokens: 32768,
      supports,
      providers: [
        { provider: 'mistral', model: 'mistral-large-2411', pricing: { input: 2, output: 6, cached_input: 2 } },
      ],
    },
  ],
  aliases: {
    'gpt-4o-latest': 'gpt-4o-2024-11-20',
    'o3-latest': 'o3-2025-04-16',
    'mistral-large-latest': 'mistral-large-2411',
  },
  synonyms: { 'gpt-4o': 'gpt-4o-latest' },
};

export const testCatalog = new Catalog(testCatalogData);
