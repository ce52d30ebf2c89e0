// The client under test for `@modelcontextprotocol/conformance client`. The harness starts a
// scenario server and runs `<this command> <server-url>` with MCP_CONFORMANCE_SCENARIO set; the
// checks are made on the server side from what we send. Everything goes through ServerConnection,
// configured as a user's `"type": "http"` entry would be, so the harness grades the product's code
// path and not a hand-written SDK client.
//   node --import tsx test/conformance/client.ts <server-url>
import type { CallToolResult, FetchLike } from '@modelcontextprotocol/client';
import { CallbackRouter, MemorySecretStore, OAuthRegistry, ServerSignIn, type SignInBrowser } from '../../src/core/auth';
import {
  DEFAULT_OAUTH,
  DEFAULT_RECONNECT,
  DEFAULT_TIMEOUTS,
  type HttpServerDefinition,
  type OAuthSettings,
} from '../../src/core/config/types';
import { isSwitchboardError, ServerConnection } from '../../src/core/connection';
import { installSkill, SkillInstallError } from '../../src/core/skills';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../../src/core/base/clock';
import { RelayRouter } from '../../src/core/connection/rounds/relayRouter';
import type { Logger } from '../../src/core/base/logging';
import { acceptedDefaults, elicitFields } from '../../src/core/presentation/elicitationFields';

type Scenario = (connection: ServerConnection, signIn: () => Promise<void>) => Promise<void>;

/**
 * The person at the browser, for the auth/* scenarios: the suite's authorization endpoint answers
 * at once with a redirect to our redirect URI, so following it is the whole "login".
 */
class RedirectFollowingBrowser implements SignInBrowser {
  readonly redirectUrl = 'http://localhost:3000/callback';
  constructor(private readonly router: CallbackRouter) {}
  async open(url: URL): Promise<void> {
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
    if (!this.router.deliver(new URL(location, url).searchParams)) throw new Error('the redirect matched no sign-in');
  }
  waitForCallback(state: string): Promise<URLSearchParams> {
    return this.router.waitFor(state);
  }
}

/** The client identity a scenario hands over in MCP_CONFORMANCE_CONTEXT, as a user's `oauth` block would. */
function oauthFor(scenario: string): OAuthSettings {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
    client_id?: string;
    client_secret?: string;
    private_key_pem?: string;
    signing_algorithm?: string;
    valid_jwt?: string;
    idp_issuer?: string;
    idp_client_id?: string;
    idp_id_token?: string;
    idp_token_endpoint?: string;
  };
  const clientCredentials = scenario === 'auth/client-credentials-basic' || scenario === 'auth/client-credentials-jwt';
  return {
    ...DEFAULT_OAUTH,
    // The suite's authorization servers that support metadata documents expect this URL.
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id ? { clientId: context.client_id } : {}),
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
    ...(clientCredentials ? { grant: 'client_credentials' } : {}),
    // Workload identity: the workload's token as the grant (in settings: `${env:...}` or a file).
    ...(scenario === 'auth/wif-jwt-bearer' && context.valid_jwt ? { grant: 'jwt_bearer', assertion: context.valid_jwt } : {}),
    // Enterprise-managed authorization: the user's ID token from the enterprise's identity provider
    // (in settings: `${env:...}` or the file an SSO agent keeps it in). The suite's identity
    // provider publishes incomplete OpenID metadata, so its token endpoint is named.
    ...(context.idp_id_token && context.idp_client_id
      ? {
          grant: 'enterprise',
          idp: {
            clientId: context.idp_client_id,
            idToken: context.idp_id_token,
            ...(context.idp_issuer ? { issuer: context.idp_issuer } : {}),
            ...(context.idp_token_endpoint ? { tokenEndpoint: context.idp_token_endpoint } : {}),
          },
        }
      : {}),
    // DPoP, as an entry asks for it with `"dpop": true`.
    ...(scenario.startsWith('auth/dpop') ? { dpop: true } : {}),
    // private_key_jwt: the key signs the client's assertion (in settings: `${env:...}` or `${input:...}`).
    ...(context.private_key_pem
      ? {
          tokenEndpointAuthMethod: 'private_key_jwt',
          privateKey: context.private_key_pem,
          ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
        }
      : {}),
  };
}

/**
 * Every auth/* scenario: sign in when the server asks, then list and call a tool. A call that needs
 * more scope gets one step-up sign-in and one retry, as a person clicking Sign In once would.
 */
async function authScenario(connection: ServerConnection, signIn: () => Promise<void>): Promise<void> {
  const [tool] = connection.tools;
  if (!tool) throw new Error('the server lists no tools');
  try {
    expectSuccess(tool.name, await connection.sendToolCall(tool.name, {}));
  } catch (error) {
    if (!isSwitchboardError(error, 'NEEDS_SIGN_IN')) throw error;
    console.error(`${tool.name}: ${error.message}; signing in once more`);
    await signIn();
    expectSuccess(tool.name, await connection.sendToolCall(tool.name, {}));
  }
}

/**
 * Some 2026-07-28 scenario servers of the suite implement only the methods they grade: no
 * `server/discover`, so no client could negotiate the era with them. For those, the discovery is
 * answered here (as the SDK's own conformance client does); every other request reaches the mock.
 */
const MOCKS_WITHOUT_DISCOVER = new Set(['http-standard-headers', 'http-custom-headers', 'http-invalid-tool-headers']);

function answeringDiscover(): FetchLike {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    if (body.includes('"server/discover"')) {
      const message = JSON.parse(body) as { id?: unknown };
      return Response.json({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          // What the mocks themselves would advertise: they serve resources and prompts too.
          capabilities: { tools: {}, resources: {}, prompts: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'conformance-mock', version: '0' } },
        },
      });
    }
    return fetch(input, init);
  };
}

/** The tool calls the harness asks for, in MCP_CONFORMANCE_CONTEXT. */
function contextToolCalls(): Array<{ name: string; arguments: Record<string, unknown> }> {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return raw ? ((JSON.parse(raw) as { toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }> }).toolCalls ?? []) : [];
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

function expectSuccess(name: string, result: CallToolResult): string {
  const text = textOf(result);
  if (result.isError) throw new Error(`tool ${name} returned an error result: ${text}`);
  console.log(`${name}: ${text}`);
  return text;
}

const scenarios: Record<string, Scenario> = {
  // The handshake itself is the test; start() already did initialize and tools/list.
  async initialize() {},

  async tools_call(connection) {
    const text = expectSuccess('add_numbers', await connection.sendToolCall('add_numbers', { a: 5, b: 3 }));
    // The server records its check before answering; this only makes a wrong sum visible here.
    if (!text.includes('8')) throw new Error(`add_numbers(5, 3) answered "${text}"`);
  },

  // The server ends the tools/call SSE stream after a priming event with `retry: 500` and delivers
  // the result on a GET stream: the call only completes if the transport reconnects on time with
  // Last-Event-ID.
  async 'sse-retry'(connection) {
    expectSuccess('test_reconnection', await connection.sendToolCall('test_reconnection', {}));
  },

  // 2026-07-28: the protocol version header and the `_meta` envelope on every request, and the
  // corrective continuation when the first version is refused. start() is all of it.
  async 'request-metadata'() {},

  // Mcp-Method / Mcp-Name on every POST: a tool call, a resource read and a prompt, as the gateway
  // forwards them for its clients.
  async 'http-standard-headers'(connection) {
    const [first] = connection.tools;
    if (first) await connection.sendToolCall(first.name, {});
    const { resources, prompts } = connection.offer;
    if (resources[0]) await connection.forwardRequest('resources/read', { uri: resources[0].uri });
    if (prompts[0]) await connection.forwardRequest('prompts/get', { name: prompts[0].name, arguments: {} });
  },

  // The tool asks for a form whose fields all have defaults; accepting it as presented sends them.
  async 'elicitation-sep1034-client-defaults'(connection) {
    expectSuccess('test_client_elicitation_defaults', await connection.sendToolCall('test_client_elicitation_defaults', {}));
  },

  // input_required rounds (elicitation) answered, the request state echoed by the SDK's driver.
  async 'sep-2322-client-request-state'(connection) {
    for (const name of ['test_mrtr_echo_state', 'test_mrtr_unrelated', 'test_mrtr_no_state'])
      expectSuccess(name, await connection.sendToolCall(name, {}));
    // The graded point is that the client does not retry a result without `resultType`; it does
    // not. The v2 SDK then refuses that result ("servers implementing 2026-07-28 MUST include
    // it"), where the suite expects it taken as complete: a disagreement between the two, logged.
    await connection.sendToolCall('test_mrtr_no_result_type', {}).then(
      (result) => expectSuccess('test_mrtr_no_result_type', result),
      (error: unknown) => console.error(`test_mrtr_no_result_type: ${error instanceof Error ? error.message : String(error)}`),
    );
  },

  // Mcp-Param-* headers mirrored from `x-mcp-header` properties.
  async 'http-custom-headers'(connection) {
    for (const call of contextToolCalls()) await connection.sendToolCall(call.name, call.arguments);
  },

  // Tools with invalid header declarations are left out; the valid one is still called.
  async 'http-invalid-tool-headers'(connection) {
    for (const tool of connection.tools)
      await connection.sendToolCall(tool.name, { region: 'us-west1' }).catch((error: unknown) => console.error(String(error)));
  },

  // A network `$ref` in a schema is never fetched: listing is the test.
  async 'json-schema-ref-no-deref'() {},

  // The 2020-12 keywords survive our screening: the schema goes back to the server as we hold it.
  async 'json-schema-2020-12-preservation'(connection) {
    const focal = connection.tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    if (!focal) throw new Error('json_schema_2020_12_tool is not listed');
    expectSuccess('json_schema_echo', await connection.sendToolCall('json_schema_echo', { schema: focal.inputSchema }));
  },

  // Skills (SEP-2640): the connection lists the server's skills at start and fetches none of their
  // files; nothing more is done, as a host does until a skill is asked for.
  async 'sep-2640-client-no-prefetch'(connection) {
    if (connection.offer.skills.length === 0) throw new Error(`no skill was listed: ${connection.offer.problems.join('; ')}`);
  },

  // Installing the listed skill, as the user's Install Skill does: SKILL.md is fetched first and
  // checked (size, digest, frontmatter); served tampered, the install is refused and nothing else of
  // the skill is fetched. The refusal is this scenario's expected end.
  ...Object.fromEntries(
    ['sep-2640-client-verify-digest', 'sep-2640-client-verify-size', 'sep-2640-client-verify-frontmatter'].map((name) => [
      name,
      async (connection: ServerConnection) => {
        const [skill] = connection.offer.skills;
        if (!skill) throw new Error(`no skill was listed: ${connection.offer.problems.join('; ')}`);
        const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-conformance-skills-'));
        try {
          await installSkill({ server: 'conformance', skill, skillsFolder: folder, read: (ref) => connection.readSkillFile(skill, ref) });
          throw new Error(`the tampered skill \`${skill.frontmatter.name}\` was installed`);
        } catch (error) {
          if (!(error instanceof SkillInstallError)) throw error;
          console.error(`refused, as it must be: ${error.message}`);
          if ((await fs.readdir(folder)).length > 0) throw new Error('the refused skill left files behind');
        } finally {
          await fs.rm(folder, { recursive: true, force: true });
        }
      },
    ]),
  ),
};

/** Our log lines go to stderr, which the harness saves next to the checks (stderr.txt). */
const stderrLogger: Logger = {
  trace: () => undefined,
  debug: (message) => console.error(`[debug] ${message}`),
  info: (message) => console.error(`[info] ${message}`),
  warn: (message) => console.error(`[warn] ${message}`),
  error: (message) => console.error(`[error] ${message}`),
};

async function main(): Promise<number> {
  const url = process.argv[2];
  const scenarioName = process.env.MCP_CONFORMANCE_SCENARIO ?? process.argv[3] ?? '';
  if (!url) {
    console.error('usage: client.ts <server-url>   (scenario in MCP_CONFORMANCE_SCENARIO)');
    return 2;
  }
  const scenario = scenarioName.startsWith('auth/') ? authScenario : scenarios[scenarioName];
  if (!scenario) {
    console.error(`unknown scenario "${scenarioName}"; this client knows: ${Object.keys(scenarios).join(', ')}`);
    return 2;
  }
  const definition: HttpServerDefinition = {
    name: 'conformance',
    source: { kind: 'user' },
    enabled: true,
    lifecycle: { start: 'eager', idleStopMs: 0 },
    transport: 'http',
    url,
    headers: {},
    // An explicit `"type": "http"`: the scenario servers speak streamable HTTP only.
    sseFallback: false,
    oauth: scenarioName.startsWith('auth/') ? oauthFor(scenarioName) : DEFAULT_OAUTH,
    // The harness kills the client after 30 s; fail earlier, with our own message.
    timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 10_000, requestMs: 10_000 },
    reconnect: DEFAULT_RECONNECT,
    tools: {},
    secrets: [],
  };
  // What a server asks goes through the product's router; the host here is a person who accepts
  // every form as presented (its defaults) and a workspace with one root.
  const router = new RelayRouter({
    elicit: async (_server, params) => {
      const parsed = elicitFields((params as { requestedSchema?: unknown }).requestedSchema);
      return 'fields' in parsed ? { action: 'accept', content: acceptedDefaults(parsed.fields) } : { action: 'decline' };
    },
    listRoots: async () => ({ roots: [{ uri: 'file:///workspace', name: 'workspace' }] }),
    refusal: () => 'the conformance client has no model',
  });
  const oauth = new OAuthRegistry({ store: new MemorySecretStore(), clock: systemClock, logger: () => stderrLogger });
  const connection = new ServerConnection(definition, {
    logger: stderrLogger,
    oauth,
    serverRequests: router.handlersFor(definition.name),
    ...(MOCKS_WITHOUT_DISCOVER.has(scenarioName) ? { fetch: answeringDiscover() } : {}),
  });
  const signIns = new ServerSignIn(
    {
      server: () => ({ state: connection.state, definition }),
      servers: () => [{ name: definition.name, definition }],
      reconnect: () => connection.reconnect(),
    },
    oauth,
  );
  const browser = new RedirectFollowingBrowser(new CallbackRouter(systemClock));
  // Each sign-in answers the server asking for one, as a person clicking Sign In on the row would;
  // a server that asks again at once (it moved to another authorization server) gets one more.
  const signIn = async () => {
    for (let click = 1; ; click += 1) {
      const { state } = await signIns.signIn(definition.name, browser);
      if (state.kind === 'running') return;
      if (state.kind !== 'needsSignIn' || click === 2) throw new Error(`still not running after signing in: ${JSON.stringify(state)}`);
      console.error(`needs sign-in again: ${state.detail}`);
    }
  };
  try {
    let state = await connection.start();
    if (state.kind === 'needsSignIn') {
      console.error(`needs sign-in: ${state.detail}`);
      await signIn();
      state = connection.state;
    }
    if (state.kind !== 'running') {
      console.error(`connection did not start: ${JSON.stringify(state)}`);
      return 1;
    }
    console.log(
      `running: ${state.serverInfo.name} ${state.serverInfo.version}, protocol ${state.protocolVersion}, ${state.toolCount} tools`,
    );
    await scenario(connection, signIn);
    return 0;
  } catch (error) {
    console.error(`scenario ${scenarioName} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await connection.dispose();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
