// The other replicas of a team gateway (serve behind a load balancer, without affinity): what the
// gateway asks of them, and what a request does when another replica holds what it refers to.
export { FORWARDED_HEADER, STOPPING_HEADER, heldIds, type ReplicaRouter, type SharedTaskStore, type StoredTask } from './replicas';
export { answerForGoneReplica, holderOf, keepFinishedTasks, markedId } from './replicaRequests';
