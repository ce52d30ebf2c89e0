// Share with Other Agents…: the gateway's entry in a terminal agent's config (core/share), and the
// two steps that make it work, to copy. The editor's own chat needs none of it: it gets the servers
// from the definition provider.
import os from 'node:os';
import * as vscode from 'vscode';
import { DEFAULT_SHARE_PORT, SHARE_TARGETS, SHARE_TITLES, shareGateway } from '../core/share';

/** `launcher`: writes (again) the command an agent starts Switchboard with, and returns its path. */
export async function shareWithAgentsInteractively(launcher: () => string): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.find((candidate) => candidate.uri.scheme === 'file')?.uri.fsPath;
  const targets = SHARE_TARGETS.filter((target) => folder !== undefined || target !== 'mcpJsonPortable');
  const picked = await vscode.window.showQuickPick(
    targets.map((target) => ({ label: SHARE_TITLES[target], target })),
    {
      title: 'Share with Other Agents (1/2): whose config gets Switchboard?',
      placeHolder: 'One entry, "switchboard": every server you have here, filtered and cached as chat gets them',
      ignoreFocusOut: true,
    },
  );
  if (!picked) return;
  const how = await vscode.window.showQuickPick(
    [
      {
        label: 'The agent starts it',
        description: 'serve --stdio: nothing to run, no token',
        detail: 'The agent launches Switchboard when it needs it and stops it when it ends; lazy servers cost nothing until used.',
        stdio: true,
      },
      {
        label: 'You run a gateway',
        description: 'serve on a port, with a token',
        detail: 'One gateway that several agents share; you start it and keep it running.',
        stdio: false,
      },
    ],
    { title: 'Share with Other Agents (2/2): how does the agent reach it?', ignoreFocusOut: true },
  );
  if (!how) return;
  let port = DEFAULT_SHARE_PORT;
  if (!how.stdio) {
    const typed = await vscode.window.showInputBox({
      title: 'Share with Other Agents: the port serve listens on (127.0.0.1)',
      value: String(DEFAULT_SHARE_PORT),
      ignoreFocusOut: true,
      validateInput: (value) =>
        /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 65535 ? undefined : 'A port from 1 to 65535',
    });
    if (typed === undefined) return;
    port = Number(typed);
  }
  const result = shareGateway({
    target: picked.target,
    port,
    folder: folder ?? os.homedir(),
    userHome: os.homedir(),
    env: process.env,
    ...(how.stdio ? { launch: { command: launcher(), args: [] } } : {}),
  });
  const copy = 'Copy Commands';
  const done = result.outcome === 'present' ? 'was already in' : result.outcome === 'replaced' ? 'replaced in' : 'added to';
  const choice = await vscode.window.showInformationMessage(
    `"switchboard" ${done} ${result.file}.`,
    {
      modal: true,
      detail: how.stdio
        ? result.steps.join('\n')
        : `Then:\n${result.steps.map((step, index) => `${index + 1}. ${step}`).join('\n')}\n\nThe file names the token only as MCP_SWITCHBOARD_TOKEN, so it is safe to commit.`,
    },
    ...(how.stdio ? [] : [copy]),
  );
  if (choice === copy) await vscode.env.clipboard.writeText(result.steps.map((step) => step.replace(/^[^:]+: /, '')).join('\n'));
}
