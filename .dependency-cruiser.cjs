// The layering of src/, checked by `npm run lint` (dependency-cruiser). Each folder of src/core may
// import only from the folders listed for it: lower layers never reach up, and no two folders
// import each other. src/editor and src/extension.ts sit on top; src/core never imports them, nor
// the editor API.
/** @type {Record<string, string[]>} folder of src/core -> the folders it may import from */
const LAYERS = {
  base: [],
  // Everything done to the MCP SDK beyond its public calls (src/core/sdk/README.md).
  sdk: ['base'],
  config: ['base'],
  state: ['base', 'config'],
  sandbox: ['base', 'config'],
  registry: ['base', 'config'],
  consent: ['base', 'config', 'state'],
  share: ['base', 'config', 'auth'],
  // The machine host of this OS user (one per user, shared by its windows and agents): its private
  // folder and socket, becoming the host, and a client's attachment to it.
  machine: ['base'],
  // A connection's parts, each a module below the connection itself (the state machine, its
  // session and its request gate): the link (SDK client, transports, the error vocabulary), what a
  // server asks back (rounds), upstream tasks, the credential a request carries, and the offer.
  'connection/link': ['base', 'config', 'state', 'sandbox', 'sdk'],
  'connection/rounds': ['base', 'connection/link'],
  'connection/tasks': ['base', 'connection/link', 'connection/rounds'],
  'connection/credentials': ['base', 'config', 'connection/link'],
  'connection/offer': ['base', 'connection/link'],
  connection: [
    'base',
    'config',
    'state',
    'sandbox',
    'connection/link',
    'connection/rounds',
    'connection/tasks',
    'connection/credentials',
    'connection/offer',
  ],
  auth: ['base', 'config', 'state', 'connection'],
  manager: ['base', 'config', 'state', 'connection'],
  catalog: ['base', 'config', 'state', 'connection'],
  skills: ['base', 'connection'],
  identity: ['base', 'config', 'state', 'connection', 'catalog'],
  // The gateway's parts, each a module below the gateway itself, which composes them: the HTTP edge,
  // a 2025 session's transport, what an endpoint exposes (and the error words at its edge), what an
  // upstream asks a client mid-request (relays and rounds), tasks of both revisions, offers
  // (resources, prompts, skills), and the other replicas of a team gateway.
  'gateway/http': ['base', 'connection', 'catalog', 'identity'],
  'gateway/sessions': ['base'],
  'gateway/exposure': ['base', 'state', 'connection', 'catalog', 'identity', 'gateway/http'],
  'gateway/rounds': ['base', 'connection', 'identity', 'gateway/http', 'gateway/exposure'],
  'gateway/tasks': ['base', 'sdk', 'connection', 'identity', 'gateway/rounds'],
  'gateway/offers': ['base', 'connection', 'catalog', 'gateway/http', 'gateway/exposure', 'gateway/rounds'],
  'gateway/replicas': ['base', 'identity', 'gateway/tasks'],
  gateway: [
    'base',
    'sdk',
    'config',
    'state',
    'connection',
    'catalog',
    'identity',
    'gateway/http',
    'gateway/sessions',
    'gateway/exposure',
    'gateway/rounds',
    'gateway/tasks',
    'gateway/offers',
    'gateway/replicas',
  ],
  cluster: ['base', 'gateway'],
  team: ['base', 'config', 'connection', 'auth', 'gateway'],
  // sandbox: a failure it caused is explained from its own denial lines (notices, row words).
  presentation: ['base', 'config', 'state', 'sandbox', 'catalog'],
  runtime: ['base', 'config', 'state', 'sandbox', 'connection', 'auth', 'manager', 'catalog', 'identity', 'gateway', 'team'],
  // The machine host's servers (a runtime in the host) and a window's side of sharing them.
  sharing: ['base', 'config', 'state', 'connection', 'catalog', 'manager', 'gateway', 'runtime', 'machine'],
  'cli/folder': ['base', 'config', 'state', 'connection', 'catalog'],
  'cli/doctor': [
    'base',
    'config',
    'state',
    'sandbox',
    'connection',
    'auth',
    'manager',
    'catalog',
    'presentation',
    'runtime',
    'consent',
    'machine',
    'sharing',
    'cli/folder',
  ],
  cli: [
    'base',
    'config',
    'state',
    'sandbox',
    'connection',
    'auth',
    'manager',
    'catalog',
    'identity',
    'gateway',
    'cluster',
    'presentation',
    'runtime',
    'registry',
    'share',
    'consent',
    'machine',
    'sharing',
    'cli/folder',
    'cli/doctor',
  ],
};

const escapeRegExp = (text) => text.replace(/[/.]/g, '\\$&');
const folder = (name) => `^src/core/${escapeRegExp(name)}/[^/]+$`;

const layerRules = Object.entries(LAYERS).map(([name, allowed]) => ({
  name: `layer-${name.replace('/', '-')}`,
  comment: `src/core/${name} may import only from ${allowed.length > 0 ? allowed.map((other) => `src/core/${other}`).join(', ') : 'nothing else in src/core'} (and itself).`,
  severity: 'error',
  from: { path: folder(name) },
  to: { path: '^src/', pathNot: [folder(name), ...allowed.map(folder)] },
}));

// A folder of src/core is a module: the rest of src/ uses it through its index.ts, and its other
// files are its own business (base/ excepted: a library of small independent parts). A folder may
// name up to three more files here that others may import (none does today).
const PUBLIC_FILES = {};
const moduleRules = Object.keys(LAYERS)
  .filter((name) => name !== 'base')
  .map((name) => ({
    name: `module-${name.replace('/', '-')}`,
    comment: `src/core/${name} is used from outside through its index.ts${(PUBLIC_FILES[name] ?? []).length > 0 ? ` (or ${PUBLIC_FILES[name].join(', ')})` : ''}.`,
    severity: 'error',
    from: { pathNot: folder(name) },
    to: {
      path: `^src/core/${escapeRegExp(name)}/[^/]+$`,
      pathNot: [
        `^src/core/${escapeRegExp(name)}/index\\.ts$`,
        ...(PUBLIC_FILES[name] ?? []).map((file) => `^src/core/${escapeRegExp(name)}/${escapeRegExp(file)}$`),
      ],
    },
  }));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules must not import each other, directly or through others.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-not-editor',
      comment: 'src/core runs in plain Node: it never imports the editor API or the editor adapter.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: ['^src/editor/', '^src/extension\\.ts$', '^vscode$', '(^|/)@types/vscode/'] },
    },
    {
      name: 'core-in-a-layer',
      comment: 'Every module of src/core lives in a folder that has a layer in this file.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: Object.keys(LAYERS).map(folder) },
      to: { path: '^src/core/' },
    },
    ...layerRules,
    ...moduleRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Imports of packages are kept (the editor API among them) but not followed into.
    doNotFollow: { path: 'node_modules' },
  },
};
