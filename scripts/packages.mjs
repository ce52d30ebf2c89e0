// What we ship and where it lands: one place for the packaging script, its tests and the .vsix
// install test.
import path from 'node:path';
import { repoRoot } from './harness-paths.mjs';

export const packagesDir = path.join(repoRoot, 'dist', 'packages');

/** The architectures the sandbox runtime has a seccomp helper for (its vendor/seccomp/<arch>). */
export const SECCOMP_ARCHES = ['x64', 'arm64'];

/**
 * The editor's package per platform, as `vsce package --target` names them, then the universal one
 * for the rest (linux-armhf, win32-arm64, the web), none of which can run a sandbox.
 */
export const EDITOR_TARGETS = [
  'linux-x64',
  'linux-arm64',
  'alpine-x64',
  'alpine-arm64',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64',
  'universal',
];

export const CLI_NPM_NAME = 'mcp-switchboard';
export const seccompPackageName = (arch) => `@mcp-switchboard/sandbox-linux-${arch}`;

/**
 * A target's file and what it carries: the sandbox runtime where a sandbox runs (Linux with
 * bubblewrap, macOS with Seatbelt), and on Linux the seccomp helper of its architecture.
 */
export function targetPackage(target) {
  const [os, arch] = target.split('-');
  const linux = os === 'linux' || os === 'alpine';
  return {
    file: target === 'universal' ? 'mcp-switchboard.vsix' : `mcp-switchboard-${target}.vsix`,
    sandbox: linux || os === 'darwin',
    seccompArch: linux && SECCOMP_ARCHES.includes(arch) ? arch : undefined,
  };
}

/** The editor's package for the machine this runs on (what its install test installs). */
export function hostTarget() {
  return `${process.platform}-${process.arch}`;
}
