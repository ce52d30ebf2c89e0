// input_required rounds of a 2026-07-28 upstream, for 2026-07-28 clients of the gateway: what the
// client declared goes back to it in its own request; what it did not, the host answers and
// carries into the client's retry; the state the client holds is the gateway's, and is refused
// when tampered with, replayed, or used for another request. The upstream is the conformance
// fixture over stdio in both eras (Switchboard's connection speaks 2026-07-28 to it).
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
} from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import type { HostAnswers } from '../../../src/core/connection/rounds/relayRouter';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition, textOf } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';

const UPSTREAM = path.join(FIXTURES, 'conformance-upstream.mjs');
const NAME = { action: 'accept' as const, content: { name: 'Ada' } };

async function start(cleanup: Cleanup, hostAnswers: HostAnswers = {}): Promise<SwitchboardRuntime> {
  const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {}, hostAnswers });
  cleanup.add(() => runtime.dispose());
  await runtime.manager.start([stdioDefinition([], { name: 'up', args: [UPSTREAM, '--modern'] })]);
  await waitForRunning(runtime.manager, ['up']);
  await runtime.gateway().start();
  return runtime;
}

async function modernClient(cleanup: Cleanup, runtime: SwitchboardRuntime, capabilities: ClientCapabilities): Promise<Client> {
  const gateway = runtime.gateway();
  // Manual rounds: the test plays the client that answers them.
  const client = new Client(
    { name: 'rounds', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.endpointUrl('up')), {
      requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
    }),
  );
  cleanup.add(() => client.close());
  return client;
}

function call(client: Client, name: string, extra: Record<string, unknown> = {}): Promise<CallToolResult | InputRequiredResult> {
  return client.callTool({ name, arguments: {}, ...extra }, { allowInputRequired: true }) as Promise<CallToolResult | InputRequiredResult>;
}

function round(result: CallToolResult | InputRequiredResult): InputRequiredResult {
  assert.equal(
    (result as InputRequiredResult).resultType,
    'input_required',
    `expected a round, got ${JSON.stringify(result).slice(0, 300)}`,
  );
  return result as InputRequiredResult;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = (await promise.then(
    () => assert.fail('expected an error'),
    (caught: unknown) => caught,
  )) as { code: number; message: string };
  return error;
}

describe('input_required rounds for 2026-07-28 clients of the gateway', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('a client that declared elicitation gets the round and finishes it with its answer; the host is not asked', async () => {
    const hostAsked: string[] = [];
    const runtime = await start(cleanup, { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
    const client = await modernClient(cleanup, runtime, { elicitation: { form: {} } });
    const first = round(await call(client, 'test_input_required_result_request_state'));
    assert.deepEqual(Object.keys(first.inputRequests ?? {}), ['confirm']);
    assert.equal(typeof first.requestState, 'string');
    const done = (await call(client, 'test_input_required_result_request_state', {
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      requestState: first.requestState,
    })) as CallToolResult;
    assert.match(textOf(done), /^state-ok: confirmed=true/);
    assert.deepEqual(hostAsked, []);
  });

  it('a state is refused when replayed, tampered with, or sent with another tool', async () => {
    const runtime = await start(cleanup);
    const client = await modernClient(cleanup, runtime, { elicitation: { form: {} } });
    const first = round(await call(client, 'test_input_required_result_request_state'));
    const answer = { inputResponses: { confirm: { action: 'accept', content: { ok: true } } }, requestState: first.requestState };
    const elsewhere = await refusal(call(client, 'test_input_required_result_tampered_state', answer));
    assert.equal(elsewhere.code, -32602);
    assert.match(elsewhere.message, /another request/);
    const tampered = await refusal(
      call(client, 'test_input_required_result_request_state', { ...answer, requestState: `${String(first.requestState)}x` }),
    );
    assert.equal(tampered.code, -32602);
    // Neither refusal spent the state: its own request still finishes, once.
    assert.match(textOf((await call(client, 'test_input_required_result_request_state', answer)) as CallToolResult), /^state-ok/);
    const replayed = await refusal(call(client, 'test_input_required_result_request_state', answer));
    assert.equal(replayed.code, -32602);
    assert.match(replayed.message, /already used/);
  });

  it('what the client did not declare, the host answers, and its answers ride in the state to the retry', async () => {
    const hostAsked: string[] = [];
    const runtime = await start(cleanup, {
      elicit: async (server, params) => (hostAsked.push(`${server}: ${params.message}`), NAME),
      listRoots: async () => ({ roots: [{ uri: 'file:///host', name: 'host' }] }),
    });
    const client = await modernClient(cleanup, runtime, { sampling: {} });
    const first = round(await call(client, 'test_input_required_result_multiple_inputs'));
    assert.deepEqual(Object.keys(first.inputRequests ?? {}), ['greeting'], 'only what the client declared');
    assert.deepEqual(hostAsked, ['up: What is your name?']);
    const done = (await call(client, 'test_input_required_result_multiple_inputs', {
      inputResponses: { greeting: { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'client-model' } },
      requestState: first.requestState,
    })) as CallToolResult;
    assert.equal(textOf(done), 'Hello Ada (1 roots)');
    assert.equal(hostAsked.length, 1, 'the host was asked once');
  });

  it('the upstream sees what the client declared: without sampling, test_missing_capability is refused with -32021', async () => {
    const runtime = await start(cleanup);
    const bare = await modernClient(cleanup, runtime, {});
    const refused = await refusal(call(bare, 'test_missing_capability'));
    assert.equal(refused.code, -32021);
    const sampling = await modernClient(cleanup, runtime, { sampling: {} });
    assert.equal(textOf((await call(sampling, 'test_missing_capability')) as CallToolResult), 'the client declared sampling');
  });

  it('a client that declared nothing is answered by the host in one request', async () => {
    const runtime = await start(cleanup, { elicit: async () => NAME });
    const client = await modernClient(cleanup, runtime, {});
    assert.equal(textOf((await call(client, 'test_input_required_result_elicitation')) as CallToolResult), 'Hello, Ada!');
  });
});
