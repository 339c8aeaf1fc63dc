// Where the app's sessions come from: its own engine, or a `corral serve` that holds the home.
// A serve can restart (with a new token) or go away; the app follows it, and when the home is
// free it opens the engine itself, so a window never sits on a daemon that is not there.

import type { ClientApi } from '../daemon/contract/contract';
import type { Endpoint } from '../daemon/home/endpoint';

export type Source = { kind: 'engine' } | { kind: 'serve'; endpoint: Endpoint };

/** What to do, given what the app uses and what the home's endpoint file says now. */
export function nextStep(current: Source, endpoint: Endpoint | null): 'stay' | 'switch' | 'take-over' {
  if (current.kind === 'engine') return 'stay';
  if (!endpoint) return 'take-over';
  const was = current.endpoint;
  return endpoint.url !== was.url || endpoint.token !== was.token || endpoint.pid !== was.pid ? 'switch' : 'stay';
}

export interface FollowerDeps {
  readEndpoint(): Endpoint | null;
  /** The app's own engine, or null when the home is held again (a serve is starting). */
  openEngine(): Promise<ClientApi | null>;
  connect(endpoint: Endpoint): ClientApi;
  /** The api to use from now on. */
  use(api: ClientApi, source: Source): void;
  log?(message: string): void;
  now?(): number;
  /** How long the serve must be gone before the app takes the home (a restart is quicker). */
  takeOverAfterMs?: number;
}

export const TAKE_OVER_AFTER_MS = 10_000;

/** Follows a `corral serve` through restarts, and takes the home over when it is gone. */
export class ServeFollower {
  private busy = false;
  /** When the serve was first found gone, if it still is. */
  private goneSince: number | null = null;

  constructor(
    private source: Source,
    private readonly deps: FollowerDeps,
  ) {}

  get current(): Source {
    return this.source;
  }

  /** Looks once; call it every few seconds. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const endpoint = this.deps.readEndpoint();
      const step = nextStep(this.source, endpoint);
      const now = (this.deps.now ?? Date.now)();
      if (step !== 'take-over') this.goneSince = null;
      if (step === 'switch' && endpoint) {
        this.source = { kind: 'serve', endpoint };
        this.deps.log?.(`corral serve at ${endpoint.url} (pid ${endpoint.pid}): following it`);
        this.deps.use(this.deps.connect(endpoint), this.source);
      } else if (step === 'take-over') {
        // A serve being restarted is back within a second: do not take its home meanwhile.
        this.goneSince ??= now;
        if (now - this.goneSince < (this.deps.takeOverAfterMs ?? TAKE_OVER_AFTER_MS)) return;
        const api = await this.deps.openEngine();
        if (!api) return; // held again: the next look will find its endpoint
        this.source = { kind: 'engine' };
        this.deps.log?.('corral serve is gone: the app runs the engine itself');
        this.deps.use(api, this.source);
      }
    } finally {
      this.busy = false;
    }
  }
}
