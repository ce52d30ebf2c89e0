// A team user's view of the catalog (identity/grantedCatalog.ts), over a real ToolCatalog: what the
// grant keeps from the user is refused before the catalog waits for, or wakes, anything for it.
import assert from 'node:assert/strict';
import { AccessPolicy, grantedCatalog, type DeniedCall, type Principal } from '../../../src/core/identity';
import { ToolCatalog } from '../../../src/core/catalog/toolCatalog';
import { MemoryToolCacheStorage } from '../../../src/core/catalog/cache';
import { isSwitchboardError } from '../../../src/core/state';
import { Cleanup, MemoryLogger } from '../connection/helpers';
import { definition, FakeClock, FakeManager, tools } from './../catalog/helpers';

const policy = AccessPolicy.parse({
  rules: [{ match: { groups: ['dev'] }, allow: { servers: ['git', 'notes'], tools: ['status', 'read'] } }],
});
const dev: Principal = {
  issuer: 'https://idp.test',
  subject: 'dee',
  key: 'https://idp.test dee',
  clientId: undefined,
  scopes: [],
  claims: { groups: ['dev'] },
  expiresAt: 0,
};

/** Lets the catalog take in what the manager announced. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("a team user's view of the catalog", () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function setup() {
    const manager = new FakeManager();
    manager.configure([definition('git'), definition('notes'), definition('prod')]);
    const catalog = new ToolCatalog({ manager, storage: new MemoryToolCacheStorage(), clock: new FakeClock(), logger: new MemoryLogger() });
    cleanup.add(() => catalog.dispose());
    await catalog.ready;
    const denied: DeniedCall[] = [];
    const view = grantedCatalog(catalog, undefined, policy.grantFor(dev), (call) => denied.push(call)).source;
    return { manager, catalog, view, denied };
  }

  it('refuses a tool the grant keeps from the user before waiting for its server, and never wakes it', async () => {
    const { manager, view, denied } = await setup();
    // It ran once (its list is known), and stopped when idle.
    manager.setTools('notes', tools('read', 'write'), false);
    manager.setState('notes', 'running');
    await settled();
    manager.setState('notes', 'idle');
    await settled();
    await assert.rejects(view.readyTool({ server: 'notes', tool: 'write' }, { caller: 'dee via test' }), (error) =>
      isSwitchboardError(error, 'UNKNOWN_TOOL'),
    );
    assert.deepEqual(manager.wakes, [], 'a refused call wakes nothing');
    assert.deepEqual(
      denied.map(({ server, tool, caller }) => [server, tool, caller]),
      [['notes', 'write', 'dee via test']],
    );
    // What the grant allows is woken for, as any call is (this fake manager never starts it).
    await view.readyTool({ server: 'notes', tool: 'read' }).catch(() => undefined);
    assert.deepEqual(manager.wakes, ['notes']);
  });

  it('finds a qualified name only among the servers the user may see', async () => {
    const { manager, view, denied } = await setup();
    for (const server of ['git', 'notes', 'prod']) {
      manager.setTools(server, tools('status'), false);
      manager.setState(server, 'running');
    }
    await settled();
    assert.deepEqual(await view.readyTool({ qualifiedName: 'git__status' }).then(({ server }) => server), 'git');
    await assert.rejects(view.readyTool({ qualifiedName: 'prod__status' }), (error) => isSwitchboardError(error, 'UNKNOWN_TOOL'));
    assert.deepEqual(denied, [], 'a server the user cannot see is not even a refusal: it is not there');
  });
});
