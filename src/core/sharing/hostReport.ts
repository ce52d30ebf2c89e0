// What `doctor` says of the machine host: whether one runs for this user, who it is, and what runs
// in it for how many clients. Asked over its socket without attaching: the doctor is no client.
import { errorMessage } from '../base/errorMessage';
import { askHost, HOST_PATHS, hostInfo, readHostToken, type HostInfo, type HostPlace } from '../machine';
import type { HostedServerListing } from './hostedServers';

const ASK_MS = 2_000;

export type MachineHostReport =
  | { readonly kind: 'none'; readonly folder: string }
  | { readonly kind: 'unusable'; readonly folder: string; readonly why: string }
  | { readonly kind: 'running'; readonly folder: string; readonly info: HostInfo; readonly servers: readonly HostedServerListing[] };

export async function reportMachineHost(place: HostPlace): Promise<MachineHostReport> {
  const folder = place.folder;
  let token: string | undefined;
  try {
    token = readHostToken(place);
  } catch (error) {
    return { kind: 'unusable', folder, why: errorMessage(error) };
  }
  if (!token) return { kind: 'none', folder };
  try {
    const info = await hostInfo(place, token, ASK_MS);
    if (!info) return { kind: 'none', folder };
    const answer = await askHost(place, token, { method: 'GET', path: HOST_PATHS.servers, timeoutMs: ASK_MS });
    const servers = answer.status === 200 ? listingOf(answer.body) : [];
    return { kind: 'running', folder, info, servers };
  } catch (error) {
    return { kind: 'unusable', folder, why: `the host does not answer: ${errorMessage(error)}` };
  }
}

function listingOf(body: unknown): HostedServerListing[] {
  const servers = (body as { servers?: unknown } | undefined)?.servers;
  if (!Array.isArray(servers)) return [];
  return servers.slice(0, 1000).flatMap((server: Partial<HostedServerListing>) =>
    typeof server.name === 'string' &&
    typeof server.command === 'string' &&
    typeof server.state === 'string' &&
    typeof server.clients === 'number'
      ? [
          {
            name: server.name.slice(0, 100),
            command: server.command.slice(0, 500),
            state: server.state.slice(0, 40),
            clients: server.clients,
          },
        ]
      : [],
  );
}
