// Skills put where agents read Agent Skills (`<folder>/<name>/SKILL.md`: the editor's
// `.github/skills` or `~/.copilot/skills`, other agents' `.claude/skills`, `.agents/skills`). Each
// installed folder holds exactly the files the entry lists, each read through the server's
// connection and checked against the entry before anything is written, plus a record of where it
// came from (ORIGIN_FILE: server, URI, the manifest digest it was approved for). That record is
// what makes a folder ours: a folder of the same name without it, or from another server, is never
// replaced or removed.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Skill, SkillFile } from '../connection';
import { errorMessage } from '../base/errorMessage';
import { manifestDigest, planSkillFiles, type SkillFilePlan } from './skillManifest';

export const ORIGIN_FILE = '.mcp-skill-origin.json';
const ORIGIN_FORMAT = 1;
/** Folders looked at when listing what is installed in one place. */
const MAX_FOLDERS_SCANNED = 2_000;
const MAX_ORIGIN_BYTES = 16 * 1024;
/** Files read at once while installing. */
const READS_AT_ONCE = 4;

/** One file as the entry listed it when the skill was installed. */
export interface ListedFile {
  readonly uri: string;
  readonly digest: string;
  readonly size: number;
}

/** Where an installed skill came from (its ORIGIN_FILE), and the manifest it was approved and installed for. */
export interface SkillOrigin {
  readonly server: string;
  readonly uri: string;
  readonly manifest: string;
  readonly files: readonly ListedFile[];
}

export interface InstalledSkill extends SkillOrigin {
  readonly name: string;
  /** The skill's folder. */
  readonly folder: string;
}

/** Why a skill was not installed or removed; the message names the skill and what was wrong. */
export class SkillInstallError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SkillInstallError';
  }
}

export interface InstallSkillOptions {
  readonly server: string;
  readonly skill: Skill;
  /** The folder that holds skills (`.github/skills`); made if missing, never through a symbolic link. */
  readonly skillsFolder: string;
  /** Reads one listed file through the server's connection, checked against the entry. */
  readonly read: (ref: string) => Promise<SkillFile>;
}

/**
 * Reads every file the entry lists, checked, then puts them in `<skillsFolder>/<name>` at once
 * (written aside, then renamed into place): a refused file leaves nothing behind, and a folder of
 * that name is replaced only when it is this server's install of this skill.
 */
export async function installSkill(options: InstallSkillOptions): Promise<InstalledSkill> {
  const { server, skill, skillsFolder } = options;
  const label = `skill \`${skill.frontmatter.name}\` of server \`${server}\``;
  const plan = planSkillFiles(skill);
  if ('problem' in plan) throw new SkillInstallError(`${label} cannot be installed: ${plan.problem}`);
  const manifest = manifestDigest(skill);
  if (manifest === undefined) throw new SkillInstallError(`${label} cannot be installed: it has no manifest`);
  const name = skill.frontmatter.name;
  await ensureRealFolder(skillsFolder, label);
  const folder = path.join(skillsFolder, name);
  const existing = await originAt(folder);
  if (existing === 'absent') {
    // Nothing there: ours to make.
  } else if (existing === 'foreign' || existing.server !== server || existing.uri !== skill.uri) {
    const who = existing === 'foreign' ? 'a skill that Switchboard did not install' : `the skill from server \`${existing.server}\``;
    throw new SkillInstallError(`${label} was not installed: ${folder} already holds ${who}; it is left as it is`);
  }

  const checked: { readonly path: string; readonly bytes: Uint8Array }[] = [];
  // SKILL.md first, alone: it is the skill (its frontmatter is checked against the entry's); when it
  // fails, nothing else of the skill is fetched.
  const skillMd = plan.files.filter((file) => file.path === 'SKILL.md');
  const queue = plan.files.filter((file) => file.path !== 'SKILL.md');
  const readEach = async (files: SkillFilePlan[]): Promise<void> => {
    for (let file = files.shift(); file; file = files.shift()) {
      let read: SkillFile;
      try {
        read = await options.read(file.path);
      } catch (error) {
        throw new SkillInstallError(`${label} was not installed: ${errorMessage(error)}`, { cause: error });
      }
      if (!read.verified || read.bytes.byteLength !== file.size)
        throw new SkillInstallError(`${label} was not installed: ${file.uri} could not be checked against the entry`);
      checked.push({ path: file.path, bytes: read.bytes });
    }
  };
  await readEach(skillMd);
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, queue.length) }, () => readEach(queue)));

  const staging = path.join(skillsFolder, `.${name}.installing-${randomBytes(6).toString('hex')}`);
  await fs.mkdir(staging);
  try {
    for (const file of checked) {
      const target = path.join(staging, ...file.path.split('/'));
      await fs.mkdir(path.dirname(target), { recursive: true });
      // `wx`: a fresh folder of our own; nothing there to follow or overwrite.
      await fs.writeFile(target, file.bytes, { flag: 'wx' });
    }
    const files = (skill.resources as readonly ListedFile[]).map(({ uri, digest, size }) => ({ uri, digest, size }));
    const origin: SkillOrigin = { server, uri: skill.uri, manifest, files };
    await fs.writeFile(path.join(staging, ORIGIN_FILE), `${JSON.stringify({ format: ORIGIN_FORMAT, ...origin }, null, 2)}\n`, {
      flag: 'wx',
    });
    if (existing !== 'absent') {
      const old = `${staging}.old`;
      await fs.rename(folder, old);
      await fs.rename(staging, folder);
      await fs.rm(old, { recursive: true, force: true });
    } else {
      await fs.rename(staging, folder);
    }
    return { ...origin, name, folder };
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    throw error instanceof SkillInstallError
      ? error
      : new SkillInstallError(`${label} was not installed: ${errorMessage(error)}`, { cause: error });
  }
}

/** Removes `<skillsFolder>/<name>` when it is this server's install of this skill; anything else is left. */
export async function removeInstalledSkill(skillsFolder: string, name: string, server: string, uri: string): Promise<boolean> {
  const folder = path.join(skillsFolder, name);
  if (path.dirname(folder) !== path.resolve(skillsFolder)) return false;
  const origin = await originAt(folder);
  if (origin === 'absent' || origin === 'foreign' || origin.server !== server || origin.uri !== uri) return false;
  await fs.rm(folder, { recursive: true, force: true });
  return true;
}

/** The skills installed in one folder of skills, by their records; other folders are not ours and are skipped. */
export async function installedSkills(skillsFolder: string): Promise<InstalledSkill[]> {
  let entries: import('node:fs').Dirent[];
  try {
    const stat = await fs.lstat(skillsFolder);
    if (!stat.isDirectory()) return [];
    entries = await fs.readdir(skillsFolder, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: InstalledSkill[] = [];
  for (const entry of entries.slice(0, MAX_FOLDERS_SCANNED)) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const folder = path.join(skillsFolder, entry.name);
    const origin = await originAt(folder);
    if (origin !== 'absent' && origin !== 'foreign') found.push({ ...origin, name: entry.name, folder });
  }
  return found;
}

/** A folder's origin record: `absent` when there is no such folder, `foreign` when it is not ours. */
async function originAt(folder: string): Promise<SkillOrigin | 'absent' | 'foreign'> {
  let stat;
  try {
    stat = await fs.lstat(folder);
  } catch {
    return 'absent';
  }
  if (!stat.isDirectory()) return 'foreign';
  try {
    const file = path.join(folder, ORIGIN_FILE);
    const info = await fs.lstat(file);
    if (!info.isFile() || info.size > MAX_ORIGIN_BYTES) return 'foreign';
    const value = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    const { format, server, uri, manifest, files } = value;
    if (format !== ORIGIN_FORMAT || typeof server !== 'string' || typeof uri !== 'string' || typeof manifest !== 'string') return 'foreign';
    const listed = Array.isArray(files) ? files.filter(isListedFile) : [];
    return { server, uri, manifest, files: listed };
  } catch {
    return 'foreign';
  }
}

function isListedFile(value: unknown): value is ListedFile {
  const file = value as Partial<ListedFile> | null;
  return (
    typeof file === 'object' &&
    file !== null &&
    typeof file.uri === 'string' &&
    typeof file.digest === 'string' &&
    typeof file.size === 'number'
  );
}

/** Makes the folder of skills if missing; refuses one that is (or whose parent is) not a real folder. */
async function ensureRealFolder(folder: string, label: string): Promise<void> {
  try {
    const stat = await fs.lstat(folder);
    if (stat.isDirectory()) return;
    throw new SkillInstallError(`${label} was not installed: ${folder} is not a folder (a symbolic link or a file)`);
  } catch (error) {
    if (error instanceof SkillInstallError) throw error;
  }
  await fs.mkdir(folder, { recursive: true });
}
