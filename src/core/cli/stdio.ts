// A command that another program started, with stdout and stderr on pipes, outlives that program
// when it is killed. Then every write fails (EPIPE). Without a listener the failure is an
// uncaught exception, whose handler writes to stderr, which fails again: a loop at a full core
// that never exits. Here a broken stream is noticed once, writes to it are dropped, and the owner
// is told, so it can stop its servers and exit.

type Stream = NodeJS.WriteStream;

export interface StdioGuard {
  /** A stream broke (EPIPE, or its reader went away): writes to it are dropped from now on. */
  readonly broken: () => boolean;
  /** Writes unless the stream is broken; never throws. */
  readonly write: (stream: Stream, text: string) => void;
}

export function guardStdio(streams: readonly Stream[], onBroken: (reason: string) => void): StdioGuard {
  const dead = new Set<Stream>();
  let told = false;
  const fail = (stream: Stream, error: unknown) => {
    dead.add(stream);
    if (told) return;
    told = true;
    onBroken(
      `${stream === process.stdout ? 'stdout' : stream === process.stderr ? 'stderr' : 'a stream'}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  };
  for (const stream of streams) stream.on('error', (error) => fail(stream, error));
  return {
    broken: () => dead.size > 0,
    write: (stream, text) => {
      if (dead.has(stream) || stream.destroyed) return;
      try {
        stream.write(text);
      } catch (error) {
        fail(stream, error);
      }
    },
  };
}

/**
 * Calls `gone` once when the process that started this one has ended (this process was handed to
 * another parent), checked every `intervalMs`. Only for stdio on pipes: a parent that reads them is
 * the reason to live. The timer does not keep the process alive.
 */
export function watchParent(gone: () => void, intervalMs = 1_000, ppid: () => number = () => process.ppid): () => void {
  const parent = ppid();
  const timer = setInterval(() => {
    if (ppid() === parent) return;
    clearInterval(timer);
    gone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
