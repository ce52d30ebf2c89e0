// The limits a request is sent with, and the retry budget that all tries of one request share.
import type { Progress } from '@modelcontextprotocol/client';

export interface RequestPolicy {
  /** Per request, reset by progress. 0 disables. */
  readonly timeoutMs: number;
  /** Upper bound even while progress keeps arriving. 0 disables. */
  readonly maxTotalMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
}

/** Shared by every try of one logical request, so that it is retried at most once in total. */
export interface RetryBudget {
  retried: boolean;
}
