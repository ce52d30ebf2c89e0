// Import says when an entry runs what a configured server already runs, under another name.
import assert from 'node:assert/strict';
import { launchKey, sameLaunchAs } from '../../../src/core/config';

describe('the same server under another name (Import)', () => {
  const configured = [
    { name: 'memory', definition: { transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
    { name: 'remote', definition: { transport: 'http', url: 'https://Example.com/mcp/' } },
    { name: 'broken' },
  ];

  it('finds a configured server with the same command line or URL, by another name', () => {
    assert.equal(sameLaunchAs({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, 'memory2', configured), 'memory');
    assert.equal(sameLaunchAs({ type: 'http', url: 'https://example.com/mcp' }, 'hosted', configured), 'remote');
  });

  it('is not fooled by another argument, a server of the same name, or an entry that runs nothing', () => {
    assert.equal(
      sameLaunchAs({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory', '--x'] }, 'memory2', configured),
      undefined,
    );
    assert.equal(sameLaunchAs({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, 'memory', configured), undefined);
    assert.equal(sameLaunchAs({ command: '' }, 'empty', configured), undefined);
    assert.equal(sameLaunchAs('not an entry', 'odd', configured), undefined);
  });

  it('keys a command line by its words, so that quoting cannot make two lines alike', () => {
    assert.notEqual(launchKey({ command: 'a b', args: ['c'] }), launchKey({ command: 'a', args: ['b', 'c'] }));
  });
});
