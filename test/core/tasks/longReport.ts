// The tasks fixture's `long_report` (test/fixtures/tasks-v2-server.mjs), a tool a 2026-07-28 server
// runs only as a task, called through a catalog as chat calls it: on the source (tasks tests) and on
// the shipped bundle (the SDK contract tests).
import type { CallToolResult, Progress } from '@modelcontextprotocol/client';
import type { ToolCatalog } from '../../../src/core/catalog';
import { textOf } from '../connection/helpers';

/** What the caller sees as progress: the task's status before the first message, then each stage once, in order. */
export const LONG_REPORT_STAGES = ['working', 'Gathering sources...', 'Writing the report...', 'Checking the facts...'];

/** Calls `long_report` of the server named `reports`; its answer's text, and the progress messages the caller saw. */
export async function callLongReport(
  catalog: Pick<ToolCatalog, 'callExposedTool'>,
): Promise<{ readonly text: string; readonly stages: readonly (string | undefined)[] }> {
  const progress: Progress[] = [];
  const result = await catalog.callExposedTool(
    'reports',
    'long_report',
    { topic: 'otters' },
    { onProgress: (update) => progress.push(update) },
  );
  return { text: textOf(result as CallToolResult), stages: progress.map((update) => update.message) };
}
