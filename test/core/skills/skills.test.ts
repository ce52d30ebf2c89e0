// Skills over MCP (SEP-2640) against a real server with real files (test/fixtures/skills), and the
// same server lying about them (`--tamper`): listed with the offer and nothing read until asked;
// installed exactly as listed and checked, or refused naming the file, with nothing left behind;
// approvals bound to the manifest; a folder that is not ours never replaced or removed.
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { parseToolCacheEntry } from '../../../src/core/catalog/cache';
import type { Skill } from '../../../src/core/connection';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import {
  installedSkills,
  installSkill,
  manifestDigest,
  ORIGIN_FILE,
  planSkillFiles,
  removeInstalledSkill,
  SkillApprovals,
} from '../../../src/core/skills';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';

const SERVER = path.join(FIXTURES, 'skills-server.mjs');
const SOURCE = path.join(FIXTURES, 'skills');
const TAMPERED = ['byte', 'size', 'frontmatter', 'extra', 'climb', 'dynamic'] as const;

describe('skills over MCP (SEP-2640)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let runtime: SwitchboardRuntime;
  let storage: MemoryToolCacheStorage;
  let copy: string;
  let work: string;

  before(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-skills-'));
    cleanup.add(() => fs.rm(work, { recursive: true, force: true }));
    copy = path.join(work, 'served');
    await fs.cp(SOURCE, copy, { recursive: true });
    storage = new MemoryToolCacheStorage();
    runtime = createRuntime({ logger: new MemoryLogger(), storage, settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([
      stdioDefinition([], { name: 'skills', args: [SERVER] }),
      stdioDefinition([], { name: 'legacy', args: [SERVER, '--legacy'] }),
      stdioDefinition([], { name: 'edited', args: [SERVER, '--skills-dir', copy] }),
      ...TAMPERED.map((mode) => stdioDefinition([], { name: mode, args: [SERVER, '--tamper', mode] })),
    ]);
    await waitForRunning(runtime.manager, ['skills', 'legacy', 'edited', ...TAMPERED]);
  });
  after(() => cleanup.run());

  const skillOf = (server: string, name: string): Skill => {
    const skill = runtime.offers.offer(server)?.skills.find((entry) => entry.frontmatter.name === name);
    assert.ok(skill, `${server} lists ${name}`);
    return skill;
  };
  const readsOf = async (server: string): Promise<string[]> => {
    const result = await runtime.manager.forwardToolCall(server, 'reads', {});
    const text = (result.content[0] as { text: string }).text;
    return JSON.parse(text) as string[];
  };
  const install = (server: string, name: string, skillsFolder: string) => {
    const skill = skillOf(server, name);
    return installSkill({ server, skill, skillsFolder, read: (ref) => runtime.offers.readSkillFile(server, skill, ref) });
  };
  const folderIn = async (name: string) => {
    const folder = path.join(work, name, '.github', 'skills');
    return folder;
  };
  const filesUnder = async (folder: string): Promise<string[]> => {
    const found: string[] = [];
    const walk = async (dir: string, prefix: string) => {
      for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) await walk(path.join(dir, entry.name), `${prefix}${entry.name}/`);
        else found.push(`${prefix}${entry.name}`);
      }
    };
    await walk(folder, '');
    return found.sort();
  };

  for (const server of ['skills', 'legacy']) {
    it(`${server}: lists every skill with the offer, in the ${server === 'legacy' ? '2025' : '2026-07-28'} era, and reads no file until one is asked for`, async () => {
      const state = runtime.manager.server(server)?.state;
      assert.equal(state?.kind === 'running' && state.era, server === 'legacy' ? 'legacy' : 'modern');
      const skills = runtime.offers.offer(server)?.skills ?? [];
      assert.deepEqual(skills.map((skill) => skill.uri).sort(), [
        'skill://acme/billing/refunds/SKILL.md',
        'skill://release-notes/SKILL.md',
      ]);
      const refunds = skillOf(server, 'refunds');
      assert.equal(refunds.frontmatter['allowed-tools'], 'Bash(curl:*)');
      assert.deepEqual(await readsOf(server), []);
    });
  }

  it('installs a skill as listed: every file, byte for byte, each read once, and where it came from', async () => {
    const folder = await folderIn('clean');
    const installed = await install('skills', 'release-notes', folder);
    assert.equal(installed.folder, path.join(folder, 'release-notes'));
    assert.deepEqual(await filesUnder(installed.folder), [ORIGIN_FILE, 'SKILL.md', 'templates/notes.md']);
    for (const file of ['SKILL.md', 'templates/notes.md'])
      assert.deepEqual(await fs.readFile(path.join(installed.folder, file)), await fs.readFile(path.join(SOURCE, 'release-notes', file)));
    const origin = JSON.parse(await fs.readFile(path.join(installed.folder, ORIGIN_FILE), 'utf8')) as Record<string, unknown>;
    assert.equal(origin.server, 'skills');
    assert.equal(origin.uri, 'skill://release-notes/SKILL.md');
    assert.equal(origin.manifest, manifestDigest(skillOf('skills', 'release-notes')));
    assert.deepEqual((await readsOf('skills')).sort(), ['skill://release-notes/SKILL.md', 'skill://release-notes/templates/notes.md']);
    // A skill under a prefix (acme/billing) goes in a folder named after the skill.
    const refunds = await install('skills', 'refunds', folder);
    assert.deepEqual(await filesUnder(refunds.folder), [ORIGIN_FILE, 'SKILL.md', 'examples/email.md']);
    assert.deepEqual(
      (await installedSkills(folder)).map((skill) => [skill.name, skill.server, skill.uri]),
      [
        ['refunds', 'skills', 'skill://acme/billing/refunds/SKILL.md'],
        ['release-notes', 'skills', 'skill://release-notes/SKILL.md'],
      ],
    );
  });

  const refusals: Record<(typeof TAMPERED)[number], RegExp> = {
    byte: /skill:\/\/release-notes\/SKILL\.md has digest sha256:[0-9a-f]{64}/,
    size: /skill:\/\/release-notes\/templates\/notes\.md is 90 bytes; the skill entry lists 70/,
    frontmatter: /frontmatter of skill:\/\/release-notes\/SKILL\.md differs from the skill entry: description/,
    extra: /^$/,
    climb: /the file "skill:\/\/release-notes\/\.\.\/\.\.\/outside\.md" is not a plain path inside the skill/,
    dynamic: /generated by the server \("dynamic"\): there is no manifest/,
  };
  for (const mode of TAMPERED.filter((mode) => mode !== 'extra')) {
    it(`refuses a skill whose server lies (${mode}), naming the file, and leaves nothing behind`, async () => {
      const folder = await folderIn(mode);
      await assert.rejects(install(mode, 'release-notes', folder), (error: Error) => {
        assert.match(error.message, /^skill `release-notes` of server `[a-z]+` (was not installed|cannot be installed): /);
        assert.match(error.message, refusals[mode]);
        return true;
      });
      assert.deepEqual(await filesUnder(folder).catch(() => []), []);
      // Checked from the entry alone: a path that climbs out, or no manifest, reads nothing at all.
      if (mode === 'climb' || mode === 'dynamic') assert.deepEqual(await readsOf(mode), []);
      // SKILL.md is the skill: when it fails, nothing else of it is fetched.
      if (mode === 'byte' || mode === 'frontmatter') assert.deepEqual(await readsOf(mode), ['skill://release-notes/SKILL.md']);
    });
  }

  it('installs only the files the entry lists: a file the server serves besides them is neither written nor readable as the skill', async () => {
    const folder = await folderIn('extra');
    const installed = await install('extra', 'release-notes', folder);
    assert.deepEqual(await filesUnder(installed.folder), [ORIGIN_FILE, 'SKILL.md', 'templates/notes.md']);
    const skill = skillOf('extra', 'release-notes');
    await assert.rejects(runtime.offers.readSkillFile('extra', skill, 'scripts/setup.sh'), (error: Error & { data?: unknown }) => {
      assert.match(error.message, /skill `release-notes` refused: skill:\/\/release-notes\/scripts\/setup\.sh is not a file of the skill/);
      assert.deepEqual(error.data, { skillVerification: { reason: 'unlisted', uri: 'skill://release-notes/scripts/setup.sh' } });
      return true;
    });
    assert.ok(!(await readsOf('extra')).includes('skill://release-notes/scripts/setup.sh'), 'nothing unlisted was fetched');
  });

  it('never replaces or removes a folder that is not its own install of that skill', async () => {
    const folder = await folderIn('foreign');
    const mine = path.join(folder, 'release-notes');
    await fs.mkdir(mine, { recursive: true });
    await fs.writeFile(path.join(mine, 'SKILL.md'), 'my own skill\n');
    await assert.rejects(
      install('skills', 'release-notes', folder),
      /already holds a skill that Switchboard did not install; it is left as it is/,
    );
    assert.equal(await fs.readFile(path.join(mine, 'SKILL.md'), 'utf8'), 'my own skill\n');
    assert.equal(await removeInstalledSkill(folder, 'release-notes', 'skills', 'skill://release-notes/SKILL.md'), false);
    assert.equal(await fs.readFile(path.join(mine, 'SKILL.md'), 'utf8'), 'my own skill\n');

    // Another server's skill of the same name: neither replaced nor removed on behalf of the first.
    const shared = await folderIn('shared');
    await install('legacy', 'release-notes', shared);
    await assert.rejects(install('skills', 'release-notes', shared), /already holds the skill from server `legacy`/);
    assert.equal(await removeInstalledSkill(shared, 'release-notes', 'skills', 'skill://release-notes/SKILL.md'), false);
    assert.equal(await removeInstalledSkill(shared, 'release-notes', 'legacy', 'skill://release-notes/SKILL.md'), true);
    assert.deepEqual(await fs.readdir(shared), []);

    // A folder of skills that is a symbolic link is not written through.
    const linked = path.join(work, 'linked', '.github');
    await fs.mkdir(linked, { recursive: true });
    await fs.symlink(path.join(work, 'elsewhere'), path.join(linked, 'skills'));
    await assert.rejects(install('skills', 'release-notes', path.join(linked, 'skills')), /is not a folder \(a symbolic link or a file\)/);
  });

  it('binds an approval to the manifest: a changed file, an added file or new frontmatter asks again; a reinstall replaces the old files', async () => {
    const values = new Map<string, string>();
    const approvals = new SkillApprovals({
      get: (key) => values.get(key),
      set: async (key, value) => void (value === undefined ? values.delete(key) : values.set(key, value)),
    });
    const before = skillOf('edited', 'release-notes');
    assert.equal(approvals.isApproved('edited', before), false);
    await approvals.approve('edited', before);
    assert.equal(approvals.isApproved('edited', before), true);
    // Same URI, another server: a different skill, not approved.
    assert.equal(approvals.isApproved('skills', skillOf('skills', 'release-notes')), false);
    const folder = await folderIn('edited');
    await install('edited', 'release-notes', folder);

    await fs.appendFile(path.join(copy, 'release-notes', 'templates', 'notes.md'), '\n### Security\n- \n');
    await fs.writeFile(path.join(copy, 'release-notes', 'templates', 'summary.md'), 'In one line: {{summary}}\n');
    await runtime.offers.refresh('edited');
    const after = skillOf('edited', 'release-notes');
    assert.notEqual(manifestDigest(after), manifestDigest(before));
    assert.equal(approvals.isApproved('edited', after), false, 'a changed manifest is not approved');
    const installed = await install('edited', 'release-notes', folder);
    assert.deepEqual(await filesUnder(installed.folder), [ORIGIN_FILE, 'SKILL.md', 'templates/notes.md', 'templates/summary.md']);
    assert.match(await fs.readFile(path.join(installed.folder, 'templates', 'notes.md'), 'utf8'), /### Security/);
    assert.equal((await installedSkills(folder))[0]?.manifest, manifestDigest(after));
    assert.deepEqual(
      (await fs.readdir(folder)).filter((name) => name.startsWith('.')),
      [],
      'no staging folder is left',
    );

    await approvals.forget('edited', after.uri);
    assert.equal(approvals.isApproved('edited', after), false);
    assert.equal(manifestDigest(skillOf('dynamic', 'release-notes')), undefined);
  });

  it('checks paths and limits from the entry alone', () => {
    const base = skillOf('skills', 'release-notes');
    const withFiles = (uris: string[]): Skill => ({
      ...base,
      resources: [
        ...(base.resources as { uri: string; digest: string; size: number }[]),
        ...uris.map((uri) => ({ uri, digest: 'sha256:' + '0'.repeat(64), size: 1 })),
      ],
    });
    for (const bad of [
      'skill://release-notes/../x.md',
      'skill://release-notes/a/%2e%2e/%2e%2e/x.md',
      'skill://release-notes/a%2Fb.md',
      'skill://release-notes/a\\..\\b.md',
      'skill://release-notes//x.md',
      'skill://release-notes/C:x.md',
      'skill://other/SKILL.md',
      'skill://release-notes/TEMPLATES/NOTES.md',
    ]) {
      const plan = planSkillFiles(withFiles([bad]));
      assert.ok('problem' in plan, bad);
    }
    const many = planSkillFiles(withFiles(Array.from({ length: 511 }, (_, i) => `skill://release-notes/f${i}.md`)));
    assert.ok('problem' in many && /513 files \(at most 512\)/.test(many.problem));
    const huge = planSkillFiles({
      ...base,
      resources: [{ uri: base.uri, digest: 'sha256:' + '0'.repeat(64), size: 16 * 1024 * 1024 + 1 }],
    });
    assert.ok('problem' in huge && /16777217 bytes/.test(huge.problem));
    const ok = planSkillFiles(withFiles(['skill://release-notes/a%20b.md']));
    assert.ok('files' in ok && ok.files.some((file) => file.path === 'a b.md'));
  });

  it('keeps the skills with the offer in the cache, so a restart shows them before the server is up', async () => {
    const keys = await storage.keys();
    const entries = await Promise.all(keys.map(async (key) => parseToolCacheEntry(key, await storage.get(key))));
    const cached = entries.flatMap((entry) => ('entry' in entry && entry.entry.server === 'skills' ? [entry.entry] : []));
    assert.deepEqual(cached[0]?.offer?.skills?.map((skill) => skill.uri).sort(), [
      'skill://acme/billing/refunds/SKILL.md',
      'skill://release-notes/SKILL.md',
    ]);
  });
});
