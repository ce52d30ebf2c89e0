// Skills over MCP (SEP-2640, `io.modelcontextprotocol/skills`) on one session, through the SDK's
// skills client: it lists the entries (each a complete manifest: every file with its SHA-256 and
// size), and reads a file only as the entry lists it, checking size, digest and, for SKILL.md, the
// frontmatter. What is listed is kept with the rest of the server's offer (serverOffer.ts); a file
// is read only when asked for (installing a skill, a conformance client loading one), never at
// connect or on listing, as the extension requires.
import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import { SkillsClient, SkillVerificationError, type Skill, type SkillFile } from '@modelcontextprotocol/client/ext/skills';
import { jsonShapeProblem, TOOL_DEFINITION_LIMITS } from '../../base/jsonShape';
import { SwitchboardError } from './errors';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
export type { Skill, SkillFile };

/** Whether a server's capabilities declare the skills extension. */
export function declaresSkills(capabilities: Readonly<Record<string, unknown>>): boolean {
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  const declared = extensions?.[SKILLS_EXTENSION];
  return typeof declared === 'object' && declared !== null;
}

/** More than any real server lists; the rest are ignored, with a problem saying so. */
export const MAX_SKILLS = 1_000;
const MAX_URI_IN_MESSAGE = 200;

// One skills client per SDK client: a session renewal replaces the client, and with it this.
const skillsClients = new WeakMap<Client, SkillsClient>();

function skillsClientOf(client: Client): SkillsClient {
  let skills = skillsClients.get(client);
  if (!skills) skillsClients.set(client, (skills = new SkillsClient(client, { skipInvalid: true })));
  return skills;
}

export interface SkillListing {
  readonly skills: readonly Skill[];
  /** Entries held back (invalid, too deep), each naming its URI and why. */
  readonly problems: readonly string[];
  readonly ttlMs?: number;
}

/** Every page of `skills/list`: invalid entries are held back one by one, with a problem naming each. */
export async function listSkills(client: Client, options: RequestOptions): Promise<SkillListing> {
  const listing = await skillsClientOf(client).list(undefined, options);
  const problems = listing.invalid.map(
    (entry) => `skill ${entry.uri ? `\`${entry.uri.slice(0, MAX_URI_IN_MESSAGE)}\`` : `#${entry.index}`} is not valid: ${entry.reason}`,
  );
  const skills: Skill[] = [];
  for (const skill of listing.skills) {
    if (skills.length >= MAX_SKILLS) {
      problems.push(`the server lists more than ${MAX_SKILLS} skills; the rest are ignored`);
      break;
    }
    const tooBig = jsonShapeProblem(skill, TOOL_DEFINITION_LIMITS, `skill \`${skill.uri.slice(0, MAX_URI_IN_MESSAGE)}\``);
    if (tooBig) problems.push(tooBig);
    else skills.push(skill);
  }
  return { skills, problems, ttlMs: listing.ttlMs };
}

/**
 * One file of a listed skill (`ref` relative to the skill's folder; SKILL.md by default), checked
 * against the entry. A file that fails is refused (`PROTOCOL_ERROR`, naming the file and why, the
 * reason in `data.skillVerification`): its content is never returned.
 */
export async function readSkillFile(client: Client, skill: Skill, ref: string | undefined, options: RequestOptions): Promise<SkillFile> {
  try {
    return await skillsClientOf(client).read(skill, ref, options);
  } catch (error) {
    if (!(error instanceof SkillVerificationError)) throw error;
    throw new SwitchboardError('PROTOCOL_ERROR', `skill \`${skill.frontmatter.name}\` refused: ${error.message}`, {
      cause: error,
      data: { skillVerification: { reason: error.reason, uri: error.uri } },
    });
  }
}
