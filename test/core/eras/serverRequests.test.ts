// What servers ask of their client (elicitation, sampling, roots), through the real runtime: a
// request made while the gateway serves a client's call goes back to that client; otherwise the
// host answers (here: the terminal apps' answers, or a recording host).
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { cliAnswers } from '../../../src/core/cli/folder/cliAnswers';
import type { ServerDefinition } from '../../../src/core/config/types';
import type { HostAnswers } from '../../../src/core/connection/rounds/relayRouter';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition, tempDir, textOf } from '../connection/helpers';
import { eventually, waitForRunning } from '../gateway/helpers';

type Era = 'legacy' | 'modern';
const MODERN_SERVER = path.join(FIXTURES, 'modern-server.mjs');

function upstream(era: Era): ServerDefinition {
  return era === 'legacy'
    ? stdioDefinition(['--features', '--asking-prompt'], { name: 'up' })
    : stdioDefinition([], { name: 'up', args: [MODERN_SERVER] });
}

async function run(cleanup: Cleanup, era: Era, hostAnswers?: HostAnswers): Promise<SwitchboardRuntime> {
  const runtime = createRuntime({
    logger: new MemoryLogger(),
    storage: new MemoryToolCacheStorage(),
    settings: {},
    ...(hostAnswers ? { hostAnswers } : {}),
  });
  cleanup.add(() => runtime.dispose());
  await runtime.manager.start([upstream(era)]);
  await waitForRunning(runtime.manager, ['up']);
  await runtime.gateway().start();
  return runtime;
}

async function gatewayClient(
  cleanup: Cleanup,
  runtime: SwitchboardRuntime,
  capabilities: ClientCapabilities,
  era: Era = 'legacy',
): Promise<Client> {
  const gateway = runtime.gateway();
  const client = new Client(
    { name: 'asker', version: '1.0.0' },
    { capabilities, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.endpointUrl('up')), {
      requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
    }),
  );
  cleanup.add(() => client.close());
  return client;
}

function answerOf(result: unknown): unknown {
  return JSON.parse(textOf(result as CallToolResult));
}

describe('what servers ask of their client', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era} server: elicitation during a call reaches the 2025 client that made it, and its answer reaches the server`, async () => {
      const hostAsked: string[] = [];
      const runtime = await run(cleanup, era, { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
      const client = await gatewayClient(cleanup, runtime, { elicitation: { form: {} } });
      const forms: unknown[] = [];
      client.setRequestHandler('elicitation/create', async (request) => {
        forms.push(request.params);
        return { action: 'accept', content: { name: 'Grace', age: 36, subscribe: true, color: 'green' } };
      });
      const answer = answerOf(await client.callTool({ name: 'ask_user', arguments: {} }));
      assert.deepEqual(answer, { action: 'accept', content: { name: 'Grace', age: 36, subscribe: true, color: 'green' } });
      assert.equal(forms.length, 1);
      const form = forms[0] as { message: string; requestedSchema: { properties: Record<string, unknown>; required: string[] } };
      assert.equal(form.message, 'Tell the fixture about yourself');
      assert.deepEqual(Object.keys(form.requestedSchema.properties), ['name', 'age', 'subscribe', 'color']);
      assert.deepEqual(form.requestedSchema.required, ['name']);
      assert.deepEqual(hostAsked, [], 'the host was not asked');
    });

    it(`${era} server: sampling and roots during a call go to the client that declared them`, async () => {
      const runtime = await run(cleanup, era, { listRoots: async () => ({ roots: [{ uri: 'file:///host', name: 'host' }] }) });
      const client = await gatewayClient(cleanup, runtime, { sampling: {}, roots: { listChanged: true } });
      const prompts: unknown[] = [];
      client.setRequestHandler('sampling/createMessage', async (request) => {
        prompts.push(request.params.messages);
        return { role: 'assistant', content: { type: 'text', text: 'a sampled answer' }, model: 'client-model' };
      });
      client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///client', name: 'client' }] }));
      const sampled = answerOf(await client.callTool({ name: 'ask_model', arguments: { prompt: 'Say hi' } })) as {
        model: string;
        content: { text: string };
      };
      assert.equal(sampled.model, 'client-model');
      assert.equal(sampled.content.text, 'a sampled answer');
      assert.deepEqual(prompts, [[{ role: 'user', content: { type: 'text', text: 'Say hi' } }]]);
      assert.deepEqual(answerOf(await client.callTool({ name: 'list_roots', arguments: {} })), {
        roots: [{ uri: 'file:///client', name: 'client' }],
      });
    });

    it(`${era} server: the host answers for a client that did not declare the capability, naming the server`, async () => {
      const asked: string[] = [];
      const runtime = await run(cleanup, era, {
        elicit: async (server, params) => (asked.push(`${server}: ${params.message}`), { action: 'accept', content: { name: 'Host' } }),
        listRoots: async () => ({ roots: [{ uri: 'file:///host', name: 'host' }] }),
      });
      const client = await gatewayClient(cleanup, runtime, {});
      assert.deepEqual(answerOf(await client.callTool({ name: 'ask_user', arguments: {} })), {
        action: 'accept',
        content: { name: 'Host' },
      });
      assert.deepEqual(asked, ['up: Tell the fixture about yourself']);
      assert.deepEqual(answerOf(await client.callTool({ name: 'list_roots', arguments: {} })), {
        roots: [{ uri: 'file:///host', name: 'host' }],
      });
    });

    it(`${era} server: on the CLI, elicitation and sampling are declined with the reason, and the folder is the root`, async () => {
      const folder = tempDir(cleanup);
      const runtime = await run(cleanup, era, cliAnswers(folder, 'serve'));
      const client = await gatewayClient(cleanup, runtime, {});
      // A 2025 server reports the refusal as a tool error; a 2026-07-28 round fails the call.
      const failure = (name: string) =>
        client.callTool({ name, arguments: {} }).then(
          (result) => (assert.equal((result as CallToolResult).isError, true, JSON.stringify(result)), textOf(result as CallToolResult)),
          (error: unknown) => (error as Error).message,
        );
      assert.match(await failure('ask_user'), /declined the elicitation request of server "up": `mcp-switchboard serve` has nobody to ask/);
      assert.match(await failure('ask_model'), /declined the sampling request of server "up": `mcp-switchboard serve` has no model to ask/);
      const roots = answerOf(await client.callTool({ name: 'list_roots', arguments: {} })) as { roots: { uri: string }[] };
      assert.deepEqual(
        roots.roots.map((root) => root.uri),
        [`file://${folder}`],
      );
    });
  }

  it('does not guess: with two calls in flight to a 2025 stdio server, its request goes to the host', async () => {
    const hostAsked: string[] = [];
    const runtime = await run(cleanup, 'legacy', {
      elicit: async (server) => (hostAsked.push(server), { action: 'accept', content: { name: 'Host' } }),
    });
    const asker = await gatewayClient(cleanup, runtime, { elicitation: { form: {} } });
    const other = await gatewayClient(cleanup, runtime, { elicitation: { form: {} } });
    const clientsAsked: string[] = [];
    for (const [name, client] of [
      ['asker', asker],
      ['other', other],
    ] as const) {
      client.setRequestHandler('elicitation/create', async () => (clientsAsked.push(name), { action: 'accept', content: { name } }));
    }
    const slow = other.callTool({ name: 'slow', arguments: { ms: 1500 } });
    // The slow call is in flight once the fixture counts it.
    await eventually(
      async () =>
        (JSON.parse(textOf((await asker.callTool({ name: 'stats', arguments: {} })) as CallToolResult)) as { calls: number }).calls >= 1
          ? true
          : undefined,
      'the slow call started',
    );
    assert.deepEqual(answerOf(await asker.callTool({ name: 'ask_user', arguments: {} })), { action: 'accept', content: { name: 'Host' } });
    assert.deepEqual({ hostAsked, clientsAsked }, { hostAsked: ['up'], clientsAsked: [] });
    await slow;
  });

  it("a lazy 2025 server woken by one client's call sends what it asks in a later call to that call's client, not to the first call's", async () => {
    const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition(['--features'], { name: 'up', lifecycle: { start: 'lazy', idleStopMs: 0 } })]);
    await runtime.gateway().start();
    const first = await gatewayClient(cleanup, runtime, { elicitation: { form: {} } });
    const second = await gatewayClient(cleanup, runtime, { elicitation: { form: {} } });
    const asked: string[] = [];
    for (const [name, client] of [
      ['first', first],
      ['second', second],
    ] as const) {
      client.setRequestHandler('elicitation/create', async () => (asked.push(name), { action: 'accept', content: { name } }));
    }
    // The first call starts the server: its streams are made in this call's context, which outlives the call.
    assert.equal(textOf((await first.callTool({ name: 'echo', arguments: { text: 'wake' } })) as CallToolResult), 'wake');
    assert.deepEqual(answerOf(await second.callTool({ name: 'ask_user', arguments: {} })), {
      action: 'accept',
      content: { name: 'second' },
    });
    assert.deepEqual(asked, ['second']);
  });

  it('tells running 2025 servers when the roots change (the editor calls this when workspace folders change)', async () => {
    let roots = [{ uri: 'file:///one', name: 'one' }];
    const runtime = await run(cleanup, 'legacy', { listRoots: async () => ({ roots }) });
    const client = await gatewayClient(cleanup, runtime, {});
    assert.deepEqual(answerOf(await client.callTool({ name: 'list_roots', arguments: {} })), { roots });
    roots = [...roots, { uri: 'file:///two', name: 'two' }];
    runtime.manager.notifyRootsChanged();
    // A notification has no answer; the next request on the same pipe comes after it.
    assert.equal(textOf((await client.callTool({ name: 'roots_changes', arguments: {} })) as CallToolResult), '1');
    assert.deepEqual(answerOf(await client.callTool({ name: 'list_roots', arguments: {} })), { roots });
  });

  it('elicitation while a prompt is got goes to the 2025 client that asked for the prompt', async () => {
    const hostAsked: string[] = [];
    const runtime = await run(cleanup, 'legacy', { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
    const client = await gatewayClient(cleanup, runtime, { elicitation: { form: {} } });
    client.setRequestHandler('elicitation/create', async (request) => ({
      action: 'accept',
      content: { name: request.params.message.includes('name') ? 'Ada' : '?' },
    }));
    const prompt = await client.getPrompt({ name: 'personal_greeting' });
    assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada, nice to meet you!' } }]);
    assert.deepEqual(hostAsked, []);
  });

  it("a 2026-07-28 client of the gateway gets a 2025 upstream's request as a round of its own request (callBridge.ts)", async () => {
    const hostAsked: string[] = [];
    const runtime = await run(cleanup, 'legacy', { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
    const client = await gatewayClient(cleanup, runtime, { elicitation: { form: {} } }, 'modern');
    // The SDK client answers the round with its handler and retries on its own.
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    assert.deepEqual(answerOf(await client.callTool({ name: 'ask_user', arguments: {} })), {
      action: 'accept',
      content: { name: 'Grace' },
    });
    assert.deepEqual(hostAsked, [], 'the client answered, not the host');
  });

  it('a 2026-07-28 client that did not declare elicitation is answered by the host', async () => {
    const hostAsked: string[] = [];
    const runtime = await run(cleanup, 'legacy', { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
    const client = await gatewayClient(cleanup, runtime, {}, 'modern');
    assert.deepEqual(answerOf(await client.callTool({ name: 'ask_user', arguments: {} })), { action: 'decline' });
    assert.deepEqual(hostAsked, ['up']);
  });
});
