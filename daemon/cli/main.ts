// `corral`: serve the engine, manage tokens, and drive sessions of a running daemon.
// Exit codes: 0 ok, 1 error, 2 usage.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Contract } from '../contract/contract';
import type { SessionView } from '../contract/session';
import { defaultHome } from '../home/home';
import { hostPrefix, sessionKey } from '../contract/hosts';
import { SCREEN_LINES_MAX } from '../contract/routes';
import { DETACH_KEY_NAME } from './detachKey';
import type { Connection } from './client';
import type * as ServeModule from './serve';
import { ClientError, NoDaemonError } from './clientErrors';
import { terminalJson, terminalSafe } from './terminalText';

export class UsageError extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface Command {
  usage: string;
  summary: string;
  options?: ParseArgsConfig['options'];
  run(positionals: string[], values: Record<string, string | boolean | undefined>): Promise<number>;
}

const home = () => defaultHome();
// The contract's table (and zod with it) loads only for a command that reaches a daemon.
const loadClient = () => import('./client');
/** This home's daemon, or, with `host`, the daemon of that remote host through it. */
const client = async (host?: string): Promise<Connection> => {
  const conn = (await loadClient()).connect(home());
  return host === undefined ? conn : { ...conn, url: conn.url + hostPrefix(host) };
};
const daemon = async (host?: string): Promise<Contract> => (await loadClient()).daemonApi(await client(host));

/** `HOST/ID` is a session on a remote host; a bare ID is this machine's. */
function onHost(given: string | undefined): { host?: string; id: string | undefined } {
  const slash = given?.indexOf('/') ?? -1;
  if (!given || slash < 0) return { id: given };
  return { host: given.slice(0, slash), id: given.slice(slash + 1) };
}

/** The contract of the daemon a session ID (or `HOST/ID`) belongs to, and the session's full id. */
async function sessionOf(given: string | undefined): Promise<{ api: Contract; id: string }> {
  const { host, id } = await placeOf(given);
  const api = await daemon(host);
  return { api, id: await resolveId(api, id) };
}

/**
 * Where a session given as `HOST/ID` is. A name may hold a slash: "a/b" is this machine's session
 * of that name unless a host is called "a" too, when only the id can tell them apart.
 */
async function placeOf(given: string | undefined): Promise<{ host?: string; id: string | undefined }> {
  const place = onHost(given);
  if (place.host === undefined) return place;
  const here = await daemon();
  const named = (await here.listSessions()).sessions.filter((s) => s.name === given);
  if (named.length === 0) return place;
  if (!(await here.listHosts()).hosts.some((h) => h.name === place.host)) return { id: given };
  throw new ClientError(`"${given}" is both a session here and session "${place.id}" on host ${place.host}; give the id (${named[0]!.id.slice(0, 8)} here)`, 404);
}

const hostOption = { host: { type: 'string' } } as const;
const hostOf = (v: Record<string, string | boolean | undefined>) => (v.host === undefined ? undefined : String(v.host));

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: 'corral serve [--host 127.0.0.1] [--port 4317] [--home DIR] [--allow-remote] [--backend tmux|pty]',
    summary: 'run the engine headless and serve its API',
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '4317' },
      home: { type: 'string' },
      'allow-remote': { type: 'boolean', default: false },
      backend: { type: 'string' },
    },
    run: async (_, v) => {
      const port = Number(v.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not ${JSON.stringify(v.port)}`);
      if (v.backend !== undefined && v.backend !== 'tmux' && v.backend !== 'pty') throw new UsageError('--backend must be tmux or pty');
      // Beside this file in out/cli: see codeCache.ts.
      const { requireCached } = await import('./codeCache');
      const { serve } = requireCached(fileURLToPath(new URL('./serve.cjs', import.meta.url))) as typeof ServeModule;
      return serve({
        host: String(v.host),
        port,
        home: v.home ? String(v.home) : home(),
        allowRemote: !!v['allow-remote'],
        backend: v.backend as 'tmux' | 'pty' | undefined,
      });
    },
  },
  token: {
    usage: 'corral token create NAME [--read-only] | corral token list | corral token revoke ID',
    summary: 'make, list and revoke API tokens',
    options: { 'read-only': { type: 'boolean', default: false }, home: { type: 'string' } },
    run: async (p, v) => (await import('./tokens')).tokenCommand(p, { readOnly: !!v['read-only'], home: v.home ? String(v.home) : home() }, UsageError),
  },
  ls: {
    usage: 'corral ls [--all] [--json] [--host NAME]',
    summary: 'list sessions (--all: archived ones too; --host: those of a remote host)',
    options: { json: { type: 'boolean', default: false }, all: { type: 'boolean', default: false }, ...hostOption },
    run: async (_, v) => {
      const { sessions: every } = await (await daemon(hostOf(v))).listSessions();
      const sessions = v.all ? every : every.filter((s) => s.archivedAt === null);
      if (v.json) return print(terminalJson(sessions));
      if (sessions.length === 0) return print(every.length > 0 ? `no sessions (${every.length} archived: corral ls --all)` : 'no sessions');
      // A long name is cut in the table, so that one does not push every row's columns apart (--json has it whole).
      const name = (s: SessionView) => (s.name.length > NAME_COLUMN ? `${s.name.slice(0, NAME_COLUMN - 1)}…` : s.name);
      const rows = sessions.map((s) => [s.id.slice(0, 8), name(s), s.cli, stateWords(s), s.resumable ? 'yes' : 'no', s.cwd].map((cell) => terminalSafe(cell, { lines: false })));
      return print(table([['ID', 'NAME', 'CLI', 'STATE', 'RESUMABLE', 'FOLDER'], ...rows]));
    },
  },
  new: {
    usage: 'corral new [--cli CLI] [--cwd DIR] [--name NAME] [--prompt TEXT|-] [--worktree [BRANCH] [--base REF] [--setup run|skip]] [--host NAME]',
    summary:
      'create a session and start it (in this folder unless --cwd says another; with the agent of the session made last unless --cli says another); --prompt is typed once the agent is ready (- reads it from stdin); --worktree runs it in a git worktree of its own, on a new branch (BRANCH, or corral/NAME) from REF (default: HEAD); its .corral/setup.toml command runs once you allow it for the repository (--setup run, remembered; --setup skip makes it without)',
    options: { cli: { type: 'string' }, cwd: { type: 'string' }, name: { type: 'string' }, prompt: { type: 'string' }, worktree: { type: 'boolean' }, base: { type: 'string' }, setup: { type: 'string' }, ...hostOption },
    run: async (positionals, v) => {
      if (positionals.length > (v.worktree ? 1 : 0)) throw new UsageError(`unexpected ${JSON.stringify(positionals.at(-1))}${v.worktree ? '' : ' (a branch goes after --worktree)'}`);
      if (v.base !== undefined && !v.worktree) throw new UsageError('--base goes with --worktree');
      if (v.setup !== undefined && !v.worktree) throw new UsageError('--setup goes with --worktree');
      if (v.setup !== undefined && v.setup !== 'run' && v.setup !== 'skip') throw new UsageError(`--setup is run or skip, not ${JSON.stringify(v.setup)}`);
      const setup = v.setup as 'run' | 'skip' | undefined;
      const worktree = v.worktree ? { ...(positionals[0] ? { branch: positionals[0] } : {}), ...(v.base === undefined ? {} : { base: String(v.base) }), ...(setup ? { setup } : {}) } : undefined;
      // A folder relative to here is made absolute here (the daemon runs elsewhere); ~ is the daemon's to read.
      // On a remote host, a folder is that host's: given as it is, its home by default.
      const host = hostOf(v);
      const given = String(v.cwd ?? (host === undefined ? '.' : '~'));
      const cwd = given === '~' || given.startsWith('~/') || host !== undefined ? given : path.resolve(given);
      const prompt = v.prompt === '-' ? await readStdin() : v.prompt === undefined ? undefined : String(v.prompt);
      const api = await daemon(host);
      const cli = v.cli === undefined ? await lastAgent(api) : String(v.cli);
      const body = { cli, cwd, ...(v.name === undefined ? {} : { name: String(v.name) }), ...(prompt === undefined ? {} : { prompt }), ...(worktree ? { worktree } : {}) };
      const session = await api.createSession(body).catch((err: unknown) => {
        // The recipe's command waits for the person's word: said as this command takes it.
        const shape = err instanceof ClientError ? err.error : (err as { code?: string; field?: string; message?: string });
        if (shape?.code === 'conflict' && shape.field === 'setup') throw new ClientError(`${shape.message}; here: --setup run or --setup skip`, 409);
        throw err;
      });
      return print(`${session.id}  ${session.name}  ${stateWords(session)}${session.worktree ? `  on ${session.worktree.branch} in ${session.worktree.path}` : ''}`);
    },
  },
  start: {
    usage: 'corral start [HOST/]ID',
    summary: 'start a session (resuming its conversation when it can)',
    run: async ([id]) => {
      const { api, id: sid } = await sessionOf(id);
      const { resumed, session, lost } = await api.startSession({ id: sid });
      if (lost) return print(`${session.name}: started clean, as its conversation ${lost.keyHint} could not be resumed (${lost.why}) (${session.state})`);
      return print(`${session.name}: ${resumed ? 'resuming its conversation' : 'started clean'} (${session.state})`);
    },
  },
  stop: {
    usage: 'corral stop [HOST/]ID',
    summary: 'stop a session (it keeps its conversation)',
    run: async ([id]) => {
      const { api, id: sid } = await sessionOf(id);
      const session = await api.stopSession({ id: sid });
      return print(`${session.name}: ${session.state}`);
    },
  },
  archive: {
    usage: 'corral archive [HOST/]ID',
    summary: 'stop a session if it runs and put it away, with everything kept',
    run: async ([id]) => {
      const { api, id: sid } = await sessionOf(id);
      const session = await api.archiveSession({ id: sid });
      return print(`${session.name}: archived`);
    },
  },
  restore: {
    usage: 'corral restore [HOST/]ID',
    summary: 'bring an archived session back (stopped)',
    run: async ([id]) => {
      const { api, id: sid } = await sessionOf(id);
      const session = await api.restoreSession({ id: sid });
      return print(`${session.name}: restored (${stateWords(session)})`);
    },
  },
  rm: {
    usage: 'corral rm [HOST/]ID [--force] [--keep-worktree|--remove-worktree] [--delete-branch]',
    summary: "remove a session (--force: even a running one); a worktree holding work needs --keep-worktree or --remove-worktree (its changes go too); its branch stays unless --delete-branch",
    options: {
      force: { type: 'boolean', default: false },
      'keep-worktree': { type: 'boolean', default: false },
      'remove-worktree': { type: 'boolean', default: false },
      'delete-branch': { type: 'boolean', default: false },
    },
    run: async ([id], v) => {
      if (v['keep-worktree'] && v['remove-worktree']) throw new UsageError('--keep-worktree or --remove-worktree, not both');
      const worktree = v['keep-worktree'] ? 'keep' : v['remove-worktree'] ? 'remove' : undefined;
      const { api, id: sid } = await sessionOf(id);
      const { name } = await api.getSession({ id: sid });
      await api.removeSession({ id: sid, ...(v.force ? { force: true } : {}), ...(worktree ? { worktree } : {}), ...(v['delete-branch'] ? { deleteBranch: true } : {}) }).catch((err: unknown) => {
        // The daemon says what to choose; here, how.
        if (err instanceof ClientError && err.error?.field === 'worktree' && !worktree && err.message.endsWith('say whether to keep it or remove it')) {
          throw new ClientError(`${err.message} (--keep-worktree or --remove-worktree)`, err.status, err.error);
        }
        throw err;
      });
      return print(`${name}: removed`);
    },
  },
  rename: {
    usage: 'corral rename [HOST/]ID NEW NAME',
    summary: 'give a session another name (the words after the ID, joined by spaces)',
    run: async ([id, ...words]) => {
      if (words.length === 0) throw new UsageError('NEW NAME is needed');
      const { api, id: sid } = await sessionOf(id);
      const before = (await api.getSession({ id: sid })).name;
      const session = await api.renameSession({ id: sid, name: words.join(' ') });
      return print(`${before}: renamed to ${session.name}`);
    },
  },
  send: {
    usage: 'corral send [HOST/]ID TEXT|-',
    summary: 'type TEXT (or, with -, what stdin holds) and Enter into a session',
    run: async ([id, ...words]) => {
      if (words.length === 0) throw new UsageError('TEXT is needed');
      // As new --prompt -: the text from stdin, without its last newline.
      const text = words.length === 1 && words[0] === '-' ? (await readStdin()).replace(/\r?\n$/, '') : words.join(' ');
      if (text === '') throw new UsageError('TEXT is empty');
      const { api, id: sid } = await sessionOf(id);
      await api.write({ id: sid, text, submit: true });
      return 0;
    },
  },
  peek: {
    usage: 'corral peek [HOST/]ID [--lines N]',
    summary: "print the last lines of a session's terminal",
    options: { lines: { type: 'string', default: '20' } },
    run: async ([id], v) => {
      const lines = String(v.lines);
      if (!/^\d+$/.test(lines) || Number(lines) < 1 || Number(lines) > SCREEN_LINES_MAX) {
        throw new UsageError(`--lines must be a whole number from 1 to ${SCREEN_LINES_MAX}, not ${JSON.stringify(lines)}`);
      }
      const { api, id: sid } = await sessionOf(id);
      const { text } = await api.screen({ id: sid, lines: Number(lines) });
      return print(text);
    },
  },
  usage: {
    usage: 'corral usage [--since 7d|YYYY-MM-DD] [--json]',
    summary: "what each session has cost: tokens, estimated cost and context, read from the CLIs' own transcripts; per project and per day since --since (default 7d)",
    options: { since: { type: 'string', default: '7d' }, json: { type: 'boolean', default: false } },
    run: async (_, v) => {
      const since = sinceOf(String(v.since));
      const api = await daemon();
      const [report, { sessions }] = await Promise.all([api.usage({ since }), api.listSessions()]);
      if (v.json) return print(terminalJson(report));
      const names = new Map(sessions.map((s) => [s.id, s.name]));
      const money = (cost: number | null, unpriced: string[]) => (cost === null ? 'no price' : `$${cost.toFixed(2)}${unpriced.length ? '+' : ''}`);
      const tokens = (t: { input: number; output: number; cacheWrite: number; cacheRead: number }) => (t.input + t.output + t.cacheWrite + t.cacheRead).toLocaleString('en');
      const lines: string[] = [];
      if (report.scanning) lines.push(`reading transcripts: ${report.scanning.filesDone} of ${report.scanning.filesTotal} files`);
      lines.push(
        table([
          ['SESSION', 'CLI', 'TOKENS', 'COST', 'CONTEXT', 'MODELS'],
          ...report.sessions.map((u) =>
            // A CLI whose transcripts Corral cannot read has no figures, not zero.
            [names.get(u.id) ?? u.id.slice(0, 8), u.cli, u.readable ? tokens(u.tokens) : '-', u.readable ? money(u.cost, u.unpricedModels) : '-', u.context?.fill == null ? '-' : `${Math.round(u.context.fill * 100)}%`, u.models.join(', ')].map((cell) =>
              terminalSafe(cell, { lines: false }),
            ),
          ),
        ]),
      );
      lines.push('', table([['DAY', 'TOKENS', 'COST'], ...report.byDay.map((d) => [d.key, tokens(d.tokens), money(d.cost, d.unpricedModels)])]));
      lines.push('', `total since ${new Date(since).toISOString().slice(0, 10)}: ${tokens(report.total.tokens)} tokens, ${money(report.total.cost, report.total.unpricedModels)}${report.total.unpricedModels.length ? ` (no price for ${report.total.unpricedModels.join(', ')})` : ''}`);
      const block = report.quota.claude;
      if (block) lines.push(`Claude's 5-hour block: ${tokens(block.tokens)} tokens, ${money(block.cost, block.unpricedModels)}, resets ${new Date(block.end).toLocaleTimeString('en')}`);
      const codex = report.quota.codex;
      if (codex?.primary) lines.push(`Codex's limits: ${codex.primary.usedPercent}% of the ${codex.primary.windowMinutes ?? '?'}-minute window${codex.secondary ? `, ${codex.secondary.usedPercent}% of the ${codex.secondary.windowMinutes ?? '?'}-minute one` : ''}`);
      return print(lines.join('\n'));
    },
  },
  events: {
    usage: 'corral events [HOST/]ID',
    summary: "print a session's event log",
    run: async ([id]) => {
      const { api, id: sid } = await sessionOf(id);
      const { events } = await api.events({ id: sid });
      const { receipt } = await api.receipt({ id: sid });
      const lines = events.map((e) => terminalSafe(`${new Date(e.at).toISOString()}  ${e.kind.padEnd(15)}  ${e.message}`, { lines: false }));
      if (receipt) lines.push(`last receipt: ${receipt.reason}, ${receipt.exit.signal ?? `code ${receipt.exit.code}`}, ${receipt.output.length} characters of output`);
      return print(lines.join('\n'));
    },
  },
  attach: {
    usage: 'corral attach [HOST/]ID',
    summary: `make this terminal the session's (detach with ${DETACH_KEY_NAME})`,
    run: async ([id]) => {
      const place = await placeOf(id);
      const conn = await client(place.host);
      const sid = await resolveId((await loadClient()).daemonApi(conn), place.id);
      const { attach } = await import('./attach');
      return attach(conn, sid);
    },
  },
  url: {
    usage: 'corral url [[HOST/]ID]',
    summary: 'print a link that opens the running daemon in a browser (at that session), once, within 60 s',
    run: async ([id]) => {
      // The session first: a name that names none fails before a code is made.
      let session = '';
      if (id !== undefined) {
        const place = await placeOf(id);
        const sid = await resolveId((await loadClient()).daemonApi(await client(place.host)), place.id);
        session = `&session=${sessionKey(place.host ?? null, sid)}`;
      }
      const conn = await client();
      const { request } = await loadClient();
      // Never the token itself: a link stays in the browser's history. Its code opens one tab, once.
      const { code, expiresInS } = await request<{ code: string; expiresInS: number }>(conn, { verb: 'POST', path: '/api/auth/code' });
      process.stderr.write(`(the link opens Corral in one browser tab, once, within ${expiresInS} s)\n`);
      return print(`${conn.url}/#code=${code}${session}`);
    },
  },
  hosts: {
    usage: 'corral hosts add NAME [user@]host[:port] [--corral PATH] | corral hosts ls [--json] | corral hosts rm NAME',
    summary: "remote hosts, reached with this machine's ssh (its config, keys and agent): their sessions through this daemon (--host NAME, NAME/ID)",
    options: { corral: { type: 'string' }, json: { type: 'boolean', default: false } },
    run: async (p, v) => (await import('./hosts')).hostsCommand(p, { corral: v.corral === undefined ? undefined : String(v.corral), json: !!v.json }, () => daemon(), { print, UsageError }),
  },
  endpoint: {
    usage: 'corral endpoint',
    summary: "make sure a daemon serves this home (starting one on loopback if none answers) and print how to reach it, as JSON: what another machine's link runs over ssh",
    run: async (p) => {
      if (p.length > 0) throw new UsageError(`unexpected ${JSON.stringify(p[0])}`);
      return (await import('./endpoint')).endpointCommand(home(), print);
    },
  },
  mcp: {
    usage: 'corral mcp',
    summary: 'a read-only MCP server on stdio (needs CORRAL_TOKEN)',
    run: async () => (await import('./mcp')).runMcp(),
  },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    print(help());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    printError(`corral: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  try {
    if (rest.includes('--help') || rest.includes('-h')) return print(`usage: ${command.usage}\n\n${command.summary}`);
    const { values, positionals } = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true });
    return await command.run(positionals, values as Record<string, string | boolean | undefined>);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      printError(`corral ${name}: ${(err as Error).message}\nusage: ${command.usage}`);
      return 2;
    }
    if (err instanceof NoDaemonError || err instanceof ClientError) {
      printError(`corral ${name}: ${err.message}`);
      return 1;
    }
    const known = err as { code?: string; message?: string };
    if (known.code && typeof known.message === 'string' && !(err instanceof TypeError)) {
      printError(`corral ${name}: ${known.message}`);
      return 1;
    }
    throw err;
  }
}

async function resolveId(api: Contract, given: string | undefined): Promise<string> {
  if (!given) throw new UsageError('a session ID is needed');
  if (/^[0-9a-f-]{36}$/.test(given)) return given;
  const { sessions } = await api.listSessions();
  // Its name before the start of an id: a session named "b" or "cafe" is found by its name
  // whatever the ids that start with those letters. Ids tell apart sessions that share a name.
  const named = sessions.filter((s) => s.name === given);
  const found = named.length > 0 ? named : sessions.filter((s) => s.id.startsWith(given));
  if (found.length === 1) return found[0]!.id;
  if (found.length === 0) throw new ClientError(`no session matches "${given}" (corral ls lists them)`, 404);
  // Each by enough of its id to tell them apart, and its name.
  const which = found.slice(0, 10).map((s) => `${s.id.slice(0, 8)} (${terminalSafe(s.name, { lines: false })})`);
  throw new ClientError(`"${given}" matches ${found.length} sessions: ${which.join(', ')}${found.length > 10 ? ', …' : ''}; give more of the id`, 404);
}

function stateWords(s: SessionView): string {
  const words = stateWord(s);
  return s.worktree?.missing ? `${words}, worktree deleted` : words;
}

function stateWord(s: SessionView): string {
  if (s.archivedAt !== null) return 'archived';
  if (s.state === 'running' && s.activity) return s.activity === 'needs-you' ? 'needs you' : s.activity;
  if (s.state === 'exited' && s.lastExit && (s.lastExit.signal || s.lastExit.code !== null)) return s.lastExit.signal ? `exited (${s.lastExit.signal})` : `exited (code ${s.lastExit.code})`;
  return s.state;
}

/** `--since`: a number of days ("7d"), hours ("12h") or a date ("2026-11-30"), as epoch ms. */
function sinceOf(value: string): number {
  const relative = /^(\d+)([dh])$/.exec(value);
  if (relative) {
    const [count, unit] = [Number(relative[1]), relative[2] === 'd' ? 'd' : 'h'];
    // From 1 hour to about 100 years back.
    if (count < 1 || count > (unit === 'd' ? 36_500 : 876_000)) throw new UsageError(`--since ${JSON.stringify(value)}: give 1 to ${unit === 'd' ? '36500 days' : '876000 hours'}`);
    return Date.now() - count * (unit === 'd' ? 86_400_000 : 3_600_000);
  }
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = parts ? new Date(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3])) : null;
  // A date that is not one (2026-02-30) would roll over into the next month.
  if (!date || date.getFullYear() !== Number(parts![1]) || date.getMonth() !== Number(parts![2]) - 1 || date.getDate() !== Number(parts![3])) {
    throw new UsageError(`--since must be days (7d), hours (12h) or a date (2026-11-30), not ${JSON.stringify(value)}`);
  }
  if (date.getTime() > Date.now()) throw new UsageError(`--since ${value} is in the future`);
  return date.getTime();
}

/** The widest a name is in `corral ls`'s table. */
const NAME_COLUMN = 40;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)} ${c.summary}`);
  return [
    'usage: corral COMMAND [options]   (corral COMMAND --help for more)',
    '',
    ...lines,
    '',
    'ID: a session\'s name, or its id or the start of it (a name comes first).',
    'Environment: CORRAL_HOME (default ~/.corral), CORRAL_TMUX_SOCKET, CORRAL_TOKEN, CORRAL_URL, CORRAL_SSH_CONFIG (ssh -F for remote hosts).',
  ].join('\n');
}

/** Everything printed goes through terminalSafe: names, folders and messages come from the daemon. */
function print(text: string): number {
  const safe = terminalSafe(text);
  process.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  return 0;
}

function printError(text: string): void {
  process.stderr.write(`${terminalSafe(text)}\n`);
}

/** The agent of the session made last (archived ones too), said on stderr; without one, --cli is needed. */
async function lastAgent(api: Contract): Promise<string> {
  const { sessions } = await api.listSessions();
  const last = sessions.reduce<SessionView | null>((newest, s) => (!newest || s.createdAt > newest.createdAt ? s : newest), null);
  if (!last) throw new UsageError('--cli is needed: there is no session yet to take the agent from (corral new --cli NAME; the agents are in clis.toml)');
  process.stderr.write(`corral: the agent of the session made last, ${last.cli} (--cli chooses another)\n`);
  return last.cli;
}
