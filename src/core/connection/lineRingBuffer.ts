/** Keeps the last `capacity` lines (stderr of a stdio server) without unbounded growth. */
export class LineRingBuffer {
  private readonly lines: string[] = [];
  private start = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  push(line: string): void {
    if (this.lines.length < this.capacity) {
      this.lines.push(line);
      return;
    }
    this.lines[this.start] = line;
    this.start = (this.start + 1) % this.capacity;
  }

  get size(): number {
    return this.lines.length;
  }

  /** The last `count` lines, oldest first (all of them when `count` is omitted). */
  tail(count = this.capacity): string[] {
    const ordered = [...this.lines.slice(this.start), ...this.lines.slice(0, this.start)];
    return count <= 0 ? [] : ordered.slice(-count);
  }

  clear(): void {
    this.lines.length = 0;
    this.start = 0;
  }
}
