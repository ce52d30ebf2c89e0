// The reference server (`@modelcontextprotocol/server-everything`, 2025-11-25 tasks) in a runtime,
// optionally behind its gateway: what the task tests start. Its `simulate-research-query` requires
// a task and runs four stages of about a second.
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import type { HostAnswers } from '../../../src/core/connection/rounds/relayRouter';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { MemoryLogger, stdioDefinition, type Cleanup } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';

export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const RESEARCH_TOOL = 'simulate-research-query';

/** A runtime with the reference server as `everything`, running. */
export async function startEverything(cleanup: Cleanup, hostAnswers: HostAnswers = {}): Promise<SwitchboardRuntime> {
  const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {}, hostAnswers });
  cleanup.add(() => runtime.dispose());
  await runtime.manager.start([stdioDefinition([], { name: 'everything', args: [EVERYTHING, 'stdio'] })]);
  await waitForRunning(runtime.manager, ['everything']);
  return runtime;
}

export interface EverythingGateway {
  readonly runtime: SwitchboardRuntime;
  /** The endpoint of `everything`. */
  readonly url: string;
  readonly token: string;
}

/** The same, with its gateway started. */
export async function everythingBehindGateway(cleanup: Cleanup, hostAnswers: HostAnswers = {}): Promise<EverythingGateway> {
  const runtime = await startEverything(cleanup, hostAnswers);
  const gateway = runtime.gateway();
  await gateway.start();
  return { runtime, url: gateway.endpointUrl('everything'), token: gateway.token };
}
