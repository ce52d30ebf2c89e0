// The consent dialogs: one server, or every workspace server waiting at once (a first run used to ask
// three times in a row). They show exactly what would run, with paths made readable, and say what
// each answer means, Deny against Cancel included.
import * as vscode from 'vscode';
import {
  describeSandboxRules,
  readableCommandLine,
  readablePath,
  sandboxOf,
  sourceLabel,
  workspaceConsentSandbox,
  type StdioServerDefinition,
} from '../core/config';
import type { ConsentAnswer } from './consent';
import type { WorkspaceSandboxMode } from './settings';

/** Servers listed in one dialog before the rest are counted. */
const MAX_LISTED = 10;

const DENY_VS_CANCEL =
  'Deny: it stays blocked until you click Allow… on its row. Cancel: nothing is remembered; it is asked again at its next start.';

/** The command line as the user reads it: quoted where needed, paths normalized. */
export function commandLine(definition: StdioServerDefinition): string {
  return readableCommandLine(definition);
}

function folderOf(definition: StdioServerDefinition): string {
  return definition.cwd === undefined ? '(the default folder)' : readablePath(definition.cwd);
}

/** The modal: the exact command line, the folder and any sandbox; Allow, Run Sandboxed or Deny. */
export async function askConsent(definition: StdioServerDefinition, mode: WorkspaceSandboxMode): Promise<ConsentAnswer | 'dismissed'> {
  const allow = 'Allow';
  const sandboxed = 'Run Sandboxed';
  const deny = 'Deny';
  const choices = mode === 'sandboxed' ? [sandboxed, deny] : [allow, sandboxed, deny];
  const choice = await vscode.window.showWarningMessage(
    `Allow the workspace to start the MCP server "${definition.name}"?`,
    { modal: true, detail: consentDetail(definition, mode) },
    ...choices,
  );
  if (choice === allow) return 'granted';
  if (choice === sandboxed) return 'sandboxed';
  if (choice === deny) return 'denied';
  return 'dismissed';
}

function consentDetail(definition: StdioServerDefinition, mode: WorkspaceSandboxMode): string {
  const own = sandboxOf(definition);
  const tight = workspaceConsentSandbox(definition.sandbox?.rules, definition.cwd);
  const lines = [`${whoAsks([definition])} MCP Switchboard to run:`, '', commandLine(definition), '', `in ${folderOf(definition)}`, ''];
  if (mode === 'ask')
    lines.push(own ? `Allow: as the entry says, sandboxed (${describeSandboxRules(own.rules)}).` : 'Allow: with all your rights.');
  lines.push(`Run Sandboxed: ${describeSandboxRules(tight.rules)}.`);
  if (mode === 'sandboxed') lines.push('(Your setting mcpSwitchboard.sandbox.workspaceServers runs every workspace server sandboxed.)');
  lines.push(DENY_VS_CANCEL, '', 'Only allow commands you trust. The answer is remembered until the command or its sandbox changes.');
  return lines.join('\n');
}

/** The workspace file the servers come from, as the user knows it: its settings, its .mcp.json… */
function whoAsks(definitions: readonly StdioServerDefinition[]): string {
  const labels = [...new Set(definitions.map((definition) => sourceLabel(definition.source)))];
  if (labels.length !== 1) return "This workspace's files ask";
  const label = labels[0] ?? '';
  return /settings$/.test(label) ? "This workspace's settings ask" : `This workspace's ${label} asks`;
}

/** One answer for every server, one dialog per server (`each`), or none (`dismissed`). */
export type BatchAnswer = ConsentAnswer | 'each' | 'dismissed';

/** One modal for several workspace servers waiting for consent: each listed with what it runs. */
export async function askConsentForAll(definitions: readonly StdioServerDefinition[], mode: WorkspaceSandboxMode): Promise<BatchAnswer> {
  const allow = 'Allow All';
  const sandboxed = 'Run All Sandboxed';
  const each = 'Choose Each…';
  const deny = 'Deny All';
  const choices = mode === 'sandboxed' ? [sandboxed, each, deny] : [allow, sandboxed, each, deny];
  const choice = await vscode.window.showWarningMessage(
    `Allow the workspace to start ${definitions.length} MCP servers?`,
    { modal: true, detail: batchDetail(definitions, mode) },
    ...choices,
  );
  if (choice === allow) return 'granted';
  if (choice === sandboxed) return 'sandboxed';
  if (choice === each) return 'each';
  if (choice === deny) return 'denied';
  return 'dismissed';
}

function batchDetail(definitions: readonly StdioServerDefinition[], mode: WorkspaceSandboxMode): string {
  const listed = definitions.slice(0, MAX_LISTED).map((definition) => {
    const own = sandboxOf(definition);
    return `• ${definition.name}: ${commandLine(definition)}\n   in ${folderOf(definition)}${own ? ` (sandboxed by its entry: ${describeSandboxRules(own.rules)})` : ''}`;
  });
  if (definitions.length > MAX_LISTED) listed.push(`…and ${definitions.length - MAX_LISTED} more (Choose Each… shows them one by one)`);
  const lines = [`${whoAsks(definitions)} MCP Switchboard to run:`, '', ...listed, ''];
  if (mode === 'ask') lines.push('Allow All: each as its entry says.');
  lines.push('Run All Sandboxed: each may write only its folder and temp, and reach only the domains its entry lists.');
  lines.push('Choose Each…: one dialog per server.');
  lines.push(
    'Deny All: they stay blocked until you click Allow… on a row. Cancel: nothing is remembered; each is asked again at its next start.',
  );
  lines.push('', 'Only allow commands you trust. Each answer is remembered until its command or sandbox changes.');
  return lines.join('\n');
}
