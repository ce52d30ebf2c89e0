// The token of a gateway that other agents keep in their configs: `serve --token-file FILE` reads
// it from a file only the user can read (created on first use), so it survives restarts while the
// configs name only an environment variable, never the token itself.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { userConfigFolder } from '../auth';
import { GATEWAY_TOKEN_PATTERN } from '../base/token';

export const TOKEN_ENV_VAR = 'MCP_SWITCHBOARD_TOKEN';

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
