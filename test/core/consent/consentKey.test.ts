// What a user agreed to when a workspace-defined stdio server may run is exactly what its key
// binds: the command, its arguments in order, the names of its environment variables, its folder
// and its sandbox. Each part changed on its own is a new key (asked about again); what the user
// never saw (the variables' values, which may be secrets) is not.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { NO_SANDBOX_RULES, type SandboxRules } from '../../../src/core/config/types';
import { consentHash } from '../../../src/core/consent';
import { stdioDefinition } from '../connection/helpers';

const sandboxed = (rules: SandboxRules) => ({ sandbox: { enabled: true, rules, origin: 'entry' as const } });

describe('consent: the key of what a user agreed to', () => {
  const agreed = stdioDefinition(['--flag'], {
    name: 'tool',
    command: 'npx',
    args: ['-y', 'some-server', '--flag'],
    env: { API_TOKEN: 'secret-value', LOG: 'info' },
    cwd: '/work/project',
    ...sandboxed({ ...NO_SANDBOX_RULES, filesystem: { ...NO_SANDBOX_RULES.filesystem, allowWrite: ['/work/project'] } }),
  });
  const key = consentHash(agreed);

  it('is the same for the same launch, however the entry spells its variables’ order', () => {
    assert.equal(consentHash({ ...agreed, env: { LOG: 'info', API_TOKEN: 'secret-value' } }), key);
  });

  it('changes when any part of the launch changes on its own', () => {
    const changed: Array<[string, Parameters<typeof consentHash>[0]]> = [
      ['the command', { ...agreed, command: 'node' }],
      ['an argument', { ...agreed, args: ['-y', 'other-server', '--flag'] }],
      ['the arguments’ order', { ...agreed, args: ['-y', '--flag', 'some-server'] }],
      ['an argument added', { ...agreed, args: [...agreed.args, '--extra'] }],
      ['a variable added', { ...agreed, env: { ...agreed.env, NODE_OPTIONS: '--require /tmp/evil.js' } }],
      ['a variable removed', { ...agreed, env: { API_TOKEN: 'secret-value' } }],
      ['a variable renamed', { ...agreed, env: { API_TOKEN: 'secret-value', LD_PRELOAD: 'info' } }],
      ['the folder', { ...agreed, cwd: '/work/elsewhere' }],
      ['the folder dropped', { ...agreed, cwd: undefined }],
      [
        'the sandbox loosened',
        { ...agreed, ...sandboxed({ ...NO_SANDBOX_RULES, filesystem: { ...NO_SANDBOX_RULES.filesystem, allowWrite: ['/'] } }) },
      ],
      [
        'the sandbox’s network opened',
        { ...agreed, ...sandboxed({ ...NO_SANDBOX_RULES, network: { ...NO_SANDBOX_RULES.network, allowedDomains: ['*'] } }) },
      ],
      ['the sandbox dropped', { ...agreed, sandbox: undefined }],
    ];
    for (const [what, definition] of changed) assert.notEqual(consentHash(definition), key, what);
  });

  it('stays when only a variable’s value changes: the values were never shown, and may be secrets', () => {
    assert.equal(consentHash({ ...agreed, env: { API_TOKEN: 'rotated-secret', LOG: 'debug' } }), key);
  });

  it('changes when the value of a variable that decides what runs changes (the same gap, beside the names)', () => {
    const withOptions = { ...agreed, env: { ...agreed.env, NODE_OPTIONS: '--max-old-space-size=4096' } };
    const base = consentHash(withOptions);
    for (const [name, value] of [
      ['NODE_OPTIONS', '--require ./.vscode/x.js'],
      ['NODE_OPTIONS', '--max-old-space-size=8192'],
    ] as const)
      assert.notEqual(consentHash({ ...withOptions, env: { ...withOptions.env, [name]: value } }), base, `${name}=${value}`);
    for (const name of ['LD_PRELOAD', 'PATH', 'PYTHONPATH', 'DYLD_INSERT_LIBRARIES', 'BASH_ENV', 'path']) {
      const one = consentHash({ ...agreed, env: { ...agreed.env, [name]: '/a' } });
      assert.notEqual(consentHash({ ...agreed, env: { ...agreed.env, [name]: '/b' } }), one, name);
    }
    // An entry without such variables keeps the key users' consent files already hold (no question after an upgrade).
    const recorded = createHash('sha256')
      .update(
        JSON.stringify({
          command: agreed.command,
          args: agreed.args,
          envKeys: ['API_TOKEN', 'LOG'],
          cwd: agreed.cwd,
          sandbox: agreed.sandbox?.rules,
        }),
      )
      .digest('hex');
    assert.equal(key, recorded);
  });
});
