// What a user agrees to when a workspace-defined stdio server may run: this command, these
// arguments, these environment names (and the values of those that decide what runs), in this
// folder, with this sandbox. An entry that changes any
// of them (or loosens or drops its own sandbox) is a new key, and is asked about again.
import { createHash } from 'node:crypto';
import { sandboxOf, type StdioServerDefinition } from '../config';

/** `sandboxed`: *Run Sandboxed*, with the workspace folder and temp writable and the entry's domains. */
export type ConsentAnswer = 'granted' | 'sandboxed' | 'denied';

export function consentHash(definition: StdioServerDefinition): string {
  const sandbox = sandboxOf(definition);
  // Variables whose value decides what runs (a preloaded library, an interpreter's startup code,
  // where commands are found) are bound by value too: NODE_OPTIONS changed from a heap size to
  // `--require ./x.js` is another program. Absent when an entry sets none, so keys stay as they were.
  const launching = Object.keys(definition.env)
    .filter((name) => LAUNCH_VARIABLES.test(name))
    .sort()
    .map((name) => [name, definition.env[name] ?? '']);
  const identity = {
    command: definition.command,
    args: definition.args,
    envKeys: Object.keys(definition.env).sort(),
    cwd: definition.cwd ?? '',
    ...(sandbox ? { sandbox: sandbox.rules } : {}),
    ...(launching.length > 0 ? { launchEnv: launching } : {}),
  };
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** Names of variables that change what a command runs, in any case. */
const LAUNCH_VARIABLES =
  /^(PATH|NODE_OPTIONS|NODE_PATH|LD_\w+|DYLD_\w+|PYTHON\w*|PERL5\w*|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|BASH_ENV|ENV|ZDOTDIR|GIT_\w+|NPM_CONFIG_\w+|UV_\w+|PIP_\w+|DENO_\w+|BUN_\w+)$/i;

export function isConsentAnswer(value: unknown): value is ConsentAnswer {
  return value === 'granted' || value === 'sandboxed' || value === 'denied';
}
