// `serve --replica-url`: one replica of a team gateway among several. Its peers' requests about
// what it holds come to it, and its own about theirs go to them (src/core/cluster); finished tasks
// are kept in Redis when `--redis` names one. Read at start: a key or a Redis that cannot be had
// stops serve with the reason, rather than a replica that silently loses what its peers hold.
import { RedisTaskStore, Replicas, withoutPassword } from '../cluster';
import type { ReplicaRouter } from '../gateway';
import { readGatewayTokenSecret } from '../share';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import { Sealer } from '../base/sealer';
import type { SharedValues } from '../base/sharedValues';

export interface ServeCluster {
  /** This replica's URL as its peers reach it. */
  readonly replicaUrl: string;
  /** The file (a mounted Secret) with the key every replica shares. */
  readonly keyFile: string;
  /** `redis://[user:password@]host:port[/db]`, for finished tasks. */
  readonly redisUrl?: string;
}

export interface StartedCluster {
  readonly router: ReplicaRouter;
  /** A sealer under the shared key, for what any replica must open (users' sign-in links and tokens). */
  sealerFor(purpose: string): Sealer;
  /** What the replicas share in Redis besides tasks; absent without `--redis`. */
  readonly values: SharedValues | undefined;
  dispose(): Promise<void>;
}

export async function startCluster(cluster: ServeCluster, logger: Logger): Promise<StartedCluster> {
  let key: string;
  try {
    key = readGatewayTokenSecret(cluster.keyFile);
  } catch (error) {
    throw new Error(`--cluster-key-secret: ${errorMessage(error)}`);
  }
  const keyBytes = Buffer.from(key, 'utf8');
  const tasks = cluster.redisUrl
    ? await RedisTaskStore.connect(cluster.redisUrl, {
        onError: (message) => logger.warn(`redis: ${message}`),
        sealer: new Sealer(keyBytes, 'mcp-switchboard finished task'),
      })
    : undefined;
  const replicas = new Replicas({ selfUrl: cluster.replicaUrl, key: keyBytes, tasks });
  logger.info(
    `replica ${cluster.replicaUrl}: requests about its peers' sessions, tasks and rounds go to them${cluster.redisUrl ? `; finished tasks kept in ${withoutPassword(cluster.redisUrl)}` : ''}`,
  );
  return {
    router: replicas,
    sealerFor: (purpose) => replicas.sealerFor(purpose),
    values: tasks?.values,
    dispose: async () => {
      replicas.dispose();
      await tasks?.close().catch(() => undefined);
    },
  };
}
