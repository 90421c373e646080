import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message, SystemContentBlock } from '@aws-sdk/client-bedrock-runtime';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { InvalidRequestError } from '../../errors.ts';
import type { CompletionWarning } from '../../types.ts';
import { mergedSystemMessage, convertMessages as toAnthropicMessages } from '../anthropic/convert-messages.ts';

/**
 * OpenAI messages as Converse's. Converse's blocks are Anthropic's in another spelling, so the messages go through
 * the Anthropic conversion (system apart, alternating turns, tool results as user blocks, Claude's thinking restored
 * with its signature) and each block is then respelled; images and documents become bytes, as Converse takes them.
 */
export function convertMessages(
  messages: ChatCompletionMessageParam[],
  warn: (warning: CompletionWarning) => void,
): {
  system: SystemContentBlock[];
  messages: Message[];
} {
  // Converse has no system turns: a system message after the first turn joins the top-level system.
  const converted = toAnthropicMessages(messages, {
    inTurns: false,
    merged: (at) => warn(mergedSystemMessage(at, "Bedrock's Converse API")),
  });
  return {
    system: converted.system.map((block) => ({ text: block.text })),
    messages: converted.messages.map((message, index) => ({
      role: message.role as 'user' | 'assistant',
      content: blocksOf(message.content, `messages[${index}]`),
    })),
  };
}

function blocksOf(content: Anthropic.MessageParam['content'], at: string): ContentBlock[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map((block, index) => blockOf(block, `${at}.content[${index}]`, index));
}

const IMAGE_FORMATS = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' } as const;

function blockOf(block: Anthropic.ContentBlockParam, at: string, index: number): ContentBlock {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'image': {
      if (block.source.type !== 'base64')
        throw new InvalidRequestError(
          `${at}: Bedrock's Converse API takes images as bytes; send the image as a base64 data: URI.`,
          at,
        );
      return {
        image: {
          format: IMAGE_FORMATS[block.source.media_type],
          source: { bytes: Buffer.from(block.source.data, 'base64') },
        },
      };
    }
    case 'document': {
      const source = block.source;
      const name = `document-${index + 1}`;
      if (source.type === 'base64')
        return { document: { format: 'pdf', name, source: { bytes: Buffer.from(source.data, 'base64') } } };
      if (source.type === 'text')
        return { document: { format: 'txt', name, source: { bytes: Buffer.from(source.data) } } };
      throw new InvalidRequestError(`${at}: Bedrock takes documents as base64 data: URIs.`, at);
    }
    case 'tool_use':
      return { toolUse: { toolUseId: block.id, name: block.name, input: block.input as never } };
    case 'tool_result': {
      const texts =
        typeof block.content === 'string'
          ? [block.content]
          : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : JSON.stringify(part)));
      return {
        toolResult: {
          toolUseId: block.tool_use_id,
          content: texts.map((text) => ({ text })),
          ...(block.is_error ? { status: 'error' as const } : {}),
        },
      };
    }
    case 'thinking':
      return { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } };
    case 'redacted_thinking':
      return { reasoningContent: { redactedContent: Buffer.from(block.data, 'base64') } };
    default:
      throw new InvalidRequestError(`${at}: Bedrock's Converse API has no "${block.type}" block.`, at);
  }
}
