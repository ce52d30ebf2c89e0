// How a tool result reads in a terminal: text exactly as the server sent it (so it can be piped),
// binary content as a one-line summary instead of a wall of base64.
import type { CallToolResult } from '@modelcontextprotocol/client';

type ContentBlock = CallToolResult['content'][number];

export function formatCallResult(result: CallToolResult): string {
  const parts = result.content.map(formatContent);
  if (result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.map((part) => (part.endsWith('\n') ? part : `${part}\n`)).join('');
}

function formatContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') return `${resource.uri}\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `${resource.uri}\n[blob ${resource.mimeType ?? 'application/octet-stream'}, ${base64Bytes(blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    default:
      // A content type newer than this SDK: show it rather than drop it.
      return JSON.stringify(block);
  }
}

/** Decoded size, computed from the length so that a large payload is never decoded just to count it. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}
