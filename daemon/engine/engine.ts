// The session engine: sessions and their resume keys in SQLite, processes in a backend, and
// the lifecycle rules of docs/lifecycle.md. Transports (HTTP, WebSocket, IPC) call its methods.
//
// This file only puts the parts together and hands each method to the part whose job it is:
//   lifecycle.ts     start, launch, exit, stop, recover, archive: the rules, in their order
//   resumePolicy.ts  what to run, how long a resume is on probation, what an exit means (pure)
//   records.ts       create, rename, archive, restore, reorder, remove, let a key go
//   terminals.ts     a running session's screen, viewers, typing and size
//   views.ts         what clients see of a session, and every change told to listeners
//   screenWatcher.ts activity and needs-you, once a second; learnedKeys.ts the keys CLIs pick
//   firstPrompts.ts  a session's first prompt, typed once its agent is ready
//   worktreeSessions.ts a session's own git worktree: made, set up, reviewed, merged, released
//   usageWatch.ts    what each session costs, read from its CLI's transcripts (daemon/usage)
//   gitWatcher.ts    each folder's git branch;  reaper.ts  the idle reaper
//   hookTokens.ts    what an agent's own hook needs to reach the API
//   previews.ts      paths printed in a terminal, previewed and saved inside the session's fence
//   runtime.ts       what all of them share: the store, the backend, each session's launch

import fs from 'node:fs';
import path from 'node:path';
import type { Attachment, AttachOptions, Backend } from '../backends/backend';
import { childEnv } from '../backends/childEnv';
import { pickBackend } from '../backends/pick';
import { Tokens } from '../auth/tokens';
import { cliView, keepLastGood, loadCatalogue, type Catalogue } from '../catalogue/catalogue';
import type { Contract, Request, Response } from '../contract/contract';
import { CorralError, type ErrorShape } from '../contract/errors';
import type { PathPreview } from '../contract/files';
import type { HostChange, HostView } from '../contract/hosts';
import { isRunning, type Receipt, type SessionChange, type SessionView, type StartResult } from '../contract/session';
import { listFolders } from '../files/folders';
import { Hosts } from '../hosts/hosts';
import { HomeLock } from '../home/homeLock';
import { resourcePath } from '../home/resources';
import { Store } from '../store/store';
import { fileSignature } from '../util/fileSignature';
import { checkFolder } from './checks';
import { GitWatcher } from './gitWatcher';
import { HookTokens } from './hookTokens';
import { LearnedKeys } from './learnedKeys';
import { Lifecycle } from './lifecycle';
import { every, type Periodic } from './periodic';
import { Previews } from './previews';
import { publicEvents } from './publicEvent';
import { Reaper } from './reaper';
import { FirstPrompts } from './firstPrompts';
import { USAGE_INTERVAL_MS, UsageWatch } from './usageWatch';
import { WorktreeSessions } from './worktreeSessions';
import { Records } from './records';
import { Runtime, type Clock, type EngineOptions } from './runtime';
import { ScreenWatcher } from './screenWatcher';
import { Terminals } from './terminals';
import { Views } from './views';

export type { Clock, EngineOptions } from './runtime';

export const SHIPPED_CATALOGUE = resourcePath('clis.toml');
/** How long a stop waits for the Enter of a message sent just before it. */
export const STOP_WAITS_FOR_ENTER_MS = 3_000;

export class Engine implements Contract {
  readonly tokens: Tokens;
  /** The remote hosts and their links. */
  readonly hosts: Hosts;
  private readonly rt: Runtime;
  private readonly views: Views;
  private readonly hooks: HookTokens;
  private readonly keys: LearnedKeys;
  private readonly git: GitWatcher;
  private readonly screens: ScreenWatcher;
  private readonly lifecycle: Lifecycle;
  private readonly reaper: Reaper;
  private readonly records: Records;
  private readonly prompts: FirstPrompts;
  private readonly worktrees: WorktreeSessions;
  private readonly usageWatch: UsageWatch;
  private readonly terminals: Terminals;
  private readonly previews: Previews;
  /** The reaper, the screen watcher and the git watcher. */
  private readonly jobs: Periodic[] = [];
  /** Resolves once the sessions found at open are reattached or marked stopped and the watchers run (see recoverAfterOpen). */
  recovered: Promise<void> = Promise.resolve();

  private constructor(
    readonly home: string,
    private readonly store: Store,
    readonly backend: Backend,
    private readonly lock: HomeLock,
    private readonly clock: Clock,
    private readonly options: EngineOptions,
  ) {
    this.catalogueSeen = catalogueSignature(home, options);
    this.rt = new Runtime(home, store, backend, clock, options, readCatalogue(home, options));
    this.tokens = new Tokens(store, () => clock.now());
    this.views = new Views(this.rt);
    this.hooks = new HookTokens(this.tokens);
    this.keys = new LearnedKeys(this.rt, this.views);
    this.git = new GitWatcher(this.rt, this.views);
    this.screens = new ScreenWatcher(this.rt, this.views, this.keys);
    this.lifecycle = new Lifecycle(this.rt, this.views, this.keys, this.hooks, this.git);
    this.reaper = new Reaper(this.rt, this.lifecycle);
    this.terminals = new Terminals(this.rt, this.views);
    this.prompts = new FirstPrompts(this.rt, this.views, this.terminals);
    this.worktrees = new WorktreeSessions(this.rt, this.views, this.terminals);
    this.usageWatch = new UsageWatch(this.rt, this.views);
    this.records = new Records(this.rt, this.views, this.lifecycle, this.worktrees, (id) => this.prompts.watch(id));
    this.previews = new Previews(this.rt);
    this.hosts = new Hosts(store.hosts, { home, sshConfig: (options.env ?? process.env).CORRAL_SSH_CONFIG || undefined, now: () => clock.now() });
  }

  static async open(options: EngineOptions): Promise<Engine> {
    const clock = options.clock ?? { now: Date.now };
    const home = path.resolve(options.home);
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const lock = HomeLock.acquire(home, options.holder ?? `a Corral engine (${process.argv.slice(1, 3).join(' ')})`, clock.now());
    let store: Store | null = null;
    let backend: Backend | null = null;
    try {
      store = Store.open(path.join(home, 'corral.db'));
      backend = await pickBackend(options.backend, { home, socket: options.tmuxSocket, now: () => clock.now() });
      const engine = new Engine(home, store, backend, lock, clock, options);
      const recovered = engine.lifecycle.recover().then(() => {
        engine.startWatching();
        engine.hosts.start();
      });
      if (options.recoverAfterOpen) {
        // A failure is told through `recovered` (its caller then closes the engine), never unhandled.
        recovered.catch(() => {});
        engine.recovered = recovered;
        return engine;
      }
      await recovered;
      return engine;
    } catch (err) {
      await backend?.close().catch(() => {});
      store?.close();
      lock.release();
      throw err;
    }
  }

  /** The catalogue in force: the shipped clis.toml with the user's over it (reloadCatalogue reads them again). */
  get catalogue(): Catalogue {
    return this.rt.catalogue;
  }

  set catalogue(catalogue: Catalogue) {
    this.rt.catalogue = catalogue;
  }

  // ---- reading ---------------------------------------------------------------------------

  async listClis(): Promise<Response<'listClis'>> {
    return { clis: [...this.catalogue.clis.values()].map(cliView), problems: this.catalogue.problems };
  }

  async listSessions(): Promise<Response<'listSessions'>> {
    return { sessions: this.store.listSessions().map((row) => this.views.view(row)) };
  }

  async getSession({ id }: Request<'getSession'>): Promise<SessionView> {
    return this.views.view(this.rt.row(id));
  }

  async events({ id }: Request<'events'>): Promise<Response<'events'>> {
    return { events: publicEvents(this.store.listEvents(id), this.rt.row(id).resumeKey) };
  }

  async receipt({ id }: Request<'receipt'>): Promise<Response<'receipt'>> {
    return { receipt: (await this.receipts({ id }))[0] ?? null };
  }

  async receipts({ id }: { id: string }): Promise<Receipt[]> {
    this.rt.row(id);
    return this.store.listReceipts(id, this.clock.now());
  }

  screen(req: Request<'screen'>): Promise<Response<'screen'>> {
    return this.terminals.screen(req);
  }

  /** Subscribes to every session's changes. Returns the unsubscribe function. */
  onSessionChange(listener: (change: SessionChange) => void): () => void {
    return this.views.onSessionChange(listener);
  }

  /** A viewer's live connection to a running session's terminal. */
  attach(id: string, options: AttachOptions): Promise<Attachment> {
    return this.terminals.attach(id, options);
  }

  // ---- changing --------------------------------------------------------------------------

  createSession(req: Request<'createSession'>): Promise<SessionView> {
    return this.records.create(req);
  }

  startSession({ id }: { id: string }): Promise<StartResult> {
    return this.lifecycle.start(id);
  }

  async stopSession({ id }: { id: string }): Promise<SessionView> {
    this.rt.row(id);
    // A message sent just before (its send answered once the text was typed) gets its Enter
    // first: a stop right behind a send never leaves the text unsubmitted at the prompt.
    await this.terminals.submitted(id, STOP_WAITS_FOR_ENTER_MS);
    return this.lifecycle.stop(id);
  }

  forgetKey(req: { id: string }): Promise<SessionView> {
    return this.records.forgetKey(req);
  }

  removeSession(req: Request<'removeSession'>): Promise<void> {
    return this.records.remove(req);
  }

  renameSession(req: { id: string; name: string }): Promise<SessionView> {
    return this.records.rename(req);
  }

  /**
   * Types into a session. With `submit`, Enter follows as a keystroke of its own once the agent
   * has taken the text in (terminals.ts).
   */
  write(req: Request<'write'>): Promise<void> {
    return this.terminals.write(req);
  }

  resize(req: { id: string; cols: number; rows: number }): Promise<void> {
    return this.terminals.resize(req);
  }

  // ---- review and landing (worktreeSessions.ts) -----------------------------------------------

  sessionChanges({ id }: Request<'sessionChanges'>): Promise<Response<'sessionChanges'>> {
    return this.worktrees.changes(this.rt.row(id));
  }

  sessionDiff({ id, path: file }: Request<'sessionDiff'>): Promise<Response<'sessionDiff'>> {
    return this.worktrees.diff(this.rt.row(id), file);
  }

  commentOnChanges({ id, comments }: Request<'commentOnChanges'>): Promise<void> {
    return this.worktrees.comment(this.rt.row(id), comments);
  }

  mergeSession({ id, message }: Request<'mergeSession'>): Promise<Response<'mergeSession'>> {
    this.rt.row(id);
    return this.rt.queue.run(id, () => this.worktrees.merge(this.rt.row(id), message));
  }

  openPullRequest({ id, ...req }: Request<'openPullRequest'>): Promise<Response<'openPullRequest'>> {
    this.rt.row(id);
    return this.rt.queue.run(id, () => this.worktrees.pullRequest(this.rt.row(id), req));
  }

  /** What every session has cost (usageWatch.ts). */
  async usage(req: Request<'usage'> = {}): Promise<Response<'usage'>> {
    return this.usageWatch.report(req.since);
  }

  /** Reads what the CLIs' transcripts gained since the last scan (usageWatch.ts). */
  scanUsage(): Promise<void> {
    return this.usageWatch.scan();
  }

  /** Each session's worktree that may have changed: ahead, behind, changed files (worktreeSessions.ts). */
  refreshWorktrees(): Promise<void> {
    return this.worktrees.refresh();
  }

  async reorderSessions(req: Request<'reorderSessions'>): Promise<Response<'reorderSessions'>> {
    this.records.reorder(req);
    return this.listSessions();
  }

  archiveSession(req: { id: string }): Promise<SessionView> {
    return this.records.archive(req);
  }

  restoreSession(req: { id: string }): Promise<SessionView> {
    return this.records.restore(req);
  }

  previewPath(req: { id: string; path: string }): Promise<PathPreview> {
    return this.previews.preview(req);
  }

  savePath(req: Request<'savePath'>): Promise<Response<'savePath'>> {
    return this.previews.save(req);
  }

  async checkFolder({ path: folder }: { path: string }): Promise<{ ok: true; path: string } | { ok: false; error: ErrorShape }> {
    try {
      return { ok: true, path: checkFolder(folder, this.rt.userHome) };
    } catch (err) {
      if (err instanceof CorralError) return { ok: false, error: err.toShape() };
      throw err;
    }
  }

  listFolders({ path: folder }: Request<'listFolders'>): Promise<Response<'listFolders'>> {
    return listFolders(folder, this.rt.userHome);
  }

  /** Stops watching. tmux agents keep running; pty agents end, and keep their keys. */
  async close(): Promise<void> {
    if (this.rt.closing) return;
    this.rt.closing = true;
    // A recovery under way ends first: what it reattached is then closed as usual.
    await this.recovered.catch(() => {});
    await this.hosts.close();
    // A look under way ends before what it looks at closes.
    await Promise.all(this.jobs.splice(0).map((job) => job.stop()));
    for (const id of [...this.rt.launches.keys()]) this.rt.clearLaunch(id);
    if (this.backend.kind === 'pty') {
      for (const row of this.store.listSessions()) {
        if (isRunning(row.state)) await this.rt.queue.run(row.id, () => this.lifecycle.end(row, 'daemon-stopped', 'stopped because Corral quit'));
      }
    }
    await this.rt.queue.idle();
    // An Enter still to come after typed text goes before the backend does.
    await this.terminals.idle();
    await this.backend.close();
    this.store.close();
    this.lock.release();
  }

  async listHosts(): Promise<Response<'listHosts'>> {
    return { hosts: this.hosts.list() };
  }

  async addHost(req: Request<'addHost'>): Promise<HostView> {
    return this.hosts.add(req);
  }

  async removeHost({ name }: Request<'removeHost'>): Promise<void> {
    await this.hosts.remove(name);
  }

  /** Subscribes to every host's state. Returns the unsubscribe function. */
  onHostChange(listener: (change: HostChange) => void): () => void {
    return this.hosts.onChange(listener);
  }

  /** Records where this engine can be reached: for a second engine's error, and for agents' hooks. */
  announce(url: string, holder: string): void {
    this.lock.update({ url, holder });
    this.hooks.url = url;
  }

  /** The agent itself says it waits for its person (e.g. Claude Code's Notification hook). */
  async flagAttention({ id, message }: { id: string; message?: string }): Promise<SessionView> {
    const row = this.rt.row(id);
    if (!isRunning(row.state)) throw new CorralError('conflict', `session "${row.name}" is not running`);
    this.views.setNeeds(id, { source: 'hook', since: this.clock.now(), ...(message ? { detail: message } : {}) });
    return this.views.view(this.rt.row(id));
  }

  /** Reloads clis.toml (the shipped one and the user's). */
  reloadCatalogue(): Catalogue {
    // Asked before the read: a change made during it is read again at the next look.
    this.catalogueSeen = catalogueSignature(this.home, this.options);
    // An edit that breaks an entry, or the file, leaves what it broke as it was (keepLastGood).
    const read = readCatalogue(this.home, this.options);
    this.catalogue = keepLastGood(this.catalogue, read);
    // What it kept is logged with the read's own problems ("above", in watchCatalogue).
    for (const problem of this.catalogue.problems.slice(read.problems.length)) console.error(`corral: ${problem.message}`);
    return this.catalogue;
  }

  /** What the catalogue files were when last read: a change to either is read at the next look. */
  private catalogueSeen: string;

  /** Reads clis.toml again when it changed since it was read: a person's edit needs no restart. */
  watchCatalogue(): void {
    const now = catalogueSignature(this.home, this.options);
    if (now === this.catalogueSeen) return;
    this.reloadCatalogue();
    console.error(`corral: ${path.join(this.home, 'clis.toml')} changed: read again (${this.catalogue.problems.length === 0 ? 'no problems' : `${this.catalogue.problems.length} problem(s), above`})`);
  }

  // ---- the watchers ------------------------------------------------------------------------

  /**
   * Once a second: which running sessions are working, which screens show a prompt that waits
   * for the person, and the resume keys CLIs choose themselves (screenWatcher.ts).
   */
  watchAttention(): Promise<void> {
    return this.screens.look();
  }

  /** Types each waiting first prompt whose agent is ready (firstPrompts.ts). */
  watchFirstPrompts(): Promise<void> {
    return this.prompts.look();
  }

  /** Each folder's git branch and changes (gitWatcher.ts). `all` asks for every folder. */
  refreshGit(all = false): Promise<void> {
    return this.git.refresh(all);
  }

  /** Rule 8: stop sessions idle past their CLI's limit. Their keys stay. */
  reap(): Promise<void> {
    return this.reaper.reap();
  }

  /** The reaper and the watchers run from the end of recovery until close. */
  private startWatching(): void {
    this.jobs.push(
      every('the idle reaper', this.options.reapIntervalMs ?? 60_000, () => this.reap()),
      every('the screen watcher', this.options.attentionIntervalMs ?? 1_000, () => this.watchAttention()),
      every('the git watcher', this.options.gitIntervalMs ?? 5_000, () => this.refreshGit()),
      every('the worktree watcher', this.options.gitIntervalMs ?? 5_000, () => this.refreshWorktrees()),
      every('the usage reader', this.options.usageIntervalMs ?? USAGE_INTERVAL_MS, () => this.scanUsage()),
      every('the catalogue watcher', this.options.catalogueIntervalMs ?? 2_000, async () => this.watchCatalogue()),
      every('the first-prompt typist', this.options.promptIntervalMs ?? 500, () => this.watchFirstPrompts()),
    );
    for (const row of this.rt.store.listSessions()) if (row.firstPrompt !== null) this.prompts.watch(row.id);
    void this.refreshGit(true).catch((err: Error) => console.error(`corral: the git watcher failed (it goes on): ${err.message}`));
  }
}

/** The catalogue files' sizes and times: cheap to ask every few seconds. */
function catalogueSignature(home: string, options: EngineOptions): string {
  return [options.shippedCatalogue ?? SHIPPED_CATALOGUE, path.join(home, 'clis.toml')].map(fileSignature).join('|');
}

function readCatalogue(home: string, options: EngineOptions): Catalogue {
  const env = childEnv(options.env ?? process.env, {});
  const catalogue = loadCatalogue({
    shippedFile: options.shippedCatalogue ?? SHIPPED_CATALOGUE,
    userFile: path.join(home, 'clis.toml'),
    pathEnv: env.PATH,
  });
  for (const problem of catalogue.problems) console.error(`corral: ${problem.message}`);
  return catalogue;
}
