import assert from 'node:assert/strict';
import { buildSpawnCommand, type SpawnCommand } from '../../../src/core/connection';

const viaCmd = (line: string): SpawnCommand => ({
  command: 'cmd.exe',
  args: ['/d', '/s', '/c', `"${line}"`],
  windowsVerbatimArguments: true,
});
const direct = (command: string, args: string[]): SpawnCommand => ({ command, args, windowsVerbatimArguments: false });

describe('buildSpawnCommand', () => {
  const table: { name: string; command: string; args: string[]; platform: NodeJS.Platform; expected: SpawnCommand }[] = [
    {
      name: 'linux runs anything directly',
      command: 'npx',
      args: ['-y', 'pkg'],
      platform: 'linux',
      expected: direct('npx', ['-y', 'pkg']),
    },
    { name: 'macOS runs anything directly', command: 'uvx', args: ['a b'], platform: 'darwin', expected: direct('uvx', ['a b']) },
    {
      name: 'npx through cmd.exe',
      command: 'npx',
      args: ['-y', '@scope/server'],
      platform: 'win32',
      expected: viaCmd('npx ^"-y^" ^"@scope/server^"'),
    },
    {
      name: 'uvx through cmd.exe',
      command: 'uvx',
      args: ['mcp-server-git'],
      platform: 'win32',
      expected: viaCmd('uvx ^"mcp-server-git^"'),
    },
    { name: 'pnpm through cmd.exe', command: 'pnpm', args: ['dlx', 'x'], platform: 'win32', expected: viaCmd('pnpm ^"dlx^" ^"x^"') },
    { name: 'bunx through cmd.exe', command: 'bunx', args: ['x'], platform: 'win32', expected: viaCmd('bunx ^"x^"') },
    { name: 'npm through cmd.exe', command: 'npm', args: ['exec', 'x'], platform: 'win32', expected: viaCmd('npm ^"exec^" ^"x^"') },
    { name: 'yarn through cmd.exe', command: 'yarn', args: ['dlx', 'x'], platform: 'win32', expected: viaCmd('yarn ^"dlx^" ^"x^"') },
    { name: 'a .cmd shim through cmd.exe', command: 'server.cmd', args: [], platform: 'win32', expected: viaCmd('server.cmd') },
    {
      name: 'a .bat file through cmd.exe',
      command: 'C:\\tools\\run.bat',
      args: ['x'],
      platform: 'win32',
      expected: viaCmd('C:\\tools\\run.bat ^"x^"'),
    },
    { name: '.exe directly', command: 'node.exe', args: ['s.js', 'a b'], platform: 'win32', expected: direct('node.exe', ['s.js', 'a b']) },
    {
      name: '.EXE directly, any case, with a path',
      command: 'C:\\Program Files\\Tool\\TOOL.EXE',
      args: [],
      platform: 'win32',
      expected: direct('C:\\Program Files\\Tool\\TOOL.EXE', []),
    },
    { name: '.com directly', command: 'legacy.com', args: [], platform: 'win32', expected: direct('legacy.com', []) },
    {
      name: 'spaces in a command path are escaped',
      command: 'C:\\My Tools\\srv.cmd',
      args: [],
      platform: 'win32',
      expected: viaCmd('C:\\My^ Tools\\srv.cmd'),
    },
    {
      name: 'spaces in arguments stay inside the quotes',
      command: 'npx',
      args: ['C:\\My Docs'],
      platform: 'win32',
      expected: viaCmd('npx ^"C:\\My^ Docs^"'),
    },
    {
      name: 'cmd metacharacters are escaped',
      command: 'npx',
      args: ['a&b|c', '100%', '<x>', '(y)', '!z^'],
      platform: 'win32',
      expected: viaCmd('npx ^"a^&b^|c^" ^"100^%^" ^"^<x^>^" ^"^(y^)^" ^"^!z^^^"'),
    },
    {
      name: 'embedded quotes are backslash-escaped',
      command: 'npx',
      args: ['say "hi"'],
      platform: 'win32',
      expected: viaCmd('npx ^"say^ \\^"hi\\^"^"'),
    },
    {
      name: 'backslashes before a quote are doubled',
      command: 'npx',
      args: ['a\\"b'],
      platform: 'win32',
      expected: viaCmd('npx ^"a\\\\\\^"b^"'),
    },
    {
      name: 'trailing backslashes are doubled',
      command: 'uvx',
      args: ['C:\\repo\\'],
      platform: 'win32',
      expected: viaCmd('uvx ^"C:\\repo\\\\^"'),
    },
    { name: 'other backslashes stay literal', command: 'npx', args: ['C:\\a\\b'], platform: 'win32', expected: viaCmd('npx ^"C:\\a\\b^"') },
    { name: 'an empty argument survives', command: 'npx', args: [''], platform: 'win32', expected: viaCmd('npx ^"^"') },
  ];
  for (const { name, command, args, platform, expected } of table) {
    it(name, () => assert.deepEqual(buildSpawnCommand(command, args, platform), expected));
  }

  it('does not modify its input', () => {
    const args = ['a'];
    const result = buildSpawnCommand('x', args, 'linux');
    assert.notEqual(result.args, args);
  });
});
