// Where agents read Agent Skills, each place a folder of skill folders: the editor's chat reads
// `.github/skills` in a workspace and `~/.copilot/skills` for the user; Claude Code `.claude/skills`
// and `~/.claude/skills`; Codex, Gemini CLI and the other agents that follow the open standard
// `.agents/skills` and `~/.agents/skills`.
import path from 'node:path';

export const SKILL_PLACES = ['editorWorkspace', 'editorUser', 'claudeWorkspace', 'claudeUser', 'agentsWorkspace', 'agentsUser'] as const;
export type SkillPlace = (typeof SKILL_PLACES)[number];

interface PlaceInfo {
  readonly agent: 'editor' | 'claude' | 'agents';
  readonly scope: 'workspace' | 'user';
  readonly folder: readonly string[];
  readonly title: string;
}

export const SKILL_PLACE_INFO: Readonly<Record<SkillPlace, PlaceInfo>> = {
  editorWorkspace: { agent: 'editor', scope: 'workspace', folder: ['.github', 'skills'], title: 'This Workspace (.github/skills)' },
  editorUser: { agent: 'editor', scope: 'user', folder: ['.copilot', 'skills'], title: 'All Your Workspaces (~/.copilot/skills)' },
  claudeWorkspace: {
    agent: 'claude',
    scope: 'workspace',
    folder: ['.claude', 'skills'],
    title: 'Claude Code, this workspace (.claude/skills)',
  },
  claudeUser: { agent: 'claude', scope: 'user', folder: ['.claude', 'skills'], title: 'Claude Code, every project (~/.claude/skills)' },
  agentsWorkspace: {
    agent: 'agents',
    scope: 'workspace',
    folder: ['.agents', 'skills'],
    title: 'Codex, Gemini CLI and other agents, this workspace (.agents/skills)',
  },
  agentsUser: {
    agent: 'agents',
    scope: 'user',
    folder: ['.agents', 'skills'],
    title: 'Codex, Gemini CLI and other agents, every project (~/.agents/skills)',
  },
};

export interface PlaceRoots {
  /** The workspace's first folder on disk, if there is one. */
  readonly workspace?: string;
  readonly home: string;
}

/** The folder of skills a place means here; undefined for a workspace place without a workspace. */
export function skillsFolderOf(place: SkillPlace, roots: PlaceRoots): string | undefined {
  const info = SKILL_PLACE_INFO[place];
  const base = info.scope === 'user' ? roots.home : roots.workspace;
  return base === undefined ? undefined : path.join(base, ...info.folder);
}
