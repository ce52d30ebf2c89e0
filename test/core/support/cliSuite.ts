// The hooks every suite that runs the built CLI needs: build it once, and tear down after each test.
import { buildCli } from '../doctor/helpers';
import { Cleanup } from './cleanup';

/** Call inside `describe`: builds dist/cli.js before the suite and returns the per-test cleanup. */
export function cliSuite(): Cleanup {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());
  before(function () {
    this.timeout(120_000);
    buildCli();
  });
  return cleanup;
}
