// A server's tools as listed: every page, each definition screened on its own. A definition over
// the size and depth limits, not valid MCP, or (2026-07-28) with an invalid `x-mcp-header` is held
// back (quarantined) with the reason; the rest of the server's tools stay usable.
import type { Tool } from '@modelcontextprotocol/client';
import { ToolSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';
import { jsonShapeProblem, TOOL_DEFINITION_LIMITS } from '../../base/jsonShape';
import type { ProtocolEra } from '../link';
import { readPages, type PageRequester } from './listPaging';
import { paramHeaderProblem } from './paramHeaders';

/** A tool held back because its definition is over a limit; the rest of the server's tools stay usable. */
export interface QuarantinedTool {
  readonly name: string;
  readonly problem: string;
}

export interface ToolList {
  readonly tools: Tool[];
  readonly quarantined: QuarantinedTool[];
  /** The server's cache hint (2026-07-28 `ttlMs`), the smallest over the pages. */
  readonly ttlMs?: number;
}

/** More than any real server offers; a list past it is cut, with a quarantine entry saying so. */
export const MAX_TOOLS_PER_SERVER = 10_000;
const MAX_TOOL_NAME_IN_MESSAGE = 80;

function describeInvalidTool(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'the definition is not a valid MCP tool';
  const where = issue.path.length > 0 ? issue.path.join('.') : 'the definition';
  return `${where}: ${issue.message}`;
}

/**
 * Splits a page into usable tools and quarantined ones. Measures before it parses anything deep.
 * In the 2026-07-28 era, invalid `x-mcp-header` declarations quarantine a tool too.
 */
export function screenTools(page: readonly unknown[], era: ProtocolEra = 'legacy'): ToolList {
  const tools: Tool[] = [];
  const quarantined: QuarantinedTool[] = [];
  for (const raw of page) {
    const rawName = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
    const name = typeof rawName === 'string' ? rawName.slice(0, MAX_TOOL_NAME_IN_MESSAGE) : '(unnamed)';
    const tooBig = jsonShapeProblem(raw, TOOL_DEFINITION_LIMITS, `the definition of tool \`${name}\``);
    if (tooBig) {
      quarantined.push({ name, problem: tooBig });
      continue;
    }
    const parsed = ToolSchema.safeParse(raw);
    const headers = parsed.success && era === 'modern' ? paramHeaderProblem(parsed.data.inputSchema) : undefined;
    if (headers) quarantined.push({ name, problem: `tool \`${name}\` declares an invalid parameter header: ${headers}` });
    else if (parsed.success) tools.push(parsed.data);
    else quarantined.push({ name, problem: `tool \`${name}\` is not valid MCP: ${describeInvalidTool(parsed.error)}` });
  }
  return { tools, quarantined };
}

/**
 * Every tool, following nextCursor. Pages are requested raw rather than with client.listTools():
 * that one caches output-schema validators per page (so only the last page's tools would be
 * validated); a host passes results through and lets the model read them, so no client-side
 * output validation at all is consistent.
 *
 * `screenedBy`: who already screened every definition with screenTools(), as it took them from
 * the server: the machine host (this version's, the only one a window attaches to) lists a shared
 * server's tools from its own screened copy. They are taken as listed, not parsed again: that
 * second parse was 16 of a window's 71 ms of CPU on its way to ready (bench:host, bench/RESULTS.md).
 */
export async function listAllTools(requestPage: PageRequester, era: ProtocolEra, screenedBy?: 'machine host'): Promise<ToolList> {
  const tools: Tool[] = [];
  const quarantined: QuarantinedTool[] = [];
  const paging = await readPages(
    'tools/list',
    requestPage,
    (page) => {
      const items = Array.isArray(page.tools) ? page.tools : [];
      if (screenedBy) return void tools.push(...(items as Tool[]));
      const screened = screenTools(items, era);
      tools.push(...screened.tools);
      quarantined.push(...screened.quarantined);
    },
    () => tools.length <= MAX_TOOLS_PER_SERVER,
  );
  if (tools.length > MAX_TOOLS_PER_SERVER) {
    const cut = tools.splice(MAX_TOOLS_PER_SERVER);
    quarantined.push({
      name: `${cut.length}${paging.cursorLeft === undefined ? '' : '+'} more`,
      problem: `the server offers more than ${MAX_TOOLS_PER_SERVER} tools; the rest are ignored`,
    });
  }
  return { tools, quarantined, ttlMs: paging.ttlMs };
}
