/**
 * @module
 * MCP tool results as text a tool message carries.
 */

/** One block of an MCP `CallToolResult.content`, loosely typed (servers send newer kinds). */
interface Block {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

/**
 * The text of an MCP tool result: text blocks as they are, embedded text resources by their text,
 * other blocks (images, audio, binary resources, links) by a one-line placeholder naming their type;
 * `structuredContent` as JSON when there is no text at all; a legacy `toolResult` as JSON.
 *
 * @example
 * mcpResultText({ content: [{ type: 'text', text: 'ok' }, { type: 'image', data: '…', mimeType: 'image/png' }] });
 * // 'ok\n[image image/png, 3 bytes of base64]'
 */
export function mcpResultText(result: {
  content?: unknown;
  structuredContent?: unknown;
  toolResult?: unknown;
}): string {
  // Protocol 2024-10-07 servers answer with `toolResult` instead of content blocks.
  if (!Array.isArray(result.content) && result.toolResult !== undefined)
    return typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  const blocks = Array.isArray(result.content) ? (result.content as Block[]) : [];
  const parts = blocks.map((block) => {
    if (block.type === 'text') return block.text ?? '';
    if (block.type === 'resource') {
      if (typeof block.resource?.text === 'string') return block.resource.text;
      return `[resource ${block.resource?.uri ?? ''}${block.resource?.mimeType ? ` ${block.resource.mimeType}` : ''}]`;
    }
    if (block.type === 'resource_link') return `[resource ${block.uri ?? ''}]`;
    const size = typeof block.data === 'string' ? `, ${block.data.length} bytes of base64` : '';
    return `[${block.type}${block.mimeType ? ` ${block.mimeType}` : ''}${size}]`;
  });
  if (parts.every((part) => part === '') && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}
