// What the bundles leave out of their dependencies, each a measured cost with nothing of ours using
// it (`node scripts/package.mjs` prints the packages' sizes). Used by every build of ours, the
// benchmarks' too, so that tests and benchmarks run what ships.
import fs from 'node:fs';
import path from 'node:path';

/**
 * zod's translations of its error messages into 40 languages (260 KB of the bundle): zod is
 * reached through namespaces (`z.locales`), which a bundler cannot shake. Only English is kept,
 * which zod sets itself; nothing of ours or of the SDK picks another.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(args.resolveDir, args.path), namespace: 'zod-english-only' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * The SDK's client and server default to ajv for JSON Schema (150 KB of the bundle, in each
 * package), chosen in their `_shims` module by export condition. Every client and server of ours is
 * given @cfworker/json-schema instead (src/core/base/jsonSchemaValidator.ts), so the default is
 * never constructed: the Node shims the bundles get import that same validator in place of ajv,
 * and ajv is left out. The build fails if a shim no longer imports ajv as expected.
 */
const AJV_IMPORT = /^import \{ n as AjvJsonSchemaValidator \} from "\.\/ajvProvider-[\w-]{8}\.mjs";$/m;
const noAjv = {
  name: 'no-ajv',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/(client|server)\/_shims$/ }, (args) => ({ path: args.path, namespace: 'no-ajv' }));
    build.onLoad({ filter: /.*/, namespace: 'no-ajv' }, (args) => {
      const pkg = args.path.split('/')[1];
      const root = path.join(build.initialOptions.absWorkingDir ?? process.cwd(), 'node_modules', '@modelcontextprotocol', pkg, 'dist');
      const shim = fs.readFileSync(path.join(root, 'shimsNode.mjs'), 'utf8');
      if (!AJV_IMPORT.test(shim))
        return { errors: [{ text: `no-ajv: ${pkg}'s shimsNode no longer imports ajv as expected; see scripts/bundleTrim.mjs` }] };
      return {
        contents: shim.replace(
          AJV_IMPORT,
          "import { CfWorkerJsonSchemaValidator as AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';",
        ),
        resolveDir: root,
        loader: 'js',
      };
    });
  },
};

/**
 * A module left out of a bundle: whoever imports it (from `importer`, when given) gets a stand-in
 * that throws `reason` as soon as anything of it is used, so nothing runs without it unnoticed.
 */
function leftOut(name, reason, importer, exportNames) {
  const namespace = `left-out-${name.replace(/[^a-z0-9]+/gi, '-')}`;
  const filter = new RegExp(`^${name.replace(/[/.]/g, (c) => `\\${c}`)}$`);
  return {
    name: namespace,
    setup(build) {
      build.onResolve({ filter }, (args) => (importer && !importer.test(args.importer) ? undefined : { path: name, namespace }));
      // An ES module of ours is imported by name: each name it exports is the refusal.
      if (exportNames)
        return build.onLoad({ filter: /.*/, namespace }, () => ({
          contents: exportNames
            .map((exported) => `export function ${exported}() { throw new Error(${JSON.stringify(reason)}); }`)
            .join('\n'),
          loader: 'js',
        }));
      build.onLoad({ filter: /.*/, namespace }, () => ({
        contents: `const refuse = () => { throw new Error(${JSON.stringify(reason)}); };
const stub = new Proxy(refuse, { get: (_target, key) => (typeof key === 'symbol' || key === '__esModule' ? undefined : stub), apply: refuse, construct: refuse });
module.exports = stub;`,
        loader: 'js',
      }));
    },
  };
}

/**
 * node-forge (300 KB of the sandbox runtime) serves only the runtime's TLS-terminating proxy
 * (`network.tlsTerminate`), which the settings we write never turn on.
 */
const noNodeForge = leftOut('node-forge', 'TLS termination is not part of this build of the sandbox runtime');

/**
 * prom-client (serve --metrics) requires the OpenTelemetry API for exemplars and tdigest for
 * summaries; we create neither (22 and 10 KB of the minified bundle, which put the editor's package
 * over 1 MB).
 */
const PROM_CLIENT = /[\\/]prom-client[\\/]/;
const noExemplars = leftOut('@opentelemetry/api', 'metric exemplars are not part of this build', PROM_CLIENT);
const noSummaries = leftOut('tdigest', 'summary metrics are not part of this build', PROM_CLIENT);

/**
 * The SDK's Protocol.request builds a result validator for every request without a schema (every
 * tools/call): it first checks that the method has a result schema in the era by parsing
 * `undefined` with it, which fails, and a failed zod parse formats its error message. That probe was
 * 26 µs of each gateway call's path to the server (bench/RESULTS.md, "Where a gateway call's time
 * goes"). The validator depends only on the era's codec (one object per era) and the method, so it
 * is made once per pair. The build fails if the function is no longer there as expected: an SDK
 * update must be looked at, not silently lose (or break) this.
 */
const RESULT_VALIDATOR = 'function codecResultValidator(codec, method) {\n';
const resultValidatorOnce = {
  name: 'result-validator-once',
  setup(build) {
    let patched = 0;
    build.onLoad({ filter: /[\\/]@modelcontextprotocol[\\/](client|server)[\\/]dist[\\/]src-[\w-]+\.mjs$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!source.includes('function codecResultValidator(')) return undefined;
      if (source.split(RESULT_VALIDATOR).length !== 2) {
        throw new Error(`${args.path}: codecResultValidator changed shape; see result-validator-once in scripts/bundleTrim.mjs`);
      }
      patched += 1;
      const memo =
        'const resultValidators = new WeakMap();\n' +
        'function codecResultValidator(codec, method) {\n' +
        '\tlet byMethod = resultValidators.get(codec);\n' +
        '\tif (byMethod === undefined) resultValidators.set(codec, (byMethod = new Map()));\n' +
        '\tif (!byMethod.has(method)) byMethod.set(method, codecResultValidatorOnce(codec, method));\n' +
        '\treturn byMethod.get(method);\n' +
        '}\n' +
        'function codecResultValidatorOnce(codec, method) {\n';
      return { contents: source.replace(RESULT_VALIDATOR, memo), loader: 'js', resolveDir: path.dirname(args.path) };
    });
    build.onStart(() => {
      patched = 0;
    });
    // Every bundle these plugins build holds the SDK's client.
    build.onEnd((result) => {
      if (result.errors.length === 0 && patched === 0) {
        result.errors.push({ text: 'result-validator-once: the SDK no longer has codecResultValidator; see scripts/bundleTrim.mjs' });
      }
    });
  },
};

/**
 * zod's `z.fromJSONSchema` (12 KB of the minified bundle) builds zod schemas from JSON Schema;
 * neither the SDK nor we call it (tool schemas stay JSON Schema, checked by @cfworker/json-schema),
 * but `z.` namespace imports keep it in.
 */
const noZodFromJsonSchema = leftOut(
  './from-json-schema.js',
  'z.fromJSONSchema is not part of this build',
  /[\\/]zod[\\/]v4[\\/]classic[\\/]external\.js$/,
  ['fromJSONSchema'],
);

/** For our own bundles (the extension, the CLI). */
export const TRIM_PLUGINS = [zodEnglishOnly, noAjv, resultValidatorOnce, noExemplars, noSummaries, noZodFromJsonSchema];

/**
 * What `serve` does only for a team (the npm package's and the container image's, not the
 * editor's): its gateway never takes users' tokens (jose, the policy), runs as one replica of
 * several (forwarding, Redis), sends traces (OpenTelemetry's SDK and exporter) or serves metrics
 * (prom-client); and its package stays under 1 MB. `serve` run from the editor's bundle says so.
 * Each: the module, the file that imports it, what it exports, the feature as a user asks for it.
 */
const SERVE_ONLY = [
  ['./serveIdentity', /[\\/]cli[\\/]serve\.ts$/, ['loadTeamIdentity'], 'a team gateway (serve --oauth-issuer)'],
  ['./serveCluster', /[\\/]cli[\\/]serve\.ts$/, ['startCluster'], 'a team gateway on several replicas (serve --replica-url)'],
  ['./serveTracing', /[\\/]cli[\\/]serve\.ts$/, ['startTracing'], 'tracing (serve --otlp-endpoint)'],
  ['./metrics', /[\\/]runtime[\\/]index\.ts$/, ['createGatewayMetrics'], 'serving metrics (serve --metrics)'],
].map(([name, importer, exportNames, feature]) =>
  leftOut(name, `${feature} is not part of the editor: run the npm package mcp-switchboard or its container image`, importer, exportNames),
);
/** For the editor's bundle (which is also its CLI for other agents, `serve --stdio`). */
export const EXTENSION_TRIM_PLUGINS = [...TRIM_PLUGINS, ...SERVE_ONLY];
/** For the sandbox runtime's bundle. */
export const SANDBOX_TRIM_PLUGINS = [zodEnglishOnly, noNodeForge];
