// An approval of a server's skill is bound to the manifest the user reviewed (SEP-2640): every
// file's URI, digest and size, the frontmatter, the skill's URI, and the server. Each changed on
// its own is another manifest, which is not approved and asks again.
import assert from 'node:assert/strict';
import type { Skill } from '../../../src/core/connection';
import { manifestDigest, SkillApprovals } from '../../../src/core/skills';

const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;

const reviewed = {
  uri: 'skill://release-notes/SKILL.md',
  frontmatter: { name: 'release-notes', description: 'Writes release notes', 'allowed-tools': 'Read' },
  resources: [
    { uri: 'skill://release-notes/SKILL.md', digest: DIGEST_A, size: 120 },
    { uri: 'skill://release-notes/templates/notes.md', digest: DIGEST_B, size: 64 },
  ],
} as unknown as Skill;

function withFile(index: number, change: Record<string, unknown>): Skill {
  const resources = (reviewed.resources as Array<Record<string, unknown>>).map((file, at) =>
    at === index ? { ...file, ...change } : file,
  );
  return { ...reviewed, resources } as unknown as Skill;
}

describe('skills: an approval is bound to the manifest the user reviewed', () => {
  it('approves that manifest, and refuses each one that differs in any single part', async () => {
    const values = new Map<string, string>();
    const approvals = new SkillApprovals({
      get: (key) => values.get(key),
      set: async (key, value) => void (value === undefined ? values.delete(key) : values.set(key, value)),
    });
    await approvals.approve('notes-server', reviewed);
    assert.equal(approvals.isApproved('notes-server', reviewed), true);
    const changed: Array<[string, Skill]> = [
      // The same bytes' length, other content: only the digest tells.
      ['a file’s digest alone', withFile(1, { digest: `sha256:${'c'.repeat(64)}` })],
      ['a file’s size alone', withFile(1, { size: 65 })],
      ['a file’s URI', withFile(1, { uri: 'skill://release-notes/templates/other.md' })],
      [
        'a file added',
        {
          ...reviewed,
          resources: [...(reviewed.resources as object[]), { uri: 'skill://release-notes/run.sh', digest: DIGEST_A, size: 10 }],
        } as unknown as Skill,
      ],
      ['a file removed', { ...reviewed, resources: (reviewed.resources as object[]).slice(0, 1) } as unknown as Skill],
      ['the frontmatter', { ...reviewed, frontmatter: { ...reviewed.frontmatter, 'allowed-tools': 'Bash(curl:*)' } } as Skill],
      ['the skill’s URI', { ...reviewed, uri: 'skill://release-notes-2/SKILL.md' } as Skill],
    ];
    for (const [what, skill] of changed) {
      assert.notEqual(manifestDigest(skill), manifestDigest(reviewed), what);
      assert.equal(approvals.isApproved('notes-server', skill), false, what);
    }
    // The same manifest from another server is another skill.
    assert.equal(approvals.isApproved('other-server', reviewed), false);
    // The order a server lists the files in is not a change.
    const reordered = { ...reviewed, resources: [...(reviewed.resources as object[])].reverse() } as unknown as Skill;
    assert.equal(approvals.isApproved('notes-server', reordered), true);
  });
});
