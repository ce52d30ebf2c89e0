// One server's list under its filters: a row per tool with the rule that hides it (if any), and
// the warnings the list and filters give (malformed schemas, duplicates, failing filters, allow
// patterns that match nothing). The outcome is kept between builds while list and filters stay.
import { deepFreeze } from '../base/freeze';
import type { ToolFilterSettings } from '../config';
import {
  evaluateFilters,
  FILTER_STEPS,
  filterContext,
  SERVERS_SETTING,
  unmatchedAllowPatterns,
  type CompiledGlobalFilters,
  type FilterStep,
  type FilterSubject,
} from './filters';
import type { PreparedTool, PreparedToolList } from './preparedList';
import { serverNamesOf } from './snapshotNames';
import type { CatalogWarning, FilterRule } from './types';

export interface Row {
  readonly prepared: PreparedTool;
  readonly rule: FilterRule | undefined;
}

/** The filter outcome of one server's list under one set of filters. */
export interface ServerRows {
  readonly key: string;
  readonly rows: readonly Row[];
  readonly warnings: readonly CatalogWarning[];
}

export function filterServer(
  server: { readonly name: string; readonly filters?: ToolFilterSettings },
  list: PreparedToolList,
  global: CompiledGlobalFilters,
  steps: readonly FilterStep[],
  key: string,
): ServerRows {
  const context = filterContext(server.name, server.filters, global);
  const warnings: CatalogWarning[] = [];
  const filterErrors = new Map<string, number>();
  const qualified = steps === FILTER_STEPS ? serverNamesOf(list, server.name).qualified : undefined;
  const rows = list.tools.map((prepared, index): Row => {
    // One object per tool, of one shape (V8 keeps the steps' property reads monomorphic).
    const subject: FilterSubject = { server: server.name, name: prepared.name, readOnly: prepared.readOnly, qualified: qualified?.[index] };
    let rule = evaluateFilters(subject, context, steps);
    if (!rule && prepared.problem !== undefined) rule = { kind: 'malformedSchema', reason: prepared.problem };
    if (rule?.kind === 'filterError') filterErrors.set(rule.reason, (filterErrors.get(rule.reason) ?? 0) + 1);
    else if (rule?.kind === 'malformedSchema') {
      warnings.push({
        kind: 'malformedSchema',
        server: server.name,
        tool: prepared.name,
        message: `Tool "${prepared.name}" of server "${server.name}" is hidden: ${rule.reason}.`,
      });
    }
    return { prepared, rule: rule && deepFreeze(rule) };
  });
  for (const name of list.duplicates) {
    warnings.push({
      kind: 'duplicateTool',
      server: server.name,
      tool: name,
      message: `Server "${server.name}" lists the tool "${name}" more than once; the first definition is used.`,
    });
  }
  if (list.unnamed > 0) {
    warnings.push({
      kind: 'malformedSchema',
      server: server.name,
      message: `Server "${server.name}" listed ${list.unnamed} tool(s) without a name; they are ignored.`,
    });
  }
  for (const [reason, count] of filterErrors) {
    const setting = reason.startsWith('mcpSwitchboard.') ? reason.slice(0, reason.indexOf(':')) : SERVERS_SETTING;
    warnings.push({
      kind: 'filterError',
      server: server.name,
      setting,
      message: `${count} tool(s) of server "${server.name}" are hidden because a filter failed: ${reason}`,
    });
  }
  for (const pattern of unmatchedAllowPatterns(
    context,
    list.tools.map((tool) => tool.name),
  )) {
    warnings.push({
      kind: 'allowUnmatched',
      server: server.name,
      setting: SERVERS_SETTING,
      message: `The tools.allow pattern "${pattern}" of server "${server.name}" matches none of its tools.`,
    });
  }
  return { key, rows, warnings: deepFreeze(warnings) };
}
