// What several processes of a team gateway keep where all of them read it (Redis, cluster/): text by
// key, each entry expiring. Whoever puts a secret there seals it first (sealer.ts).
export interface SharedValues {
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
}
