// Runs the MCP conformance suite's `dns-rebinding-protection` server scenario against a gateway
// endpoint (see serverHarness.ts for how the suite is run).
//
// The scenario sends two unauthenticated initialize requests: Host/Origin evil.example.com (must
// be 4xx) and Host/Origin 127.0.0.1:<port> (must be 2xx). Its stated scope is servers *without*
// authentication, and the CLI cannot send a bearer token, so against the gateway itself the second
// check gets 401. That is asserted as such (401, not 403: the headers passed and only the token
// was missing). The scenario then runs again through a loopback proxy that plays an authorised
// client: it adds the token and maps its own port in Host to the gateway's, changing nothing else,
// so the gateway still makes every decision and both checks must pass.
import assert from 'node:assert/strict';
import { Cleanup, startGateway, toolsServer, type Setup } from '../core/gateway/helpers';
import { check, conformanceCli, runScenario, startTokenProxy } from './serverHarness';

describe('gateway: conformance dns-rebinding-protection', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  let setup: Setup;

  before(async () => {
    conformanceCli();
    setup = await startGateway(cleanup, [toolsServer('alpha')]);
  });
  after(() => cleanup.run());

  it('rejects a rebound Host/Origin at the endpoint itself, and asks a loopback request without the token for it', async () => {
    const run = await runScenario(cleanup, setup.gateway.endpointUrl('alpha'), 'dns-rebinding-protection');

    const rejected = check(run, 'localhost-host-rebinding-rejected');
    assert.equal(rejected.status, 'SUCCESS', JSON.stringify(rejected));
    assert.equal(rejected.details?.statusCode, 403, 'rejected by the Host rule, not for lack of a token');
    assert.match(rejected.details?.body?.error?.message ?? '', /Host header/);

    // Out of the scenario's scope (it targets servers without authentication): the headers pass,
    // then the missing token is refused.
    const accepted = check(run, 'localhost-host-valid-accepted');
    assert.equal(accepted.status, 'FAILURE', JSON.stringify(accepted));
    assert.equal(accepted.details?.statusCode, 401, JSON.stringify(accepted));
    assert.notEqual(run.exitCode, 0);
  });

  it('passes both checks for a client that holds the token', async () => {
    const proxyPort = await startTokenProxy(cleanup, setup.gateway.port, setup.gateway.token);
    const run = await runScenario(cleanup, `http://127.0.0.1:${proxyPort}/mcp/alpha`, 'dns-rebinding-protection');

    const rejected = check(run, 'localhost-host-rebinding-rejected');
    assert.equal(rejected.status, 'SUCCESS', JSON.stringify(rejected));
    assert.equal(rejected.details?.statusCode, 403, 'the token does not get a rebound Host in');
    const accepted = check(run, 'localhost-host-valid-accepted');
    assert.equal(accepted.status, 'SUCCESS', JSON.stringify(accepted));
    assert.equal(run.exitCode, 0, run.output);
  });
});
