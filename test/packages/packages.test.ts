// What we ship (dist/packages, from `npm run package`): the editor's package per platform and the
// CLI's npm packages, their sizes and contents, and the CLI installed from its tarball into a clean
// folder as a user would, running doctor with a plain and a sandboxed server.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type * as Packages from '../../scripts/packages.mjs' with { 'resolution-mode': 'import' };

const FIXTURE = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
const MAX_BYTES = 1_000_000;

interface ZipEntry {
  /** Unix mode bits, from the entry's external attributes. */
  readonly mode: number;
  read(): Buffer;
}

/** A zip's entries by name, from its central directory. */
function zipEntries(file: string): Map<string, ZipEntry> {
  const zip = fs.readFileSync(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, `${file} is a zip`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, ZipEntry>();
  for (let index = 0; index < count; index++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50, 'a central directory entry');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    entries.set(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'), {
      mode: zip.readUInt32LE(at + 38) >>> 16,
      read: () => {
        const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
        const data = zip.subarray(start, start + compressedSize);
        return method === 8 ? zlib.inflateRawSync(data) : data;
      },
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A tarball's files and their modes (`tar tvzf`: the mode is the first column). */
function tarEntries(file: string): Map<string, string> {
  const listing = execFileSync('tar', ['-tvzf', file], { encoding: 'utf8' });
  return new Map(
    listing
      .trim()
      .split('\n')
      .map((line) => {
        const fields = line.trim().split(/\s+/);
        return [fields[fields.length - 1] as string, fields[0] as string];
      }),
  );
}

describe('the packages we ship', function () {
  this.timeout(120_000);
  let packages: typeof Packages;
  let manifest: { version: string };

  before(async () => {
    packages = await import('../../scripts/packages.mjs');
    manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
    assert.ok(fs.existsSync(packages.packagesDir), 'npm run package wrote dist/packages');
  });

  it('the editor: one package per platform, each under 1 MB, with only its own sandbox helper and the core once', () => {
    for (const target of packages.EDITOR_TARGETS) {
      const { file, sandbox, seccompArch } = packages.targetPackage(target);
      const vsix = path.join(packages.packagesDir, file);
      const bytes = fs.statSync(vsix).size;
      assert.ok(bytes < MAX_BYTES, `${file}: ${bytes} bytes`);
      const entries = zipEntries(vsix);
      const names = [...entries.keys()];
      assert.ok(entries.has('extension/dist/extension.js'), `${file} has the bundle`);
      assert.deepEqual(
        names.filter((name) => /\.(js|mjs|map)$/.test(name)).sort(),
        ['extension/dist/extension.js', 'extension/dist/main.js', ...(sandbox ? ['extension/dist/sandbox/srt.mjs'] : [])].sort(),
        `${file}: the bundle once, no CLI bundle beside it, no source maps`,
      );
      const helpers = names.filter((name) => name.endsWith('/apply-seccomp'));
      assert.deepEqual(helpers, seccompArch ? [`extension/dist/sandbox/vendor/seccomp/${seccompArch}/apply-seccomp`] : [], file);
      for (const helper of helpers) assert.equal((entries.get(helper)?.mode ?? 0) & 0o111, 0o111, `${helper} is executable`);
      assert.deepEqual(
        names.filter((name) => /node_modules|\/src\/|\/test\//.test(name)),
        [],
        file,
      );
      const platform = /TargetPlatform="([^"]+)"/.exec(entries.get('extension.vsixmanifest')?.read().toString('utf8') ?? '')?.[1];
      assert.equal(platform, target === 'universal' ? undefined : target, `${file} names its platform`);
      // The Marketplace's README: the user's sections whole, the contributors' left to the repository.
      const readme = entries.get('extension/readme.md')?.read().toString('utf8') ?? '';
      assert.equal(names.filter((name) => /readme\.md$/i.test(name)).length, 1, `${file}: one README`);
      assert.match(readme, /\n## Install\n[\s\S]*\n## Sandboxed servers\n[\s\S]*\n## Changes and license\n/, file);
      assert.doesNotMatch(readme, /### How the tests reach a real editor/, `${file}: no Development section`);
      assert.doesNotMatch(readme, /\*\*On one machine\*\*/, `${file}: running a team gateway is left to the repository's README`);
      assert.match(readme, /\n### Run it for a team\n\nSee the repository's README/, file);
    }
  });

  it('the CLI: an npm package under 1 MB with the sandbox runtime, and one optional package per Linux helper', () => {
    const cli = path.join(packages.packagesDir, `${packages.CLI_NPM_NAME}-${manifest.version}.tgz`);
    assert.ok(fs.statSync(cli).size < MAX_BYTES, `${cli}: ${fs.statSync(cli).size} bytes`);
    const files = tarEntries(cli);
    assert.deepEqual([...files.keys()].sort(), [
      'package/LICENSE',
      'package/README.md',
      'package/cli.js',
      'package/package.json',
      'package/sandbox/LICENSE',
      'package/sandbox/srt.mjs',
    ]);
    assert.match(files.get('package/cli.js') ?? '', /^-rwx/);
    for (const arch of packages.SECCOMP_ARCHES) {
      const helper = path.join(packages.packagesDir, `mcp-switchboard-sandbox-linux-${arch}-${manifest.version}.tgz`);
      const entries = tarEntries(helper);
      assert.deepEqual([...entries.keys()].sort(), ['package/LICENSE', 'package/apply-seccomp', 'package/package.json']);
      assert.match(entries.get('package/apply-seccomp') ?? '', /^-rwx/);
      const helperManifest = JSON.parse(execFileSync('tar', ['-xzOf', helper, 'package/package.json'], { encoding: 'utf8' })) as {
        name: string;
        os: string[];
        cpu: string[];
      };
      assert.deepEqual(
        [helperManifest.name, helperManifest.os, helperManifest.cpu],
        [packages.seccompPackageName(arch), ['linux'], [arch]],
      );
    }
  });

  describe('installed with npm into a clean folder', () => {
    let folder = '';
    const bin = () => path.join(folder, 'node_modules', '.bin', packages.CLI_NPM_NAME);
    const workspace = (servers: Record<string, unknown>): string => {
      const dir = fs.mkdtempSync(path.join(folder, 'workspace-'));
      fs.mkdirSync(path.join(dir, '.vscode'));
      fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': servers }));
      return dir;
    };
    const doctor = (dir: string) => {
      const result = spawnSync(bin(), ['doctor', '--folder', dir, '--json', '--trust-workspace'], {
        cwd: folder,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, XDG_CONFIG_HOME: path.join(folder, 'config'), XDG_CACHE_HOME: path.join(folder, 'cache') },
      });
      const report = JSON.parse(result.stdout || '{"servers":[]}') as {
        servers: { name: string; state: string; error?: string; tools: unknown[] }[];
      };
      return { status: result.status, stderr: result.stderr, servers: report.servers };
    };

    before(() => {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-npm-'));
      fs.writeFileSync(path.join(folder, 'package.json'), '{"name":"clean","version":"1.0.0","private":true}');
      const tarballs = [`${packages.CLI_NPM_NAME}-${manifest.version}.tgz`];
      // The helper packages are not on the registry: this platform's is installed from its tarball,
      // as npm would pick it; the other architectures' are skipped by their `os` and `cpu`.
      if (process.platform === 'linux') tarballs.push(`mcp-switchboard-sandbox-linux-${process.arch}-${manifest.version}.tgz`);
      execFileSync('npm', ['install', '--no-audit', '--no-fund', ...tarballs.map((file) => path.join(packages.packagesDir, file))], {
        cwd: folder,
        stdio: 'pipe',
      });
    });
    after(() => fs.rmSync(folder, { recursive: true, force: true }));

    it('runs doctor, which connects a server and lists its tools', () => {
      const result = doctor(workspace({ echo: { command: process.execPath, args: [FIXTURE] } }));
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(
        result.servers.map((server) => [server.name, server.state, server.tools.length > 0]),
        [['echo', 'running', true]],
      );
    });

    it("runs a sandboxed server with its platform package's seccomp helper, and refuses to without it", function () {
      if (process.platform !== 'linux') this.skip();
      const dir = workspace({ boxed: { command: process.execPath, args: [FIXTURE], sandboxEnabled: true } });
      const result = doctor(dir);
      assert.equal(result.status, 0, JSON.stringify(result.servers));
      assert.equal(result.servers[0]?.state, 'running');
      const helperPackage = path.join(folder, 'node_modules', packages.seccompPackageName(process.arch));
      fs.renameSync(helperPackage, `${helperPackage}.away`);
      try {
        const without = doctor(dir);
        assert.equal(without.status, 1);
        assert.equal(without.servers[0]?.state, 'error');
        assert.match(without.servers[0]?.error ?? '', new RegExp(`npm installs @mcp-switchboard/sandbox-linux-${process.arch}`));
      } finally {
        fs.renameSync(`${helperPackage}.away`, helperPackage);
      }
    });
  });
});
