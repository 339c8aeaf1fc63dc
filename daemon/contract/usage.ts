// What each agent costs, as clients see it (daemon/usage reads it; docs/usage.md says how).
// Token kinds are Anthropic's: input without the cache, output, cache write, cache read.
// Times are milliseconds since the epoch; costs are dollars, estimated from the price table.

export interface Tokens {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

export interface RateWindow {
  usedPercent: number;
  windowMinutes: number | null;
  resetsAt: number | null;
}

export interface Cost {
  /** Dollars; null when there are calls and none of them has a price. */
  cost: number | null;
  /** Models (as the CLI named them) whose calls have no price: their tokens are not in `cost`. */
  unpricedModels: string[];
}

export interface SessionUsage extends Cost {
  id: string;
  cli: string;
  /** false: Corral cannot read this CLI's usage. */
  readable: boolean;
  files: string[];
  tokens: Tokens;
  calls: number;
  models: string[];
  /** The last call's prompt (input + cache read + cache write) against the model's window. */
  context: { tokens: number; window: number | null; fill: number | null; model: string | null; at: number } | null;
  lastHour: Tokens;
  lastActivity: number | null;
}

export interface UsageRow extends Cost {
  /** A session id, a folder, or a local date (YYYY-MM-DD). */
  key: string;
  tokens: Tokens;
  calls: number;
  models: string[];
}

export interface Quota {
  /** Codex's own rate-limit windows, from its latest report in any tracked session. */
  codex: { at: number; primary: RateWindow | null; secondary: RateWindow | null } | null;
  /** Claude's current 5-hour block over the tracked sessions, or null when none is open. */
  claude: ({ start: number; end: number; lastActivity: number; tokens: Tokens; calls: number } & Cost) | null;
}

export interface Progress {
  filesDone: number;
  filesTotal: number;
  bytesRead: number;
  bytesTotal: number;
}

/** A session's usage at a glance: its tab's badge. */
export interface UsageBadge {
  tokens: number;
  cost: number | null;
  /** Some calls have no price: the cost covers only the others. */
  partial: boolean;
  /** How full the context window is (0–1, may pass 1), or null when its window is unknown. */
  contextFill: number | null;
}

/** The usage panel's answer. */
export interface UsageReport {
  /** When the numbers were read. */
  at: number;
  /** The first scan is still reading: how far it is. */
  scanning: Progress | null;
  sessions: SessionUsage[];
  byProject: UsageRow[];
  byDay: UsageRow[];
  total: UsageRow;
  quota: Quota;
}
