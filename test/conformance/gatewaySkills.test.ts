// The gateway serves its servers' skills (SEP-2640): the suite's server scenarios for the skills
// extension (enumeration, manifest, directory read), graded through the gateway in front of the
// skills fixture (test/fixtures/skills-server.mjs, stdio, 2026-07-28), on the server's own endpoint
// and on the aggregated one, in both revisions of the client; and a client of the gateway installs
// a skill through it with the SDK's skills client, every file checked, a tampered one refused.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { MemoryToolCacheStorage } from '../../src/core/catalog';
import { createRuntime, type SwitchboardRuntime } from '../../src/core/runtime/runtime';
import { stdioDefinition } from '../core/connection/helpers';
import { Cleanup, MemoryLogger, waitForRunning } from '../core/gateway/helpers';
import { conformanceCli, grade, runScenario, startTokenProxy, type ScenarioRun } from './serverHarness';

const SKILLS_SERVER = path.resolve(__dirname, '../fixtures/skills-server.mjs');
const SCENARIOS = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];

describe('gateway: the skills extension served for its servers', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  let runtime: SwitchboardRuntime;
  let proxied: string;
  const runs = new Map<string, ScenarioRun>();

  before(async function () {
    this.timeout(300_000);
    conformanceCli();
    runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([
      stdioDefinition([], { name: 'docs', args: [SKILLS_SERVER] }),
      stdioDefinition([], {
        name: 'lying',
        args: [SKILLS_SERVER, '--tamper', 'byte', '--skills-dir', path.resolve(__dirname, '../fixtures/skills')],
      }),
      stdioDefinition([], { name: 'plain' }),
    ]);
    await waitForRunning(runtime.manager, ['docs', 'lying', 'plain']);
    const gateway = runtime.gateway();
    await gateway.start();
    proxied = `http://127.0.0.1:${await startTokenProxy(cleanup, gateway.port, gateway.token)}/mcp`;
    for (const scenario of SCENARIOS) {
      runs.set(`${scenario} on /mcp/docs`, await runScenario(cleanup, `${proxied}/docs`, scenario));
      runs.set(`${scenario} on /mcp`, await runScenario(cleanup, proxied, scenario));
    }
  });
  after(() => cleanup.run());

  for (const scenario of SCENARIOS)
    for (const [where, endpoint] of [
      ["the server's own endpoint", '/mcp/docs'],
      ['the aggregated endpoint', '/mcp'],
    ]) {
      it(`${scenario}, on ${where}`, () => {
        const run = runs.get(`${scenario} on ${endpoint}`);
        assert.ok(run, `${scenario} did not run`);
        grade(run, {});
      });
    }

  async function connect(endpoint: string, modern: boolean): Promise<Client> {
    const client = new Client(
      { name: 'skills-client', version: '1.0.0' },
      modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxied}${endpoint}`)));
    cleanup.add(() => client.close());
    return client;
  }

  for (const modern of [false, true]) {
    const era = modern ? '2026-07-28' : '2025';
    it(`${era} client: lists, gets and reads every file of a skill through the gateway, checked; a server without skills declares none`, async () => {
      const client = await connect('/docs', modern);
      const skills = new SkillsClient(client);
      assert.equal(skills.supported, true);
      assert.equal(skills.directoryRead, true);
      const { skills: entries } = await skills.list();
      assert.deepEqual(entries.map((skill) => skill.uri).sort(), [
        'skill://acme/billing/refunds/SKILL.md',
        'skill://release-notes/SKILL.md',
      ]);
      const notes = entries.find((skill) => skill.frontmatter.name === 'release-notes');
      assert.ok(notes);
      assert.deepEqual((await skills.get(notes.uri)).skill, notes);
      const main = await skills.read(notes);
      assert.equal(main.verified, true);
      assert.match(main.body ?? '', /# Release notes/);
      const template = await skills.read(notes, 'templates/notes.md');
      assert.equal(template.verified, true);
      const dir = await skills.readDirectory('skill://release-notes/templates');
      assert.deepEqual(
        dir.resources.map((resource) => resource.uri),
        ['skill://release-notes/templates/notes.md'],
      );
      await assert.rejects(skills.get('skill://nothing/SKILL.md'), /No skill is served at skill:\/\/nothing\/SKILL\.md/);

      const plain = new SkillsClient(await connect('/plain', modern));
      assert.equal(plain.supported, false);
    });

    it(`${era} client: the aggregated endpoint serves every server's skills and routes each file to its server; a tampered file is caught by the client`, async () => {
      const client = await connect('', modern);
      const skills = new SkillsClient(client, { skipInvalid: true });
      const { skills: entries } = await skills.list();
      // Both servers serve the same URIs: the first in configuration order owns them here.
      assert.deepEqual(entries.map((skill) => skill.uri).sort(), [
        'skill://acme/billing/refunds/SKILL.md',
        'skill://release-notes/SKILL.md',
      ]);
      const refunds = entries.find((skill) => skill.frontmatter.name === 'refunds');
      assert.ok(refunds);
      assert.equal((await skills.read(refunds, 'examples/email.md')).verified, true);

      const lying = new SkillsClient(await connect('/lying', modern));
      const tampered = (await lying.list()).skills.find((skill) => skill.frontmatter.name === 'release-notes');
      assert.ok(tampered);
      await assert.rejects(lying.read(tampered), (error: unknown) => error instanceof SkillVerificationError && error.reason === 'digest');
    });
  }
});
