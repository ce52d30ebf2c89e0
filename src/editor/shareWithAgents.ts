// Share with Other Agents…: the gateway's entry in a terminal agent's config (core/share), and the
// two steps that make it work, to copy. The editor's own chat needs none of it: it gets the servers
// from the definition provider.
import os from 'node:os';
import * as vscode from 'vscode';
import { DEFAULT_SHARE_PORT, SHARE_TARGETS, SHARE_TITLES, shareGateway, type ShareTarget } from '../core/share';
import { SKILL_PLACE_INFO, type SkillPlace } from '../core/skills';
import type { SkillInstalls } from './skillInstalls';

/** Where each agent a gateway entry is shared with reads skills (the .mcp.json's readers: Claude Code's folder). */
const SKILLS_OF: Readonly<Record<ShareTarget, SkillPlace>> = {
  mcpJsonPortable: 'claudeWorkspace',
  claudeCode: 'claudeUser',
  codex: 'agentsUser',
  gemini: 'agentsUser',
};

/** `launcher`: writes (again) the command an agent starts Switchboard with, and returns its path. */
export async function shareWithAgentsInteractively(launcher: () => string, skills?: SkillInstalls): Promise<void> {
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
  let target = picked.target;
  if (target === 'mcpJsonPortable') {
    // This very editor reads the folder's .mcp.json too: it would start the entry and list every tool twice.
    const elsewhere = "Use Claude Code's Own File";
    const anyway = 'Write .mcp.json Anyway';
    const choice = await vscode.window.showWarningMessage(
      'This editor reads the folder’s .mcp.json too: it would start Switchboard’s entry itself and list every tool twice (once from Switchboard, once from the entry).',
      {
        modal: true,
        detail:
          "Claude Code's own file (~/.claude.json) reaches Claude Code without that. Write .mcp.json only for agents on other machines, or if this editor's own MCP servers are turned off.",
      },
      elsewhere,
      anyway,
    );
    if (choice === undefined) return;
    if (choice === elsewhere) target = 'claudeCode';
  }
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
    target,
    port,
    folder: folder ?? os.homedir(),
    userHome: os.homedir(),
    env: process.env,
    // The launcher runs this version's CLI from any terminal: the steps name it.
    cli: JSON.stringify(launcher()),
    ...(how.stdio ? { launch: { command: launcher(), args: [] } } : {}),
  });
  const skillNote = skills ? await shareSkills(skills, SKILLS_OF[target]) : undefined;
  const copy = 'Copy Commands';
  const done = result.outcome === 'present' ? 'was already in' : result.outcome === 'replaced' ? 'replaced in' : 'added to';
  const choice = await vscode.window.showInformationMessage(
    `"switchboard" ${done} ${result.file}.`,
    {
      modal: true,
      detail:
        (how.stdio
          ? result.steps.join('\n')
          : `Then:\n${result.steps.map((step, index) => `${index + 1}. ${step}`).join('\n')}\n\nThe file names the token only as MCP_SWITCHBOARD_TOKEN, so it is safe to commit.`) +
        (skillNote ? `\n\n${skillNote}` : ''),
    },
    ...(how.stdio ? [] : [copy]),
  );
  if (choice === copy) await vscode.env.clipboard.writeText(result.steps.map((step) => step.replace(/^[^:]+: /, '')).join('\n'));
}

/** The skills installed for the editor, offered to the agent too: each read again from its server and checked. */
async function shareSkills(skills: SkillInstalls, place: SkillPlace): Promise<string | undefined> {
  const names = [
    ...new Set(
      skills
        .all()
        .filter((skill) => SKILL_PLACE_INFO[skill.place].agent === 'editor')
        .map((skill) => skill.name),
    ),
  ];
  if (names.length === 0) return undefined;
  const yes = await vscode.window.showQuickPick(
    [
      {
        label: `Share ${names.length} skill${names.length === 1 ? '' : 's'} too`,
        detail: `${names.join(', ')} → ${SKILL_PLACE_INFO[place].title}`,
        share: true,
      },
      { label: 'Not the skills', share: false },
    ],
    { title: 'Share with Other Agents: the skills you installed from your servers', ignoreFocusOut: true },
  );
  if (!yes?.share) return undefined;
  const { shared, problems } = await skills.shareInstalled([place]);
  return [`Skills: ${shared} put in ${SKILL_PLACE_INFO[place].title}.`, ...problems].join('\n');
}
