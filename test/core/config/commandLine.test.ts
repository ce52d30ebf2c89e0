import assert from 'node:assert/strict';
import {
  CommandLineError,
  entryFromCommandLine,
  freeServerName,
  splitCommandLine,
  suggestServerName,
} from '../../../src/core/config/commandLine';

describe('Add Server input', () => {
  const splits: Array<[string, string[]]> = [
    ['npx -y @modelcontextprotocol/server-filesystem /tmp', ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/tmp']],
    ['node "my server.js" --flag', ['node', 'my server.js', '--flag']],
    ["uvx 'mcp-server-git' --repository .", ['uvx', 'mcp-server-git', '--repository', '.']],
    ['cmd "a \\"quoted\\" word"', ['cmd', 'a "quoted" word']],
    ['path\\ with\\ spaces', ['path with spaces']],
    ['  lots   of   space  ', ['lots', 'of', 'space']],
    ['empty "" arg', ['empty', '', 'arg']],
  ];
  for (const [line, expected] of splits) {
    it(`splits ${JSON.stringify(line)}`, () => assert.deepEqual(splitCommandLine(line), expected));
  }

  it('rejects an unclosed quote', () => {
    assert.throws(() => splitCommandLine('node "oops'), CommandLineError);
  });

  it('turns a URL into a url entry and a command line into command + args', () => {
    assert.deepEqual(entryFromCommandLine(' https://example.com/mcp '), { url: 'https://example.com/mcp' });
    assert.deepEqual(entryFromCommandLine('npx -y pkg'), { command: 'npx', args: ['-y', 'pkg'] });
    assert.deepEqual(entryFromCommandLine('my-server'), { command: 'my-server' });
    assert.throws(() => entryFromCommandLine('   '), /command line or a URL/);
  });

  const names: Array<[string, string]> = [
    ['npx -y @modelcontextprotocol/server-filesystem /tmp', 'filesystem'],
    ['npx -y @modelcontextprotocol/server-memory', 'memory'],
    ['uvx mcp-server-git', 'git'],
    ['npx -y github-mcp-server', 'github'],
    ['uvx fetch-mcp', 'fetch'],
    ['npx -y mcp-server', 'mcp-server'],
    ['node /opt/tools/weather.mjs', 'weather'],
    ['https://api.example.com/mcp', 'api-example-com'],
    ['npx -y some-pkg@1.2.3', 'some-pkg'],
    // A command the launcher list does not know (here a typo of npx) does not name the server.
    ['npx-typo -y @modelcontextprotocol/server-memory', 'memory'],
    ['my-wrapper.sh uvx mcp-server-git', 'git'],
    ['weather-tool --verbose', 'weather-tool'],
  ];
  for (const [line, expected] of names) {
    it(`suggests "${expected}" for ${line}`, () => assert.equal(suggestServerName(entryFromCommandLine(line)), expected));
  }

  it('suggests the first free name when the one a package serves is taken', () => {
    const taken = new Set(['memory', 'memory-2']);
    assert.equal(
      freeServerName('memory', (name) => taken.has(name)),
      'memory-3',
    );
    assert.equal(
      freeServerName('git', (name) => taken.has(name)),
      'git',
    );
  });
});
