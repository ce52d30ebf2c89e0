// The token of a gateway that other agents keep in their configs: `serve --token-file FILE` reads
// it from a file only the user can read (created on first use), so it survives restarts while the
// configs name only an environment variable, never the token itself. A team's gateway reads it from
// the Secret its orchestrator mounts instead (`serve --token-secret FILE`).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { userConfigFolder } from '../auth';
import { GATEWAY_TOKEN_PATTERN } from '../base/token';
import { GATEWAY_TOKEN_ENV } from '../config';

/** Configuration knows the name too: an entry that sends it is Switchboard's own (config/switchboardEntries.ts). */
export const TOKEN_ENV_VAR = GATEWAY_TOKEN_ENV;

export function defaultGatewayTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userConfigFolder(env), 'gateway-token');
}

/** Reads the token, or creates the file (0600) with 256 random bits. Throws, saying why, on a file others can read. */
export function readOrCreateGatewayToken(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stat = fs.lstatSync(file);
  if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
  if (process.platform !== 'win32') {
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) throw new Error(`${file} belongs to another user`);
    if ((stat.mode & 0o077) !== 0) throw new Error(`${file} can be read by other users: run chmod 600 ${file}`);
  }
  const token = fs.readFileSync(file, 'utf8').trim();
  if (!GATEWAY_TOKEN_PATTERN.test(token)) throw new Error(`${file} does not hold a token (32 to 512 URL-safe characters)`);
  return token;
}

/** A token file is a line; anything longer is not one. */
const MAX_SECRET_BYTES = 4096;

/**
 * Reads the token from a file an orchestrator mounted (a Kubernetes or Docker Secret): through its
 * symlinks (a Secret's file is `token -> ..data/token`), world-readable as Secrets are by default
 * (a container has no other users), but never writable by anyone but its owner, and owned by root
 * or by this user. Never created or written: the Secret is the one source. A rotated Secret takes
 * effect at the next start (a rolling restart).
 */
export function readGatewayTokenSecret(file: string): string {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch (error) {
    throw new Error(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const stat = fs.statSync(real);
  if (!stat.isFile()) throw new Error(`${file} is not a file`);
  if (stat.size > MAX_SECRET_BYTES) throw new Error(`${file} is larger than a token (${stat.size} bytes)`);
  if (process.platform !== 'win32') {
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) throw new Error(`${file} belongs to another user (uid ${stat.uid})`);
    if ((stat.mode & 0o022) !== 0) throw new Error(`${file} can be changed by other users: a token must not be`);
  }
  const token = fs.readFileSync(real, 'utf8').trim();
  if (!GATEWAY_TOKEN_PATTERN.test(token)) throw new Error(`${file} does not hold a token (32 to 512 URL-safe characters)`);
  return token;
}
