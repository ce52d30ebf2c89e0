// What a skill's allowed-tools let agents do without asking is said first, in words, the riskiest
// kinds named; a skill that only reads gets no warning.
import assert from 'node:assert/strict';
import { allowedToolsRisk, reviewSkill } from '../../../src/core/skills/skillReview';
import type { Skill } from '../../../src/core/connection';

const skill = (allowed?: unknown): Skill =>
  ({
    uri: 'skill://x/SKILL.md',
    frontmatter: { name: 'x', description: 'A skill', ...(allowed === undefined ? {} : { 'allowed-tools': allowed }) },
    resources: [{ uri: 'skill://x/SKILL.md', size: 10, digest: 'sha256:abc' }],
  }) as unknown as Skill;

describe('skills: what allowed-tools let an agent do', () => {
  it('names shell, file changes and network, with the entries that grant them', () => {
    assert.equal(allowedToolsRisk(skill('Bash(curl:*)')), 'run shell commands (Bash(curl:*))');
    assert.equal(allowedToolsRisk(skill('Read, Grep, Bash(git log:*)')), 'run shell commands (Bash(git log:*))');
    assert.equal(allowedToolsRisk(skill(['Edit', 'WebFetch'])), 'change files (Edit); reach the network (WebFetch)');
    assert.equal(allowedToolsRisk(skill('Read Grep Glob')), undefined);
    assert.equal(allowedToolsRisk(skill()), undefined);
  });

  it('puts the warning above the files in the review, and says there is a risk', () => {
    const risky = reviewSkill('docs', skill('Bash(rm:*)'));
    assert.equal(risky.risk, 'run shell commands (Bash(rm:*))');
    const lines = risky.detail.split('\n');
    assert.ok(
      lines.indexOf('⚠ It asks your agents to run shell commands (Bash(rm:*)) without asking you (allowed-tools).') <
        lines.findIndex((line) => line.startsWith('Files (')),
    );
    const quiet = reviewSkill('docs', skill('Read'));
    assert.equal(quiet.risk, undefined);
    assert.ok(!quiet.detail.includes('⚠'));
  });
});
