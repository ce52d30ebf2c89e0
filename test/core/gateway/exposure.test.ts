import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import type { CatalogSnapshot } from '../../../src/core/catalog/types';
import { AGGREGATED, endpointPath, parseEndpointPath, serverEndpoint } from '../../../src/core/gateway';
import { listedTools } from '../../../src/core/gateway/exposure/exposure';

const TASK_TOOL: Tool = {
  name: 'long_job',
  title: 'Long job',
  inputSchema: { type: 'object' },
  execution: { taskSupport: 'optional' },
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png' }],
  _meta: { vendor: 'x' },
};

const SNAPSHOT: CatalogSnapshot = {
  servers: [
    {
      name: 'jobs',
      state: 'running',
      fromCache: false,
      tools: [{ server: 'jobs', name: 'long_job', qualifiedName: 'jobs__long_job', tool: TASK_TOOL, readOnly: false, exposed: true }],
    },
  ],
  warnings: [],
  eligible: 1,
  maxExposed: 128,
};

describe('gateway: endpoints and exposure', () => {
  it('maps endpoint paths both ways, one encoded segment per server', () => {
    assert.equal(endpointPath(AGGREGATED), '/mcp');
    assert.equal(endpointPath(serverEndpoint('a/b c')), '/mcp/a%2Fb%20c');
    assert.deepEqual(parseEndpointPath('/mcp'), AGGREGATED);
    assert.deepEqual(parseEndpointPath('/mcp/a%2Fb%20c'), serverEndpoint('a/b c'));
    for (const path of ['/mcp/', '/mcp/a/b', '/mcp/%E0%A4%A', '/mcpx', '/', '/MCP']) assert.equal(parseEndpointPath(path), undefined, path);
  });

  it('lists the upstream definition without task support, which the gateway does not forward', () => {
    const { execution: _execution, ...expected } = TASK_TOOL;
    assert.deepEqual(listedTools(SNAPSHOT, serverEndpoint('jobs')), [expected]);
    assert.deepEqual(listedTools(SNAPSHOT, AGGREGATED), [{ ...expected, name: 'jobs__long_job' }]);
    assert.deepEqual(listedTools(SNAPSHOT, serverEndpoint('other')), []);
  });
});
