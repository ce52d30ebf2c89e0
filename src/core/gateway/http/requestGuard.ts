// The checks every gateway request passes before the MCP SDK sees it. By default the gateway
// listens on loopback only, so the threats are other local processes without the token and web
// pages the user visits: a page can reach 127.0.0.1 directly (Origin check) or through a hostname
// it rebinds to 127.0.0.1 (Host check). The token stops both; the header checks are defence in
// depth that also holds if the token leaks into a page. `serve` for a team may listen elsewhere
// (`GatewayReach`): then the names clients use, and the proxies in front, are listed, never guessed.
import { randomBytes } from 'node:crypto';
import { bearerToken, tokenMatches } from '../../base/token';
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';

export type GuardVerdict = { readonly ok: true } | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

const LOOPBACK_ORIGIN_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** 256 random bits, URL- and header-safe. */
export function createToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only the exact names a loopback client uses for this port; a rebound name never matches. */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const normalized = host.toLowerCase();
  return normalized === `127.0.0.1:${port}` || normalized === `localhost:${port}`;
}

/**
 * Any port: a page on another local port still cannot call without the token, and local tools
 * (inspectors, dev servers) legitimately send their own origin.
 */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file://) and garbage are not loopback.
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_ORIGIN_HOSTS.has(url.hostname);
}

/** Where the gateway listens and who may reach it; the default is loopback only. */
export interface GatewayReach {
  /** The address to listen on: an IP address of this machine, or `0.0.0.0` / `::` for all of them. */
  readonly host: string;
  /**
   * Host header values accepted besides `127.0.0.1:<port>` and `localhost:<port>`: a name (any
   * port: behind a proxy the port is the proxy's), `name:port`, or `*.name` for any name below it.
   */
  readonly allowedHosts: readonly string[];
  /** Peers (an IP address or a CIDR block) whose `X-Forwarded-Host` and `X-Forwarded-For` are believed. */
  readonly trustedProxies: readonly string[];
  /** Browser origins accepted besides loopback ones, exactly as a browser sends them (`https://app.example.com`). */
  readonly allowedOrigins: readonly string[];
}

export const LOOPBACK_REACH: GatewayReach = { host: '127.0.0.1', allowedHosts: [], trustedProxies: [], allowedOrigins: [] };

const MAX_LIST = 64;
const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Throws an Error naming the first thing wrong with `reach`; returns it with names in lower case. */
export function validateReach(reach: GatewayReach): GatewayReach {
  if (net.isIP(reach.host) === 0) throw new Error(`The MCP gateway listens on an IP address, not "${reach.host.slice(0, 80)}"`);
  for (const [list, name] of [
    [reach.allowedHosts, 'allowed hosts'],
    [reach.trustedProxies, 'trusted proxies'],
    [reach.allowedOrigins, 'allowed origins'],
  ] as const) {
    if (list.length > MAX_LIST) throw new Error(`At most ${MAX_LIST} ${name}, got ${list.length}`);
  }
  const allowedHosts = reach.allowedHosts.map((entry) => {
    const pattern = parseHostPattern(entry.toLowerCase());
    if (!pattern) throw new Error(`Not a host name, name:port or *.name: "${entry.slice(0, 80)}"`);
    return entry.toLowerCase();
  });
  for (const entry of reach.trustedProxies) {
    if (!parseCidr(entry)) throw new Error(`Not an IP address or CIDR block: "${entry.slice(0, 80)}"`);
  }
  const allowedOrigins = reach.allowedOrigins.map((entry) => {
    const origin = originOf(entry);
    if (origin === undefined || origin !== entry.toLowerCase().replace(/\/$/, ''))
      throw new Error(`Not an origin (scheme://host[:port]): "${entry.slice(0, 80)}"`);
    return origin;
  });
  return { ...reach, allowedHosts, allowedOrigins };
}

/** True for 127.0.0.1, ::1 and the rest of 127.0.0.0/8: listening there keeps the gateway on this machine. */
export function isLoopbackAddress(address: string): boolean {
  return address === '::1' || (net.isIPv4(address) && address.startsWith('127.'));
}

type HostPattern = { readonly name: string; readonly port: string | undefined; readonly subdomains: boolean };

function parseHostPattern(entry: string): HostPattern | undefined {
  const split = splitHostPort(entry);
  if (!split || (split.port !== undefined && !validPort(split.port))) return undefined;
  const bare = split.name.startsWith('[') ? split.name.slice(1, -1) : split.name;
  if (net.isIPv6(bare)) return split.name.startsWith('[') ? { name: split.name, port: split.port, subdomains: false } : undefined;
  if (!HOST_NAME.test(split.name) || split.name.length > 253) return undefined;
  const subdomains = split.name.startsWith('*.');
  return { name: subdomains ? split.name.slice(1) : split.name, port: split.port, subdomains };
}

/** `name`, `name:port`, `[v6]`, `[v6]:port`; undefined for anything else. */
function splitHostPort(value: string): { readonly name: string; readonly port: string | undefined } | undefined {
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end === -1) return undefined;
    const rest = value.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    return { name: value.slice(0, end + 1), port: rest === '' ? undefined : rest.slice(1) };
  }
  const colon = value.indexOf(':');
  if (colon === -1) return { name: value, port: undefined };
  if (value.indexOf(':', colon + 1) !== -1) return undefined;
  return { name: value.slice(0, colon), port: value.slice(colon + 1) };
}

function validPort(port: string): boolean {
  return /^\d{1,5}$/.test(port) && Number(port) <= 65535;
}

function parseCidr(entry: string): { readonly address: string; readonly prefix: number; readonly family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const version = net.isIP(address);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return prefix <= max ? { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' } : undefined;
}

function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.pathname === '/' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** A peer's address as the socket reports it, with IPv4-mapped IPv6 (`::ffff:10.0.0.1`) as plain IPv4. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

/** The checks, compiled once per gateway for its port, token and reach. */
export class RequestGuard {
  private readonly hostPatterns: readonly HostPattern[];
  private readonly proxies = new net.BlockList();
  private readonly hasProxies: boolean;
  private readonly origins: ReadonlySet<string>;
  /** Listening on a non-loopback address: a Host that is an IP literal names this machine, never a rebound name. */
  private readonly ipHostsAllowed: boolean;

  constructor(
    private readonly port: number,
    private readonly token: string,
    reach: GatewayReach,
  ) {
    this.hostPatterns = reach.allowedHosts.flatMap((entry) => parseHostPattern(entry) ?? []);
    for (const entry of reach.trustedProxies) {
      const cidr = parseCidr(entry);
      if (cidr) this.proxies.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
    this.hasProxies = reach.trustedProxies.length > 0;
    this.origins = new Set(reach.allowedOrigins);
    this.ipHostsAllowed = !isLoopbackAddress(reach.host);
  }

  /** Host, then Origin, then the token: header failures are 403 even without a token. */
  check(headers: IncomingHttpHeaders, peer: string | undefined): GuardVerdict {
    const headerVerdict = this.checkHeaders(headers, peer);
    if (!headerVerdict.ok) return headerVerdict;
    const presented = bearerToken(headers.authorization);
    if (presented === undefined || !tokenMatches(presented, this.token)) {
      return { ok: false, status: 401, message: 'Unauthorized: a valid bearer token is required' };
    }
    return { ok: true };
  }

  /** Host, then Origin: what even a request that needs no token (a health probe) must pass. */
  checkHeaders(headers: IncomingHttpHeaders, peer: string | undefined): GuardVerdict {
    const host = this.hostOf(headers, peer);
    if (!this.isAllowedHost(host)) {
      const names = this.hostPatterns.length > 0 ? ' or an allowed host' : '';
      return {
        ok: false,
        status: 403,
        message: `Forbidden: the Host header must be 127.0.0.1:${this.port} or localhost:${this.port}${names}`,
      };
    }
    const origin = headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin) && !this.origins.has(origin.toLowerCase())) {
      return { ok: false, status: 403, message: 'Forbidden: requests from this Origin are not accepted' };
    }
    return { ok: true };
  }

  /** Whether `peer` is a trusted proxy, whose forwarded headers say what the client sent. */
  isTrustedProxy(peer: string | undefined): boolean {
    if (!this.hasProxies || peer === undefined) return false;
    const address = plainAddress(peer);
    const family = net.isIP(address);
    return family !== 0 && this.proxies.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** The client's address: the peer, or the nearest address a trusted proxy forwarded for. */
  clientAddress(headers: IncomingHttpHeaders, peer: string | undefined): string | undefined {
    if (!this.isTrustedProxy(peer)) return peer === undefined ? undefined : plainAddress(peer);
    const forwarded = lastListValue(headers['x-forwarded-for']);
    return forwarded !== undefined && net.isIP(forwarded) !== 0 ? forwarded : peer;
  }

  private hostOf(headers: IncomingHttpHeaders, peer: string | undefined): string | undefined {
    if (this.isTrustedProxy(peer)) {
      // The proxy's own addition is the last one; anything before it came from the client.
      const forwarded = lastListValue(headers['x-forwarded-host']);
      if (forwarded !== undefined) return forwarded;
    }
    return headers.host;
  }

  private isAllowedHost(host: string | undefined): boolean {
    if (isAllowedHost(host, this.port)) return true;
    if (host === undefined) return false;
    const split = splitHostPort(host.toLowerCase());
    if (!split || (split.port !== undefined && !validPort(split.port))) return false;
    if (this.ipHostsAllowed && (net.isIPv4(split.name) || (split.name.startsWith('[') && net.isIPv6(split.name.slice(1, -1))))) return true;
    return this.hostPatterns.some(
      (pattern) =>
        (pattern.port === undefined || pattern.port === split.port) &&
        (pattern.subdomains ? split.name.endsWith(pattern.name) && split.name.length > pattern.name.length : split.name === pattern.name),
    );
  }
}

/** The last value of a comma-separated header (a proxy appends its own), trimmed; undefined if empty. */
function lastListValue(header: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(header) ? header.join(',') : header;
  const last = joined?.split(',').pop()?.trim();
  return last === undefined || last === '' ? undefined : last;
}
