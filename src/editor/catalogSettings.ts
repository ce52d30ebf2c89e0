import * as vscode from 'vscode';
import type { CatalogSettings } from '../core/catalog';

const DAY_MS = 24 * 60 * 60 * 1000;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** `mcpSwitchboard.tools.*`, merged over all scopes. */
export function readCatalogSettings(): CatalogSettings {
  const configuration = vscode.workspace.getConfiguration('mcpSwitchboard');
  const maxExposed = configuration.get<number>('tools.maxExposed', 128);
  const ttlDays = configuration.get<number>('tools.cacheTtlDays', 7);
  return {
    globalDeny: strings(configuration.get('tools.deny')),
    disabled: strings(configuration.get('tools.disabled')),
    maxExposed: Number.isFinite(maxExposed) ? maxExposed : 128,
    cacheTtlMs: Math.max(0, Number.isFinite(ttlDays) ? ttlDays : 7) * DAY_MS,
  };
}
