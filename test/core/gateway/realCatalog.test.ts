// The whole chain of one call, on the real parts: gateway → ToolCatalog (the one gate) → manager →
// connection → fixture process. The other gateway tests stand a fake source in for the catalog.
import assert from 'node:assert/strict';
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { createRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, stdioDefinition, textOf } from '../connection/helpers';
import { FakeClock } from '../support/fakeClock';
import { eventually } from '../support/poll';
import { connectClient, waitForRunning } from './helpers';

describe('gateway over the real catalog', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('calls an exposed tool, and refuses a denied or switched-off one at the catalog with the rule named', async () => {
    const runtime = createRuntime({ storage: new MemoryToolCacheStorage(), settings: { disabled: ['alpha/echo'] } });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition([], { name: 'alpha', tools: { deny: ['ad*'] } })]);
    await waitForRunning(runtime.manager, ['alpha']);
    const gateway = runtime.gateway();
    await gateway.start();
    const { client } = await connectClient(cleanup, gateway.endpointUrl('alpha'), gateway.token);

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('slow') && !names.includes('add') && !names.includes('echo'), names.join(', '));
    assert.equal(textOf((await client.callTool({ name: 'count', arguments: {} })) as CallToolResult), '1');

    const refused = async (name: string): Promise<ProtocolError> =>
      client.callTool({ name, arguments: { a: 1, b: 2, text: 'x' } }).then(
        () => assert.fail(`${name} was called`),
        (error: unknown) => {
          assert.ok(error instanceof ProtocolError, String(error));
          return error;
        },
      );
    const denied = await refused('add');
    assert.equal(denied.code, ProtocolErrorCode.InvalidParams);
    assert.match(denied.message, /Tool "add" of server "alpha" is not exposed: denied by the tools\.deny pattern "ad\*" of server "alpha"/);
    const off = await refused('echo');
    assert.match(off.message, /Tool "echo" of server "alpha" is not exposed: disabled in mcpSwitchboard\.tools\.disabled/);
    assert.equal(
      textOf((await client.callTool({ name: 'count', arguments: {} })) as CallToolResult),
      '2',
      'the refused calls never reached the server',
    );
  });
});

describe('gateway over the real catalog: every filter rule refuses a call, on both endpoints', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  // One server per rule, and the tool that rule hides. Two rules are not here: `filterError` needs a
  // filter step that throws, which no setting can make (the catalog's own tests cover it), and a
  // live tool with a malformed schema never reaches the catalog: the connection quarantines it, so
  // it is refused as unknown (test/core/connection/hostileServer.test.ts).
  const rules = [
    { server: 'deny', overrides: { tools: { deny: ['ad*'] } }, rule: /denied by the tools\.deny pattern "ad\*"/ },
    { server: 'allow', overrides: { tools: { allow: ['echo', 'count'] } }, rule: /not matched by the tools\.allow list/ },
    { server: 'global', overrides: {}, rule: /denied by the mcpSwitchboard\.tools\.deny pattern "global\/add"/ },
    { server: 'off', overrides: {}, rule: /disabled in mcpSwitchboard\.tools\.disabled/ },
    { server: 'readonly', overrides: { tools: { readOnly: true } }, rule: /has tools\.readOnly and the tool has no readOnlyHint/ },
    // Last in the configuration: the budget is one tool per server the others expose, so each of
    // them gets one and this one, whose tools are all eligible, none (the budget is shared).
    { server: 'budget', overrides: {}, rule: /more tools are eligible than mcpSwitchboard\.tools\.maxExposed/ },
  ] as const;
  const settings = { globalDeny: ['global/add'], disabled: ['off/add'] };
  const definitions = rules.map((entry) => stdioDefinition([], { name: entry.server, ...entry.overrides }));
  let gateway: ReturnType<ReturnType<typeof createRuntime>['gateway']>;

  before(async () => {
    const exposedBefore = async (): Promise<number> => {
      const probe = createRuntime({ storage: new MemoryToolCacheStorage(), settings });
      try {
        await probe.manager.start(definitions.slice(0, -1));
        await waitForRunning(
          probe.manager,
          rules.slice(0, -1).map((entry) => entry.server),
        );
        return probe.catalog.snapshot().servers.filter((server) => server.tools.some((tool) => tool.exposed)).length;
      } finally {
        await probe.dispose();
      }
    };
    const runtime = createRuntime({ storage: new MemoryToolCacheStorage(), settings: { ...settings, maxExposed: await exposedBefore() } });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start(definitions);
    await waitForRunning(
      runtime.manager,
      rules.map((entry) => entry.server),
    );
    gateway = runtime.gateway();
    await gateway.start();
  });

  for (const entry of rules) {
    it(`${entry.server}: add is refused with its rule, on /mcp/${entry.server} and on /mcp`, async () => {
      const perServer = await connectClient(cleanup, gateway.endpointUrl(entry.server), gateway.token);
      const aggregated = await connectClient(cleanup, gateway.aggregatedUrl, gateway.token);
      const qualified = `${entry.server}__add`;
      assert.ok(!(await perServer.client.listTools()).tools.some((tool) => tool.name === 'add'), 'not listed');
      assert.ok(
        !(await aggregated.client.listTools()).tools.some((tool) => tool.name === qualified),
        'not listed under its qualified name',
      );
      for (const [where, client, name] of [
        [`/mcp/${entry.server}`, perServer.client, 'add'],
        ['/mcp', aggregated.client, qualified],
      ] as const) {
        const error = await client.callTool({ name, arguments: { a: 1, b: 2 } }).then(
          () => assert.fail(`${name} was called through ${where}`),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof ProtocolError, String(error));
        assert.equal(error.code, ProtocolErrorCode.InvalidParams, where);
        assert.match(error.message, new RegExp(`Tool "${name}" of server "${entry.server}" is not exposed: `), where);
        assert.match(error.message, entry.rule, where);
      }
    });
  }
});

describe('gateway over the real catalog: a server that is not ready', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('is waited for once, until one deadline (its requestMs from when the call came), and fails with the one NOT_READY error', async () => {
    const clock = new FakeClock(Date.now());
    const runtime = createRuntime({ storage: new MemoryToolCacheStorage(), settings: {}, clock });
    cleanup.add(() => runtime.dispose());
    // Never answers initialize, and nothing is cached: the name cannot even be mapped yet.
    // (start() settles when the server does, which this one never will.)
    void runtime.manager.start([stdioDefinition(['--hang-initialize'], { name: 'hung', timeouts: { connectMs: 0, requestMs: 600 } })]);
    await eventually(
      () => {
        const hung = runtime.catalog.snapshot().servers.find((server) => server.name === 'hung');
        return (hung?.state === 'starting' && hung.tools.length === 0) || undefined;
      },
      'the server starting',
      10_000,
    );
    const gateway = runtime.gateway();
    await gateway.start();
    const { client } = await connectClient(cleanup, gateway.aggregatedUrl, gateway.token);
    const calling = client.callTool({ name: 'hung__echo', arguments: { text: 'x' } }).then(
      () => assert.fail('the call was answered'),
      (error: unknown) => error,
    );
    await eventually(() => runtime.catalog.diagnostics().waitingCalls === 1 || undefined, 'the call waiting for its server', 10_000);
    assert.deepEqual(
      clock.pendingDelays().filter((delay) => delay >= 600),
      [600],
      'one wait, with one timer at the deadline',
    );
    clock.advance(599);
    assert.equal(runtime.catalog.diagnostics().waitingCalls, 1, 'still waiting just before the deadline');
    clock.advance(1);
    const error = await calling;
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, -32001);
    assert.match(error.message, /server `hung` was not ready within 600 ms \(timeouts\.requestMs\); nothing was sent/);
    assert.equal(runtime.catalog.diagnostics().waitingCalls, 0);
    assert.deepEqual(
      clock.pendingDelays().filter((delay) => delay >= 600),
      [],
      'no wait left behind',
    );
  });
});
