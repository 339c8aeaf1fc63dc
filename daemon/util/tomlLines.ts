// Where a key is in a TOML file's text: smol-toml gives lines for syntax errors only, and a
// wrong value is found faster by its line. Read from the text as people write these files (a
// table header, then its keys); a key written some other way gets its table's line, or none.

/**
 * The line (1-based) of a table's header (`table`: its path, as `['cli', 'codex']` for
 * `[cli.codex]`), or of `field` in it; with no table, of a top-level key (or its own `[field]`
 * table). Undefined when it cannot be found.
 */
export function tomlLine(text: string, table: string[] | null, field?: string): number | undefined {
  const lines = text.split('\n');
  const isHeader = (l: string) => /^\s*\[/.test(l);
  let from = 0;
  if (table !== null) {
    const last = table.at(-1)!;
    const headers = [`"${last}"`, `'${last}'`, last].map((name) => `[${[...table.slice(0, -1), name].join('.')}]`.replace(/\s+/g, ''));
    from = lines.findIndex((l) => headers.includes(l.replace(/#.*$/, '').replace(/\s+/g, '')));
    if (from < 0) return undefined;
    if (!field) return from + 1;
    from += 1;
  }
  // A field in a table of the table's own (`[cli.x.key_from_file]`, then `glob =`).
  const dot = field?.indexOf('.') ?? -1;
  if (table !== null && dot > 0) {
    const inner = tomlLine(text, [...table, field!.slice(0, dot)], field!.slice(dot + 1));
    if (inner !== undefined) return inner;
  }
  // A field as a key (`field =`), a dotted key (`field.x =`) or a table of its own (`[field]`).
  const key = field?.split(/[.[,]/)[0]!.replace(/[^a-z0-9_-]/gi, '');
  for (let i = from; i < lines.length; i++) {
    if (table !== null && isHeader(lines[i]!)) break;
    if (key && new RegExp(`^\\s*\\[?\\s*["']?${key}["']?\\s*[=.\\]]`).test(lines[i]!)) return i + 1;
  }
  return table !== null ? from : undefined;
}
