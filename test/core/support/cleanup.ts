// Teardown for tests: everything a test starts (processes, servers, temp folders) is registered
// here and undone after the test, last first, even when the test failed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Things to tear down after each test, last registered first. */
export class Cleanup {
  private readonly tasks: (() => Promise<void> | void)[] = [];
  add(task: () => Promise<void> | void): void {
    this.tasks.push(task);
  }
  async run(): Promise<void> {
    const tasks = this.tasks.splice(0).reverse();
    for (const task of tasks) {
      try {
        await task();
      } catch (error) {
        process.stderr.write(`cleanup failed: ${String(error)}\n`);
      }
    }
  }
}

/** A temp folder removed after the test. */
export function tempDir(cleanup: Cleanup, prefix = 'switchboard-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
