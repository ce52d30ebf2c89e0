// The user's approvals of servers' skills, each bound to the manifest it was given for (SEP-2640):
// an entry whose files, digests or frontmatter changed is no longer approved, and asks again.
import type { Skill } from '../connection';
import { manifestDigest, skillKey } from './skillManifest';

/** Where approvals are kept (the editor's global state): values are manifest digests. */
export interface ApprovalStore {
  get(key: string): string | undefined;
  set(key: string, value: string | undefined): Promise<void>;
}

export class SkillApprovals {
  constructor(private readonly store: ApprovalStore) {}

  /** Whether the user approved this very manifest of the skill. A `"dynamic"` skill never is. */
  isApproved(server: string, skill: Skill): boolean {
    const digest = manifestDigest(skill);
    return digest !== undefined && this.store.get(skillKey(server, skill.uri)) === digest;
  }

  async approve(server: string, skill: Skill): Promise<void> {
    const digest = manifestDigest(skill);
    if (digest !== undefined) await this.store.set(skillKey(server, skill.uri), digest);
  }

  async forget(server: string, uri: string): Promise<void> {
    await this.store.set(skillKey(server, uri), undefined);
  }
}
