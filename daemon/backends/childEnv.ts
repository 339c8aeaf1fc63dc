// What a child process's environment must never inherit (DESIGN.md rule 7): the marks of
// whatever started Corral (another tmux, another agent, npm, Electron) and Corral's own.

const DROP_EXACT = new Set([
  'TMUX',
  'TMUX_PANE',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'CLAUDECODE',
  'CODEX_THREAD_ID',
  'GEMINI_CLI',
  'OPENCODE',
  'OPENCODE_PID',
  'AGENT',
  'INIT_CWD',
  'COLUMNS',
  'LINES',
]);

const DROP_PREFIXES = ['CLAUDE_CODE_', 'CODEX_SANDBOX', 'CORRAL_', 'ELECTRON_', 'npm_', 'NPM_', 'VITEST'];

export function isLeakedVariable(name: string): boolean {
  return DROP_EXACT.has(name) || DROP_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * The environment a CLI starts with: the daemon's, cleaned, then the catalogue's own. The
 * terminal type is always ours: the viewer is an xterm, whatever anyone says.
 */
export function childEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...base, ...extra })) {
    if (value !== undefined && !isLeakedVariable(name)) env[name] = value;
  }
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  return env;
}
