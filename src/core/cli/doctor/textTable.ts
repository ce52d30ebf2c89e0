// Column alignment for terminal output. Widths count UTF-16 units, which is right for the ASCII
// that server names and states are made of; a wide character only misaligns its own row.

export interface Column {
  readonly header: string;
  readonly align?: 'left' | 'right';
  /** Longer cells are cut with an ellipsis, so one long value cannot push every row off screen. */
  readonly maxWidth?: number;
}

function fit(cell: string, maxWidth: number | undefined): string {
  return maxWidth !== undefined && cell.length > maxWidth ? `${cell.slice(0, maxWidth - 1)}…` : cell;
}

/** Rows padded to the widest cell per column. The last column is not padded (no trailing blanks). */
export function formatTable(columns: readonly Column[], unfitted: readonly (readonly string[])[]): string[] {
  const rows = unfitted.map((row) => row.map((cell, index) => fit(cell, columns[index]?.maxWidth)));
  const widths = columns.map((column, index) => Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? '';
        if (index === columns.length - 1) return column.align === 'right' ? cell.padStart(widths[index] ?? 0) : cell;
        return column.align === 'right' ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.header)), ...rows.map(line)];
}
