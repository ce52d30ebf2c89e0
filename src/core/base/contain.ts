import { errorMessage } from './errorMessage';
import type { Logger } from './logging';

/**
 * Runs the reaction to an event, logging what it throws as "`doing` failed: …" instead of passing
 * it on: one broken reaction must not reach the emitter, its other listeners, or the host.
 */
export function containFailure(logger: Logger, doing: string, reaction: () => void): void {
  try {
    reaction();
  } catch (error) {
    logger.error(`${doing} failed: ${errorMessage(error)}`);
  }
}
