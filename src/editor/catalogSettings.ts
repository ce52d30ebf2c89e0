import * as vscode from 'vscode';
import type { CatalogSettings } from '../core/catalog';
import { catalogSettingsFrom, SETTINGS_SECTION } from '../core/catalog/settings';

/** `mcpSwitchboard.tools.*`, merged over all scopes, read by the same rules as the CLI's. */
export function readCatalogSettings(): CatalogSettings {
  const configuration = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return catalogSettingsFrom((key) => configuration.get(key));
}
