// The limits a request is sent with, the credential it carries when it is made for a team
// gateway's user, and the retry budget that all tries of one request share.
import type { Progress } from '@modelcontextprotocol/client';

export interface RequestPolicy {
  /** Per request, reset by progress. 0 disables. */
  readonly timeoutMs: number;
  /** Upper bound even while progress keeps arriving. 0 disables. */
  readonly maxTotalMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
  /**
   * The token of the user this request is made for (a server that takes each user's own
   * credential, credentials/userCredential.ts): it rides on this request's own messages and on
   * nothing else, in place of the connection's own. Never logged.
   */
  readonly credential?: string;
}

/** Shared by every try of one logical request, so that it is retried at most once in total. */
export interface RetryBudget {
  retried: boolean;
}
