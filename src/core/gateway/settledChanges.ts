// When a client is told that its lists changed. While servers come up, each one's tools move the
// budget's shares of the others, so every endpoint's list changes again with each arrival, and a
// client lists it again each time it is told (20 servers arriving over 1.7 s sent the editor 95
// tools/list_changed). So changes are told once the servers have settled, or at most
// SETTLING_HOLD_MS after the first held one; a change of a settled catalog at once.
import type { Clock, TimerHandle } from '../base/clock';
import type { Disposable } from '../base/events';
import { isSettling, type CatalogSnapshot, type ToolSource } from '../catalog';

export const SETTLING_HOLD_MS = 2_000;

/** Calls `listener` with the catalog's snapshot after each change, held while servers come up. */
export function onSettledChange(source: ToolSource, clock: Clock, listener: (snapshot: CatalogSnapshot) => void): Disposable {
  let hold: TimerHandle | undefined;
  const release = (): void => {
    if (hold !== undefined) clock.clearTimeout(hold);
    hold = undefined;
  };
  const subscription = source.onDidChange((snapshot) => {
    if (isSettling(snapshot)) {
      hold ??= clock.setTimeout(() => {
        hold = undefined;
        listener(source.snapshot());
      }, SETTLING_HOLD_MS);
      return;
    }
    release();
    listener(snapshot);
  });
  return {
    dispose: () => {
      release();
      subscription.dispose();
    },
  };
}
