// What the user is shown before a server's skill is put where agents read skills: who serves it,
// every file with its size and digest (what the approval is bound to), and what in its frontmatter
// asks for more than instructions (`allowed-tools`, which an agent that reads the skill from disk
// honours). Against the manifest installed before, what changed. Everything from the server is
// made inert (base/displayText) and bounded: a hostile skill cannot forge a line of the dialog.
import type { Skill } from '../connection';
import type { ListedFile } from './installedSkills';
import { displayText } from '../base/displayText';

const FILES_SHOWN = 20;
const DESCRIPTION_LIMIT = 300;

export interface SkillReview {
  /** What its allowed-tools let an agent do without asking (shell, files, network); the dialog is a warning then. */
  readonly risk?: string;
  /** The dialog's question. */
  readonly message: string;
  /** Its body, plain text. */
  readonly detail: string;
}

function filesOf(skill: Skill): readonly ListedFile[] {
  return Array.isArray(skill.resources) ? (skill.resources as readonly ListedFile[]) : [];
}

function bytes(size: number): string {
  return size < 1024 ? `${size} B` : size < 1024 * 1024 ? `${(size / 1024).toFixed(1)} KB` : `${(size / 1024 / 1024).toFixed(1)} MB`;
}

function relative(skill: Skill, uri: string): string {
  const root = skill.uri.slice(0, -'SKILL.md'.length);
  return displayText(uri.startsWith(root) ? uri.slice(root.length) : uri, 200);
}

/** The frontmatter's `allowed-tools`, as written (a string or a list), if any. */
export function allowedToolsOf(skill: Skill): string | undefined {
  const value = skill.frontmatter['allowed-tools'];
  if (value === undefined || value === null) return undefined;
  return displayText(Array.isArray(value) ? value.map(String).join(', ') : String(value), 300);
}

/** What kinds of power an `allowed-tools` entry grants, by the tool's name (Claude Code's, and the usual aliases). */
const POWERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(bash|shell|terminal|run_?in_?terminal|exec|powershell)\b/i, 'run shell commands'],
  [/^(write|edit|multiedit|notebookedit|create_?file|delete)\b/i, 'change files'],
  [/^(webfetch|websearch|fetch|curl|http)\b/i, 'reach the network'],
];

/**
 * What an `allowed-tools` list lets an agent do without asking, in words, the riskiest first:
 * `run shell commands (Bash(curl:*))`. Undefined when it grants none of that (reading, searching).
 */
export function allowedToolsRisk(skill: Skill): string | undefined {
  const value = skill.frontmatter['allowed-tools'];
  if (value === undefined || value === null) return undefined;
  const entries = (Array.isArray(value) ? value.map(String) : String(value).split(/[,\s]+(?![^(]*\))/))
    .map((entry) => entry.trim())
    .filter(Boolean);
  const granted = POWERS.map(([pattern, power]) => {
    const matching = entries.filter((entry) => pattern.test(entry));
    return matching.length > 0 ? `${power} (${displayText(matching.join(', '), 120)})` : undefined;
  }).filter((power): power is string => power !== undefined);
  return granted.length > 0 ? granted.join('; ') : undefined;
}

/**
 * The review of a skill before it is installed, or (`previous`: the files installed now) before
 * an installed skill is updated to what the server lists now.
 */
export function reviewSkill(server: string, skill: Skill, previous?: readonly ListedFile[]): SkillReview {
  const name = displayText(skill.frontmatter.name, 80);
  const files = filesOf(skill);
  const total = files.reduce((sum, file) => sum + file.size, 0);
  const lines: string[] = [displayText(String(skill.frontmatter.description), DESCRIPTION_LIMIT), ''];
  lines.push(`From server "${displayText(server, 80)}": ${displayText(skill.uri, 200)}`);
  if (previous) {
    const before = new Map(previous.map((file) => [file.uri, file.digest]));
    const now = new Set(files.map((file) => file.uri));
    const changes = [
      ...files.filter((file) => !before.has(file.uri)).map((file) => `+ ${relative(skill, file.uri)} (new)`),
      ...files
        .filter((file) => before.has(file.uri) && before.get(file.uri) !== file.digest)
        .map((file) => `~ ${relative(skill, file.uri)} (changed)`),
      ...previous.filter((file) => !now.has(file.uri)).map((file) => `- ${relative(skill, file.uri)} (removed)`),
    ];
    lines.push('', `Changed since you installed it (${changes.length}):`, ...changes.slice(0, FILES_SHOWN));
    if (changes.length > FILES_SHOWN) lines.push(`… and ${changes.length - FILES_SHOWN} more`);
  }
  lines.push('', `Files (${files.length}, ${bytes(total)}), each checked against this list when it is fetched:`);
  for (const file of files.slice(0, FILES_SHOWN))
    lines.push(`  ${relative(skill, file.uri)}  ${bytes(file.size)}  ${displayText(file.digest, 80).slice(0, 19)}…`);
  if (files.length > FILES_SHOWN) lines.push(`  … and ${files.length - FILES_SHOWN} more`);
  const tools = allowedToolsOf(skill);
  const risk = allowedToolsRisk(skill);
  // What it may do without asking comes first, above the files, where it is read.
  if (risk) lines.splice(2, 0, `⚠ It asks your agents to ${risk} without asking you (allowed-tools).`, '');
  if (tools)
    lines.push(
      '',
      `It asks to use these tools without asking you (allowed-tools): ${tools}. An agent that reads the installed skill may honour that.`,
    );
  const license = skill.frontmatter.license;
  if (typeof license === 'string') lines.push('', `License: ${displayText(license, 80)}`);
  lines.push(
    '',
    "A skill is instructions for your agents, written by the server's author. Switchboard checks that every file is the one listed here, not that what it says is safe.",
  );
  return {
    ...(risk ? { risk } : {}),
    message: previous
      ? `The skill "${name}" of server "${displayText(server, 80)}" changed. Update it?`
      : `Install the skill "${name}" from server "${displayText(server, 80)}"?`,
    detail: lines.join('\n'),
  };
}
