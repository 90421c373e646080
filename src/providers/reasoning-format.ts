/**
 * The `format` tag of the reasoning details that carry Claude's thinking (a signed or a redacted thinking block),
 * whichever provider served the model (Anthropic, Bedrock, Vertex AI) and whichever dialect shows it: only a request
 * to Claude takes them back.
 */
export const CLAUDE_REASONING_FORMAT = 'anthropic';
