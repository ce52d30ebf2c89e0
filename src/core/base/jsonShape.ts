// Bounds for JSON that arrives from outside (a server's tool list, a tool's result, a settings
// file). Everything downstream (structuredClone, JSON.stringify, zod, the editor) recurses, and
// V8 gives up somewhere between 2,000 and 10,000 levels with a bare RangeError; so depth and size
// are measured here first, without recursion, and anything over the limit is refused by name.

export interface JsonLimits {
  /** Nesting of arrays and objects. */
  readonly maxDepth: number;
  /** Approximate serialized size: strings, keys and 8 bytes per other value. */
  readonly maxBytes: number;
}

/** A tool definition (its schemas): generous for real servers, far below where V8 overflows. */
export const TOOL_DEFINITION_LIMITS: JsonLimits = { maxDepth: 64, maxBytes: 1024 * 1024 };
/** A tool result or any other response passed through to a client. */
export const RESULT_LIMITS: JsonLimits = { maxDepth: 256, maxBytes: 64 * 1024 * 1024 };

/**
 * Why `value` exceeds `limits`, or undefined when it does not. Iterative: any depth is measured
 * without growing the stack. Stops at the first limit it crosses.
 */
export function jsonShapeProblem(value: unknown, limits: JsonLimits, label = 'the value'): string | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let bytes = 0;
  let deepest = 0;
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; depth: number };
    const current = item.value;
    if (typeof current === 'string') {
      bytes += current.length + 2;
    } else if (typeof current === 'object' && current !== null) {
      const depth = item.depth + 1;
      deepest = Math.max(deepest, depth);
      if (depth > limits.maxDepth) return `${label} is nested more than ${limits.maxDepth} levels deep`;
      if (Array.isArray(current)) {
        bytes += 2 + current.length;
        for (const element of current) stack.push({ value: element, depth });
      } else {
        bytes += 2;
        for (const key of Object.keys(current)) {
          bytes += key.length + 4;
          stack.push({ value: (current as Record<string, unknown>)[key], depth });
        }
      }
    } else {
      bytes += 8;
    }
    if (bytes > limits.maxBytes) return `${label} is larger than ${formatBytes(limits.maxBytes)}`;
  }
  return undefined;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
