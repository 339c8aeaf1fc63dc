// The `corral` command line against a real daemon: client commands, tokens, attach, exit
// codes, two daemons on one home, and a clean shutdown that leaves tmux agents running.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRig } from './support/rig';
import { waitFor } from './support/wait';
import { buildCli, serveRig, type Served } from './support/serveRig';
import { CORRAL, daemonEnv, request, startServe } from './support/serve';

let s: Served;
beforeAll(async () => {
  s = await serveRig();
});
afterAll(async () => {
  await s.rig.cleanup();
});

describe('client commands', () => {
  it('new, ls, send, peek, events, stop, start, archive, restore, rename, rm: each talks to the running daemon', () => {
    const made = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', 'cli-made']);
    expect(made.code).toBe(0);
    const id = made.stdout.split(' ')[0]!;
    expect(made.stdout).toMatch(new RegExp(`^${id}  cli-made  working\\n$`));

    const listed = JSON.parse(s.cli(['ls', '--json']).stdout) as { id: string; name: string }[];
    expect(listed.find((x) => x.id === id)?.name).toBe('cli-made');
    expect(s.cli(['ls']).stdout).toMatch(new RegExp(`^ID\\s+NAME\\s+CLI\\s+STATE\\s+RESUMABLE\\s+FOLDER\\n${id.slice(0, 8)}\\s+cli-made\\s+faker\\s+(working|idle)\\s+yes\\s+${s.rig.home}`, 'm'));

    expect(s.cli(['send', id.slice(0, 8), 'hello', 'there']).code).toBe(0);
    const peek = () => s.cli(['peek', 'cli-made', '--lines', '5']).stdout;
    const deadline = Date.now() + 20_000;
    while (!peek().includes('echo: hello there') && Date.now() < deadline) execFileSync('sleep', ['0.1']);
    expect(peek()).toContain('echo: hello there');

    expect(s.cli(['stop', id]).stdout).toBe('cli-made: stopped\n');
    expect(s.cli(['start', id]).stdout).toBe('cli-made: resuming its conversation (resuming)\n');
    const events = s.cli(['events', id]).stdout;
    expect(events).toMatch(/created\s+created in /);
    expect(events).toMatch(/stopped\s+stopped by you/);
    expect(events).toMatch(/resuming\s+resuming its conversation/);
    expect(events).toMatch(/last receipt: stopped, SIGHUP/);

    expect(s.cli(['archive', 'cli-made']).stdout).toBe('cli-made: archived\n');
    expect(s.cli(['ls']).stdout).not.toContain('cli-made');
    expect(s.cli(['ls', '--all']).stdout).toMatch(/cli-made\s+faker\s+archived\s+yes/);
    expect(s.cli(['restore', 'cli-made']).stdout).toBe('cli-made: restored (stopped)\n');
    expect(s.cli(['start', id]).code).toBe(0);

    const refusal = s.cli(['rm', id]);
    expect(refusal).toMatchObject({ code: 1, stderr: 'corral rm: session "cli-made" is running: stop it first, or remove it with force\n' });
    expect(s.cli(['rename', 'cli-made', 'made', 'by', 'the', 'cli']).stdout).toBe('cli-made: renamed to made by the cli\n');
    expect(s.cli(['rename', id, '   '])).toMatchObject({ code: 1, stderr: 'corral rename: name must not be empty\n' });
    expect(s.cli(['rm', id, '--force'])).toMatchObject({ code: 0, stdout: 'made by the cli: removed\n' });
    expect(s.cli(['peek', id]).code).toBe(1);
    // About fifteen commands, each a Node process of its own: slow on a busy machine, not wrong.
  }, 120_000);

  it('start names the conversation it found gone, and says it started clean', async () => {
    const id = s.cli(['new', '--cli', 'keeper', '--cwd', s.rig.home, '--name', 'forgotten']).stdout.split(' ')[0]!;
    await waitFor(() => s.cli(['peek', id]).stdout.includes(`FRESH START ${id}`), 'the fresh start');
    expect(s.cli(['stop', id]).code).toBe(0);
    // Keeper keeps no conversation of a session never typed into.
    expect(s.cli(['start', id]).stdout).toBe(`forgotten: started clean, as its conversation ${id.slice(0, 8)}… could not be resumed (it is not in Keeper's files) (starting)\n`);
    expect(s.cli(['rm', id, '--force']).code).toBe(0);
  });

  it('attach makes a terminal the session\'s, and Ctrl-] detaches leaving it running', async () => {
    const id = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', 'attached']).stdout.split(' ')[0]!;
    const term = pty.spawn(process.execPath, [CORRAL, 'attach', id], { cols: 100, rows: 30, env: s.env as Record<string, string> });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    await waitFor(() => screen.includes('Ctrl-] detaches') && screen.includes('FRESH START'), 'the attached screen');
    term.write('from my terminal\r');
    await waitFor(() => screen.includes('echo: from my terminal'), 'the echo in my terminal');
    term.write('\u001d');
    expect(await exited).toBe(0);
    expect(screen).toContain('detached; the session keeps running');
    expect(JSON.parse(s.cli(['ls', '--json']).stdout).find((x: { id: string }) => x.id === id).state).toBe('running');
  });

  it('attach refuses a stdin that is not a terminal, and a session that is not running, with an exit status that says so', async () => {
    const id = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', 'refusing']).stdout.split(' ')[0]!;
    // (A time limit: an attach that waits on a pipe would otherwise hold the test for ever.)
    const piped = spawnSync(process.execPath, [CORRAL, 'attach', id], { input: 'typed\n', env: s.env, encoding: 'utf8', timeout: 30_000 });
    expect(piped.status).toBe(2);
    expect(piped.stderr).toContain('needs a terminal');
    expect(s.cli(['stop', id]).code).toBe(0);
    const term = pty.spawn(process.execPath, [CORRAL, 'attach', id], { cols: 100, rows: 30, env: s.env as Record<string, string> });
    let screen = '';
    term.onData((d) => (screen += d));
    const status = await new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    expect(status).toBe(1);
    expect(screen).toContain('is not running');
    expect(screen).not.toContain('attached;');
  });

  it('new starts in the folder it is run from, or a folder relative to it', () => {
    fs.mkdirSync(path.join(s.rig.home, 'sub'), { recursive: true });
    const here = s.cli(['new', '--cli', 'faker', '--name', 'here'], {}, s.rig.home);
    expect(here.code).toBe(0);
    const dotted = s.cli(['new', '--cli', 'faker', '--cwd', './sub', '--name', 'there'], {}, s.rig.home);
    expect(dotted.code).toBe(0);
    const listed = JSON.parse(s.cli(['ls', '--json']).stdout) as { name: string; cwd: string }[];
    expect(listed.find((x) => x.name === 'here')?.cwd).toBe(s.rig.home);
    expect(listed.find((x) => x.name === 'there')?.cwd).toBe(path.join(s.rig.home, 'sub'));
    // Without --cli, the agent of the session made last, and it says so (on stderr: stdout is the session).
    const again = s.cli(['new', '--name', 'again'], {}, s.rig.home);
    expect(again).toMatchObject({ code: 0, stderr: 'corral: the agent of the session made last, faker (--cli chooses another)\n' });
    expect((JSON.parse(s.cli(['ls', '--json']).stdout) as { name: string; cli: string }[]).find((x) => x.name === 'again')?.cli).toBe('faker');
    for (const name of ['here', 'there', 'again']) expect(s.cli(['rm', name, '--force']).code).toBe(0);
  });

  it('a session is found by its name before the ids that start with the same letters', () => {
    const first = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', 'other']).stdout.split(' ')[0]!;
    // A name made of the first letters of another session's id: the name is what is meant.
    const name = first.slice(0, 6);
    const named = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', name]).stdout.split(' ')[0]!;
    expect(s.cli(['events', name]).stdout).toContain(`created in ${s.rig.home}`);
    const renamed = s.cli(['rename', name, 'found']);
    expect(renamed.code).toBe(0);
    const listed = JSON.parse(s.cli(['ls', '--json']).stdout) as { id: string; name: string }[];
    expect(listed.find((x) => x.id === named)?.name).toBe('found');
    expect(listed.find((x) => x.id === first)?.name).toBe('other');
    // With no session of that name, the same letters are the start of an id again.
    expect(s.cli(['rename', name, 'other too']).code).toBe(0);
    expect((JSON.parse(s.cli(['ls', '--json']).stdout) as { id: string; name: string }[]).find((x) => x.id === first)?.name).toBe('other too');
    for (const id of [first, named]) expect(s.cli(['rm', id, '--force']).code).toBe(0);
  });

  it('a name two sessions share is refused with the ids that tell them apart; a long name is cut in the list', () => {
    const long = 'a-name-far-longer-than-any-column-should-be-for-one-session-in-a-table';
    const ids = ['twin', 'twin', long].map((name) => s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', name]).stdout.split(' ')[0]!);
    const refused = s.cli(['peek', 'twin']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`corral peek: "twin" matches 2 sessions: ${ids[0]!.slice(0, 8)} (twin), ${ids[1]!.slice(0, 8)} (twin); give more of the id\n`);
    expect(s.cli(['peek', 'no-such-session']).stderr).toBe('corral peek: no session matches "no-such-session" (corral ls lists them)\n');
    const row = s.cli(['ls']).stdout.split('\n').find((line) => line.startsWith(ids[2]!.slice(0, 8)))!;
    expect(row).toMatch(new RegExp(`^${ids[2]!.slice(0, 8)}  ${long.slice(0, 39)}…  faker `));
    expect(JSON.parse(s.cli(['ls', '--json']).stdout).find((x: { id: string }) => x.id === ids[2]).name).toBe(long);
    for (const id of ids) expect(s.cli(['rm', id, '--force']).code).toBe(0);
  });

  it('new --prompt - takes the first prompt from stdin, and it is typed once the agent is ready; send - takes its text from stdin', async () => {
    const made = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', 'prompted', '--prompt', '-'], {}, undefined, 'hello from stdin\n');
    expect(made.code).toBe(0);
    await waitFor(() => s.cli(['peek', 'prompted']).stdout.includes('echo: hello from stdin'), 'the prompt to be typed');
    expect(JSON.parse(s.cli(['ls', '--json']).stdout).find((x: { name: string }) => x.name === 'prompted').promptWaiting).toBe(false);
    // send - as well.
    expect(s.cli(['send', 'prompted', '-'], {}, undefined, 'sent from stdin\n').code).toBe(0);
    await waitFor(() => s.cli(['peek', 'prompted']).stdout.includes('echo: sent from stdin'), 'the text from stdin');
    expect(s.cli(['send', 'prompted', '-'], {}, undefined, '')).toMatchObject({ code: 2, stderr: expect.stringContaining('TEXT is empty') });
    expect(s.cli(['rm', 'prompted', '--force']).code).toBe(0);
  });

  it('new --worktree BRANCH runs the session in a worktree of its own on that branch', async () => {
    const repo = path.join(s.rig.root, 'repo');
    fs.mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@x' }, encoding: 'utf8' });
    git('init', '--quiet', '--initial-branch=main');
    git('commit', '--quiet', '--allow-empty', '-m', 'first');
    const made = s.cli(['new', '--cli', 'faker', '--name', 'branched', '--worktree', 'feature/x'], {}, repo);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/ on feature\/x in \/.*\/worktrees\/repo-[0-9a-f]{8}\/feature-x\n$/);
    expect(git('branch', '--list', 'feature/x')).toContain('feature/x');
    expect(s.cli(['new', '--cli', 'faker', '--base', 'main'], {}, repo)).toMatchObject({ code: 2, stderr: expect.stringContaining('--base goes with --worktree') });
    // Work in it: the refusal names the flags that choose.
    fs.writeFileSync(path.join(made.stdout.trim().split(' in ').at(-1)!, 'wip.txt'), 'wip\n');
    expect(s.cli(['rm', 'branched', '--force'])).toMatchObject({ code: 1, stderr: 'corral rm: the worktree of session "branched" holds work (1 change not committed): say whether to keep it or remove it (--keep-worktree or --remove-worktree)\n' });
    expect(s.cli(['rm', 'branched', '--force', '--remove-worktree']).code).toBe(0);
    // One deleted by hand says so in the list.
    const gone = s.cli(['new', '--cli', 'faker', '--name', 'gone', '--worktree'], {}, repo);
    fs.rmSync(gone.stdout.trim().split(' in ').at(-1)!, { recursive: true, force: true });
    await waitFor(() => /^\S+\s+gone\s+faker\s+.*, worktree deleted/m.test(s.cli(['ls']).stdout), 'the list to say the worktree was deleted', 30_000);
    expect(s.cli(['rm', 'gone', '--force']).code).toBe(0);
    // A recipe's setup command runs once allowed for the repository.
    fs.mkdirSync(path.join(repo, '.corral'));
    fs.writeFileSync(path.join(repo, '.corral', 'setup.toml'), '[worktree]\nsetup = "true"\n');
    git('add', '.corral');
    git('commit', '--quiet', '-m', 'a recipe');
    const asked = s.cli(['new', '--cli', 'faker', '--name', 'asked', '--worktree'], {}, repo);
    expect(asked).toMatchObject({ code: 1, stderr: expect.stringMatching(/^corral new: this branch's \.corral\/setup\.toml runs `true` before the agent starts, .*; here: --setup run or --setup skip\n$/) });
    expect(s.cli(['new', '--cli', 'faker', '--name', 'asked', '--worktree', '--setup', 'maybe'], {}, repo)).toMatchObject({ code: 2, stderr: expect.stringContaining('--setup is run or skip, not "maybe"') });
    expect(s.cli(['new', '--cli', 'faker', '--name', 'allowed', '--worktree', '--setup', 'run'], {}, repo).code).toBe(0);
    expect(s.cli(['rm', 'allowed', '--force']).code).toBe(0);
  });

  it('usage prints what each session cost, and --since takes days, hours or a date', async () => {
    const id = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', 'unread']).stdout.split(' ')[0]!;
    // Listed once the transcripts are read (none here): a CLI whose transcripts are not read has no figures, not zeros.
    const row = await waitFor(() => /^unread\s.*$/m.exec(s.cli(['usage']).stdout)?.[0] ?? null, 'the session in the usage table');
    expect(row).toMatch(/^unread\s+faker\s+-\s+-\s+-/);
    expect(s.cli(['rm', id, '--force']).code).toBe(0);
    const out = s.cli(['usage']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('SESSION');
    expect(out.stdout).toMatch(/total since \d{4}-\d{2}-\d{2}: 0 tokens/);
    expect(JSON.parse(s.cli(['usage', '--json', '--since', '2026-11-01']).stdout)).toMatchObject({ sessions: expect.any(Array), byDay: expect.any(Array), quota: expect.any(Object) });
    expect(s.cli(['usage', '--since', 'last week'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--since must be days (7d), hours (12h) or a date') });
    expect(s.cli(['usage', '--since', '2026-02-30'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--since must be days (7d), hours (12h) or a date (2026-11-30), not "2026-02-30"') });
    expect(s.cli(['usage', '--since', '2999-01-01'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--since 2999-01-01 is in the future') });
    expect(s.cli(['usage', '--since', '100000d'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--since "100000d": give 1 to 36500 days') });
    expect(s.cli(['usage', '--since', '0h'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--since "0h": give 1 to 876000 hours') });
  });

  it('usage errors exit 2, --help exits 0, and every command has help', () => {
    expect(s.cli(['new', '--cwd', s.rig.home, '--base', 'main'])).toMatchObject({
      code: 2,
      stderr: 'corral new: --base goes with --worktree\nusage: corral new [--cli CLI] [--cwd DIR] [--name NAME] [--prompt TEXT|-] [--worktree [BRANCH] [--base REF] [--setup run|skip]] [--host NAME]\n',
    });
    expect(s.cli(['ls', '--bogus']).code).toBe(2);
    for (const lines of ['0', 'abc', '10001']) {
      expect(s.cli(['peek', 'whatever', '--lines', lines]), lines).toMatchObject({ code: 2, stderr: expect.stringContaining(`corral peek: --lines must be a whole number from 1 to 10000, not "${lines}"`) });
    }
    expect(s.cli(['frobnicate']).code).toBe(2);
    expect(s.cli([]).code).toBe(2);
    expect(s.cli(['--help']).code).toBe(0);
    for (const command of ['serve', 'token', 'ls', 'new', 'start', 'stop', 'archive', 'restore', 'rm', 'rename', 'send', 'peek', 'usage', 'events', 'attach', 'url', 'hosts', 'endpoint', 'mcp']) {
      const help = s.cli([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toMatch(new RegExp(`^usage: corral ${command}`));
    }
  });
});

describe('what a client command loads', () => {
  it('the built file a command that reaches a daemon runs (corral.cjs, and what it requires of ours at once) holds no zod and no engine, and loads node:https only for an https daemon', () => {
    const dir = path.dirname(CORRAL);
    const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
    // Every file of ours loaded with it: what corral.cjs requires outside a function's body
    // (mcp.cjs, attach.cjs and tokens.cjs are required only by the commands that use them).
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const [, next] of read(file).matchAll(/^(?:var|const) \w+ = (?:__toESM\()?require\("\.\/([\w-]+\.c?js)"\)/gm)) visit(next!);
    };
    visit('corral.cjs');
    // The commands that need more require it when they run, and nothing of that is in corral.cjs.
    expect(read('corral.cjs')).toMatch(/require\("\.\/mcp\.cjs"\)/);
    expect(fs.existsSync(path.join(dir, 'mcp.cjs'))).toBe(true);
    expect(read('mcp.cjs')).toMatch(/node_modules\/zod\//);
    for (const file of loaded) {
      expect(read(file), file).not.toMatch(/node_modules\/zod\//);
      expect(read(file), file).not.toMatch(/daemon\/engine\//);
      // node:https only inside the request for an https daemon, never at load.
      expect(read(file).match(/require\("node:https"\)/g) ?? [], file).toHaveLength(file === 'corral.cjs' ? 1 : 0);
      expect(read(file), file).not.toMatch(/^(?:var|const) \w+ = (?:__toESM\()?require\("node:https"\)/m);
    }
  });
});

describe("serve's code cache", () => {
  it('is made for the built serve.cjs and accepted by this Node, compiled as codeCache.ts compiles it (a refused cache would compile the file at every start)', async () => {
    const file = path.join(path.dirname(CORRAL), 'serve.cjs');
    // Another test file's build may be making it again just now.
    await waitFor(() => fs.existsSync(`${file}.cache`), 'the code cache', 60_000);
    // In a process of its own, as `corral serve` runs: V8 refuses a cache made under other flags.
    const check = `const fs = require('node:fs'); const vm = require('node:vm'); const file = ${JSON.stringify(file)};
      const script = new vm.Script('(function (exports, require, module, __filename, __dirname) {' + fs.readFileSync(file, 'latin1') + '\\n})', { filename: file, cachedData: fs.readFileSync(file + '.cache'), importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
      process.stdout.write(String(script.cachedDataRejected));`;
    expect(execFileSync(process.execPath, ['-e', check], { encoding: 'utf8' })).toBe('false');
  });

  it('serve.cjs is ASCII, as the loader reads it as Latin-1', () => {
    const text = fs.readFileSync(path.join(path.dirname(CORRAL), 'serve.cjs'), 'latin1');
    expect(text.match(/[^\0-\x7f]/g) ?? []).toEqual([]);
  });
});

describe('what a start runs', () => {
  it('no zod until a request brings a field to check: not for a start with a right catalogue, /healthz and a list', async () => {
    buildCli();
    const rig = await makeRig();
    // The daemon says, when asked with a signal, whether zod's module has run (it marks globalThis).
    const said = path.join(rig.root, 'zod-ran');
    const preload = path.join(rig.root, 'zod-ran.cjs');
    fs.writeFileSync(preload, `process.on('SIGUSR2', () => require('node:fs').writeFileSync(${JSON.stringify(said)}, String('__zod_globalConfig' in globalThis)));`);
    const served = await startServe({ ...daemonEnv(rig), NODE_OPTIONS: `--require ${preload}` });
    const zodRan = async () => {
      fs.rmSync(said, { force: true });
      served.child.kill('SIGUSR2');
      // The file is there before its word is (writeFileSync makes it, then writes).
      return waitFor(() => (fs.existsSync(said) && fs.readFileSync(said, 'utf8')) || null, 'the daemon to say');
    };
    try {
      const token = (JSON.parse(fs.readFileSync(path.join(rig.home, 'endpoint.json'), 'utf8')) as { token: string }).token;
      expect((await request(served.url, 'GET', '/healthz')).status).toBe(200);
      expect((await request(served.url, 'GET', '/api/sessions', { token })).status).toBe(200);
      expect(await zodRan()).toBe('false');
      expect((await request(served.url, 'GET', '/api/sessions/none', { token })).status).toBe(404);
      expect(await zodRan()).toBe('true');
    } finally {
      await served.stop();
      await rig.cleanup();
    }
  });
});

describe("the database's package in the built files", () => {
  // That they open a database is every test here that starts the daemon or makes a token.
  it("serve.cjs and tokens.cjs carry better-sqlite3's JavaScript, and load its addon from the installed package without the bindings package's search", () => {
    const dir = path.dirname(CORRAL);
    for (const file of ['serve.cjs', 'tokens.cjs']) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      expect(text, file).toMatch(/^\/\/ node_modules\/better-sqlite3\/lib\/database\.js$/m);
      expect(text, file).not.toMatch(/require\("better-sqlite3"\)/);
      expect(text, file).not.toMatch(/^\/\/ node_modules\/bindings\//m);
      expect(text, file).toMatch(/require\.resolve\("better-sqlite3\/package\.json"\)/);
    }
  });
});

describe('what the page loads', () => {
  it("the built page's script and the files it imports hold no zod and no method table (their source maps say what is in them)", () => {
    const dir = path.join(path.dirname(CORRAL), '..', 'renderer');
    const entry = /<script type="module"[^>]* src="\.\/(assets\/[\w-]+\.js)"/.exec(fs.readFileSync(path.join(dir, 'index.html'), 'utf8'))?.[1];
    expect(entry).toBeDefined();
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      for (const [, next] of text.matchAll(/(?:from|import)\s*"\.\/([\w-]+\.js)"/g)) visit(path.join(path.dirname(file), next!));
    };
    visit(entry!);
    // (The bundler's small runtime chunk has no source map.)
    const maps = [...loaded].map((file) => path.join(dir, `${file}.map`)).filter((map) => fs.existsSync(map));
    const sources = maps.flatMap((map) => (JSON.parse(fs.readFileSync(map, 'utf8')) as { sources: string[] }).sources);
    expect(sources.some((source) => source.includes('renderer/components/Workspace'))).toBe(true);
    expect(sources.filter((source) => /node_modules\/zod\/|contract\/methods/.test(source))).toEqual([]);
  });
});

describe('tokens', () => {
  it('create prints the token as the last line; list never shows a secret; revoke takes the id', () => {
    const made = s.cli(['token', 'create', 'ci-bot', '--read-only']);
    const secret = made.stdout.trim().split('\n').at(-1)!;
    expect(secret).toMatch(/^crl_[A-Za-z0-9_-]{32}$/);
    const list = s.cli(['token', 'list']).stdout;
    expect(list).toMatch(/^tok_[0-9a-f]{8} {2}read-only {2}ci-bot {2}\(made .*, never used\)$/m);
    expect(list).not.toContain(secret);
    expect(list).not.toContain('local clients'); // the daemon's own token is not a user's to manage
    expect(fs.readFileSync(path.join(s.rig.home, 'corral.db')).includes(secret)).toBe(false);
    // The daemon's own local token sits only in a file no one else can read.
    expect(fs.statSync(path.join(s.rig.home, 'endpoint.json')).mode & 0o777).toBe(0o600);
    expect(s.output()).not.toContain(s.token);
    expect(s.cli(['token', 'revoke', 'tok_nothere'])).toMatchObject({ code: 1, stderr: 'corral token: no token with id "tok_nothere"\n' });
    expect(s.cli(['token', 'frob']).code).toBe(2);
  });
});

describe('the daemon', () => {
  it('a second daemon on the same home refuses and names the first', () => {
    const second = s.cli(['serve', '--port', '0']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`^corral serve: Corral home ${s.rig.home} is in use by corral serve \\(${s.url.replace(/[./]/g, '\\$&')}\\) \\(pid ${s.child.pid} on .+, since .+, ${s.url.replace(/[./]/g, '\\$&')}\\)\\n$`),
    );
  });

  it('refuses to listen beyond loopback without --allow-remote', () => {
    expect(s.cli(['serve', '--host', '0.0.0.0', '--port', '0'])).toMatchObject({
      code: 2,
      stderr: 'corral serve: refusing to listen on 0.0.0.0: the API would be reachable from other machines; add --allow-remote if you mean it\n',
    });
  });

  it('with no daemon running, a client command says so in one line and exits 1', async () => {
    const rig = await makeRig();
    buildCli();
    try {
      const result = (() => {
        try {
          execFileSync(process.execPath, [CORRAL, 'ls'], { env: { ...rig.env, CORRAL_HOME: rig.home }, stdio: 'pipe', encoding: 'utf8' });
          return { code: 0, stderr: '' };
        } catch (err) {
          return err as { status: number; stderr: string };
        }
      })();
      expect(result).toMatchObject({ status: 1, stderr: `corral ls: no Corral daemon is running for ${rig.home} (start one with: corral serve)\n` });
    } finally {
      await rig.cleanup();
    }
  });

  it('SIGTERM shuts down cleanly: the endpoint goes, agents in tmux keep running, and a new daemon reattaches them', async () => {
    const id = s.cli(['new', '--cli', 'faker', '--cwd', s.rig.home, '--name', 'survivor']).stdout.split(' ')[0]!;
    expect(await s.stop()).toBe(0);
    expect(s.output()).toContain('corral: shutting down; agents in tmux keep running');
    expect(fs.existsSync(path.join(s.rig.home, 'endpoint.json'))).toBe(false);
    execFileSync('tmux', ['-L', s.rig.socket, 'has-session', '-t', `=corral-${id}`]);
    s = await serveRig([], s.rig);
    const sessions = JSON.parse(s.cli(['ls', '--json']).stdout) as { id: string; state: string }[];
    expect(sessions.find((x) => x.id === id)?.state).toBe('running');
    expect(s.rig.launches().filter((l) => l.includes(id))).toHaveLength(1);
  });
});
