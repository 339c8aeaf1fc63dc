// Finding the paths an agent prints, so each becomes a link that opens a preview. Only what
// looks like a path counts: a slash in it (`src/app.ts`, `./docs/x.md`, `/tmp/run.log`), or a
// file name with a known extension (`notes.md:12`), or a dotfile (`.env`). URLs are the web-link
// addon's business.

export interface FoundPath {
  /** 0-based column where the path starts. */
  start: number;
  /** As printed, with its `:line:col` if it had one. */
  text: string;
}

const EXTENSIONS = new Set(
  'ts tsx js jsx mjs cjs json jsonl md mdx txt log py rs go java kt c h cc cpp hpp cs rb php swift scala toml yaml yml ini cfg conf html htm css scss less sh bash zsh fish sql xml csv tsv lock png jpg jpeg gif webp svg pdf vue svelte ex exs erl hs ml lua dart r jl nix tf proto graphql gradle env pem key'.split(' '),
);
const TOKEN = /[^\s"'`()<>[\]{},;|]+/g;

export function findPaths(line: string): FoundPath[] {
  const found: FoundPath[] = [];
  for (const match of line.matchAll(TOKEN)) {
    let text = match[0];
    if (text.includes('://')) continue;
    // A sentence's punctuation after the path is not part of it.
    text = text.replace(/[.,:;!?]+$/, '');
    const core = text.replace(/:\d+(?::\d+)?$/, '');
    if (core.length < 2 || !looksLikePath(core, core !== text)) continue;
    found.push({ start: match.index, text });
  }
  return found;
}

function looksLikePath(core: string, hasLine: boolean): boolean {
  if (!/[A-Za-z0-9_]/.test(core)) return false;
  if (core.includes('/')) {
    // "and/or" is prose; "src/app.ts", "./x", "/tmp/x", "docs/" are paths.
    if (/^(\.{1,2}\/|~\/|\/)/.test(core) || core.endsWith('/') || hasLine) return true;
    const last = core.split('/').at(-1)!;
    return /\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(last);
  }
  if (/^\.[A-Za-z][\w.-]*$/.test(core)) return true;
  const ext = /^[\w@+-][\w.@+-]*\.([A-Za-z][A-Za-z0-9]{0,7})$/.exec(core)?.[1];
  return !!ext && EXTENSIONS.has(ext.toLowerCase());
}

/**
 * A link an agent's output offers (a printed URL, or an OSC 8 hyperlink), when it may open: an
 * http(s) address only, never javascript:, file: or a custom scheme. Opened in a new window
 * without a way back to this page (the desktop app hands http(s) to the system's browser).
 */
export function webLink(uri: string): string | null {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export function openWebLink(uri: string): void {
  const href = webLink(uri);
  if (href) window.open(href, '_blank', 'noopener,noreferrer');
}
