export { MIN_CLUSTER_KEY_BYTES, Replicas, type ReplicaOptions } from './replicaRouter';
export { RedisTaskStore, withoutPassword } from './redisTaskStore';
