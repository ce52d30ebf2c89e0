// Where the machine host of this OS user lives, and the checks that keep it this user's: a folder
// only the user can enter (0700, theirs, not a symlink), holding the host's socket, its token
// (0600), its start lock and what it says of itself. Anyone who could enter the folder could call
// every server the host runs, as this user: a folder that fails a check is refused, and the message
// says which check and how to mend it, rather than the host running somewhere less private.
//
// The folder is $XDG_RUNTIME_DIR/mcp-switchboard (a per-user tmpfs that the system makes 0700) when
// there is one, else <tmpdir>/mcp-switchboard-<uid>: there anyone could have made the folder first,
// which the owner and mode checks catch. On Windows the channel is a named pipe (not exercised here).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Set (an absolute path) to put the host's folder elsewhere: tests, and users whose tmpdir is shared oddly. */
export const HOST_DIR_ENV = 'MCP_SWITCHBOARD_HOST_DIR';

/** A Unix socket's path must fit in sun_path: 108 bytes on Linux, 104 on macOS, its NUL included. */
const MAX_SOCKET_PATH = 103;

export interface HostPlace {
  readonly folder: string;
  /** What the host listens on: a Unix socket in the folder, or a named pipe on Windows. */
  readonly socket: string;
  /** The host's bearer token (0600), made anew by each host. */
  readonly token: string;
  /** Held (O_EXCL) by the one process that is making itself the host. */
  readonly lock: string;
  /** The running host's pid and version (HostInfo), for a starter that must replace a hung one. */
  readonly info: string;
  /** What host processes write (their log), kept short. */
  readonly log: string;
}

/** Why the host's folder or one of its files cannot be trusted; the message names it and the mend. */
export class HostPlaceError extends Error {
  override readonly name = 'HostPlaceError';
}

export function hostPlace(env: Readonly<Record<string, string | undefined>> = process.env): HostPlace {
  const uid = currentUid();
  const chosen = env[HOST_DIR_ENV];
  const runtimeDir = env.XDG_RUNTIME_DIR;
  const folder =
    chosen && path.isAbsolute(chosen)
      ? chosen
      : runtimeDir && path.isAbsolute(runtimeDir)
        ? path.join(runtimeDir, 'mcp-switchboard')
        : path.join(os.tmpdir(), `mcp-switchboard-${uid ?? os.userInfo().username}`);
  const socket =
    process.platform === 'win32'
      ? `\\\\.\\pipe\\mcp-switchboard-${os.userInfo().username.replace(/[^A-Za-z0-9_.-]/g, '_')}`
      : path.join(folder, 'host.sock');
  return {
    folder,
    socket,
    token: path.join(folder, 'host.token'),
    lock: path.join(folder, 'host.lock'),
    info: path.join(folder, 'host.json'),
    log: path.join(folder, 'host.log'),
  };
}

/** Makes the folder if it is missing (0700), then checks it; throws HostPlaceError when it is not private. */
export function ensurePrivateFolder(place: HostPlace): void {
  if (process.platform !== 'win32' && Buffer.byteLength(place.socket) > MAX_SOCKET_PATH)
    throw new HostPlaceError(
      `the machine host's socket path is ${Buffer.byteLength(place.socket)} bytes, over the ${MAX_SOCKET_PATH} a Unix socket allows: ${place.socket}; set ${HOST_DIR_ENV} to a shorter folder`,
    );
  try {
    fs.mkdirSync(place.folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  checkOwn(place.folder, 'folder');
}

/**
 * Checks that `file` (the folder, the socket, the token) is this user's and nobody else's: not a
 * symlink (which could point anywhere), owned by this user, and with no permission for group or
 * others. On Windows a pipe's ACL is the check, set where it is made.
 */
export function checkOwn(file: string, what: 'folder' | 'socket' | 'token'): void {
  if (process.platform === 'win32') return;
  const stat = fs.lstatSync(file);
  const kind = stat.isSymbolicLink()
    ? 'a symbolic link'
    : what === 'folder'
      ? !stat.isDirectory() && 'not a folder'
      : what === 'socket'
        ? false // Whatever else is there, the next host replaces: only whose it is matters.
        : !stat.isFile() && 'not a regular file';
  if (kind) throw new HostPlaceError(`the machine host's ${what} ${file} is ${kind}; remove it and try again`);
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid)
    throw new HostPlaceError(
      `the machine host's ${what} ${file} belongs to another user (uid ${stat.uid}, you are ${uid}): it is not used; remove it, or set ${HOST_DIR_ENV}`,
    );
  // A socket's own mode does not matter on every system (BSDs ignore it); the folder's always does.
  if (what !== 'socket' && (stat.mode & 0o077) !== 0)
    throw new HostPlaceError(
      `the machine host's ${what} ${file} can be reached by other users (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}): run chmod ${what === 'folder' ? '700' : '600'} ${file}`,
    );
}

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}
