// Real infrastructure a team gateway runs with, from Debian's packages, started by a test on
// loopback and stopped with it: Redis and HAProxy. A missing binary fails the test that needs it,
// naming the package (.ci/run installs both).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Cleanup } from './cleanup';
import { freePort } from './ports';

export interface Service {
  readonly port: number;
  readonly process: ChildProcess;
  /** Ends it (SIGTERM, then SIGKILL after 2 s); resolves once it exited. */
  stop(): Promise<void>;
}

/** Resolves once something accepts connections on 127.0.0.1:port; rejects if `child` exits first or after 10 s. */
async function listening(child: ChildProcess, port: number, name: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited at start: ${output().slice(-500)}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} did not listen on ${port} within 10 s: ${output().slice(-500)}`);
}

/** Starts `command` on a free port (`args(port)`), once more on another port if the first was taken meanwhile. */
async function startOnFreePort(cleanup: Cleanup, name: string, command: string, args: (port: number) => string[]): Promise<Service> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    let output = '';
    const child = spawn(command, args(port), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    const spawned = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', resolve);
    });
    if (spawned) throw new Error(`${name} could not be started (${spawned.message}): install Debian's ${name} package`);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = async (): Promise<void> => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    };
    try {
      await listening(child, port, name, () => output);
    } catch (error) {
      lastError = error;
      await stop();
      continue;
    }
    cleanup.add(stop);
    return { port, process: child, stop };
  }
  throw lastError;
}

/** redis-server on 127.0.0.1, in memory only (no snapshot, no append-only file). */
export function startRedis(cleanup: Cleanup): Promise<Service> {
  return startOnFreePort(cleanup, 'redis-server', 'redis-server', (port) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'yes',
  ]);
}

/**
 * HAProxy on 127.0.0.1 in front of `backends` (ports on 127.0.0.1), round robin with no affinity:
 * each request goes to the next backend, whatever session it belongs to. A backend that refuses
 * connections, or answers 503 while draining, is skipped (`retry-on`, `option redispatch`), and
 * one whose /readyz answers 503 is taken out within 100 ms, as a load balancer in front of a
 * stopping replica does.
 */
export function startHaproxy(cleanup: Cleanup, backends: readonly number[]): Promise<Service> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-haproxy-'));
  cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  const configFor = (port: number) => {
    const file = path.join(dir, `haproxy-${port}.cfg`);
    fs.writeFileSync(
      file,
      [
        'global',
        '  maxconn 512',
        'defaults',
        '  mode http',
        '  timeout connect 2s',
        '  timeout client 120s',
        '  timeout server 120s',
        // A request a stopping replica did not take is sent to another: refused, reset before an
        // answer, or answered 503 by a replica that is draining.
        '  option redispatch 1',
        '  retries 3',
        '  retry-on conn-failure empty-response 503',
        'frontend mcp',
        `  bind 127.0.0.1:${port}`,
        '  default_backend replicas',
        'backend replicas',
        '  balance roundrobin',
        // Probes of /readyz, as Kubernetes' would be: a replica that starts to stop is out at once.
        '  option httpchk',
        '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host 127.0.0.1',
        '  http-check expect status 200',
        '  default-server check inter 100ms fall 1 rise 1',
        // A probe waits up to 2 s for its answer (by default it waits one interval, 100 ms): on a
        // busy machine a healthy replica's slow /readyz took it out, and with both out the proxy
        // answered 503 itself. A stopping replica answers 503 at once, so it is still out at once.
        '  timeout check 2s',
        // Each request on its own: a kept-alive connection would otherwise stay with one replica.
        '  option http-server-close',
        // Which replica answered: whenAllServing counts them by name.
        '  http-response set-header X-Served-By %[srv_name]',
        ...backends.map((backend, index) => `  server replica${index} 127.0.0.1:${backend}`),
        '',
      ].join('\n'),
    );
    return file;
  };
  return startOnFreePort(cleanup, 'haproxy', 'haproxy', (port) => ['-db', '-f', configFor(port)]);
}

/**
 * Resolves once the proxy has every backend in rotation: each of them, by name (the proxy says
 * which one answered), has answered /readyz through it. Counting answers in a row is not enough:
 * while one backend is still down, the proxy sends every request to the others, which answer too.
 */
export async function whenAllServing(proxy: Service, backends: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  const serving = new Set<string>();
  while (serving.size < backends) {
    if (Date.now() > deadline)
      throw new Error(`the proxy did not put every backend in rotation within 20 s (serving: ${[...serving].join(', ') || 'none'})`);
    const answer = await fetch(`http://127.0.0.1:${proxy.port}/readyz`).then(
      async (response) => (await response.text(), { status: response.status, by: response.headers.get('x-served-by') ?? '' }),
      () => ({ status: 0, by: '' }),
    );
    if (answer.status === 200 && answer.by !== '') serving.add(answer.by);
    else {
      serving.clear();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
