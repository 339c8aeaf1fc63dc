import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { catalogueSchemas, cliView, expandTemplate, loadCatalogue, plainDefaults, plainEntry, resolveCommand } from '../catalogue/catalogue';
import { SHIPPED_CATALOGUE } from '../engine/engine';
import { expandPath, findKeyInFiles } from '../catalogue/keyFiles';
import { makeRig } from './support/rig';
import { waitFor } from './support/wait';

let dir: string;
let bin: string;
const user = () => path.join(dir, 'clis.toml');
const load = (toml?: string) => {
  if (toml !== undefined) fs.writeFileSync(user(), toml);
  return loadCatalogue({ shippedFile: SHIPPED_CATALOGUE, userFile: user(), pathEnv: `${bin}:/usr/bin:/bin` });
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-cat-'));
  bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const name of ['claude', 'codex']) fs.writeFileSync(path.join(bin, name), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'not-executable'), '#!/bin/sh\n', { mode: 0o644 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the shipped catalogue', () => {
  it('loads without problems and has claude, codex, gemini, qwen, opencode, aider and shell', () => {
    const catalogue = load();
    expect(catalogue.problems).toEqual([]);
    expect([...catalogue.clis.keys()]).toEqual(['claude', 'codex', 'gemini', 'qwen', 'opencode', 'aider', 'shell']);
    // How each knows a dead key: where it keeps conversations, and its own words for one it cannot find.
    expect(catalogue.clis.get('claude')!.conversation).toBe('${CLAUDE_CONFIG_DIR:-~/.claude}/projects/*/{cli_session_id}.jsonl');
    expect(catalogue.clis.get('qwen')!.conversation).toBe('~/.qwen/projects/*/chats/{cli_session_id}.jsonl');
    expect(catalogue.clis.get('opencode')!.sessionsDb).toMatchObject({ table: 'session', id: 'id', folder: 'directory', created: 'time_created' });
    for (const name of ['claude', 'codex', 'gemini', 'qwen', 'opencode']) expect(catalogue.clis.get(name)!.deadKey, name).not.toBeNull();
    const claude = catalogue.clis.get('claude')!;
    expect(claude.args).toEqual(['--session-id', '{id}']);
    expect(claude.resume).toEqual(['--resume', '{cli_session_id}']);
    // Boxed, and asked for the renderer that keeps its history in the terminal.
    expect(claude.boxed).toBe(true);
    expect(claude.env).toEqual({ CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN: '1', CLAUDE_CODE_DISABLE_MOUSE: '1' });
    expect(catalogue.clis.get('codex')!.resume).toEqual(['resume', '{cli_session_id}']);
    expect(catalogue.clis.get('codex')!.keyFromOutput?.exec('To continue this session, run codex resume 019a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8.')?.[1]).toBe(
      '019a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8',
    );
    expect(catalogue.clis.get('shell')!.resume).toBeNull();
    expect(catalogue.clis.get('shell')!.idleTimeoutMs).toBeNull();
    expect(claude.idleTimeoutMs).toBeUndefined();
    expect(catalogue.defaults).toEqual({ idleTimeoutMs: 8 * 3_600_000, resumeGraceMs: 15_000, worktrees: null });
  });

  it("answers each agent's approval prompt with its own keys, and a shell not at all", () => {
    const catalogue = load();
    const answers = (name: string) => catalogue.clis.get(name)!.answers;
    expect(answers('claude')).toEqual({ approve: '1', deny: '\u001b' });
    expect(answers('codex')).toEqual({ approve: 'y', deny: '\u001b' });
    expect(answers('gemini')).toEqual({ approve: '\r', deny: '\u001b' });
    expect(answers('aider')).toEqual({ approve: 'y\r', deny: 'n\r' });
    expect(answers('shell')).toBeNull();
    // The client's list of CLIs carries them.
    expect(cliView(catalogue.clis.get('claude')!).answers).toEqual({ approve: '1', deny: '\u001b' });
    expect(cliView(catalogue.clis.get('shell')!).answers).toBeNull();
  });

  it('installed means the command resolves to an executable, and the absolute path is what runs', () => {
    const catalogue = load();
    expect(catalogue.clis.get('claude')!.path).toBe(path.join(bin, 'claude'));
    expect(catalogue.clis.get('gemini')!.path).toBeNull();
    expect(catalogue.clis.get('shell')!.path).toMatch(/^\//);
    expect(resolveCommand('not-executable', bin)).toBeNull();
    expect(resolveCommand(path.join(bin, 'codex'), '')).toBe(path.join(bin, 'codex'));
    expect(resolveCommand('./codex', bin)).toBeNull();
    // A folder of that name is not the command; nor is anything under a PATH entry that is a file.
    fs.mkdirSync(path.join(bin, 'a-folder'), { recursive: true });
    expect(resolveCommand('a-folder', bin)).toBeNull();
    expect(resolveCommand('claude', `${path.join(bin, 'codex')}${path.delimiter}${bin}`)).toBe(path.join(bin, 'claude'));
  });

  it("finds Codex's id in its rollout file, under $CODEX_HOME or else ~/.codex, for the session's folder only", async () => {
    const codex = load().clis.get('codex')!.keyFromFile!;
    const id = '019a2b3c-4d5e-7f70-8192-a3b4c5d6e7f8';
    // The first line of a rollout file as Codex writes it (compact JSON, session_meta first).
    const line = (cwd: string) =>
      `{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":{"id":"${id}","timestamp":"2026-11-30T10:00:00.000Z","cwd":${JSON.stringify(cwd)},"originator":"codex_cli_rs","cli_version":"0.120.0"}}\n`;
    const home = path.join(dir, 'home');
    const day = path.join(home, '.codex', 'sessions', '2026', '11', '30');
    fs.mkdirSync(day, { recursive: true });
    fs.writeFileSync(path.join(day, `rollout-2026-11-30T10-00-00-${id}.jsonl`), line('/work/my "app"'));
    const search = { cwd: '/work/my "app"', env: { HOME: home }, since: 0, taken: new Set<string>() };
    expect(await findKeyInFiles(codex, search)).toBe(id);
    expect(await findKeyInFiles(codex, { ...search, cwd: '/work/other' })).toBeNull();
    // Codex writes the folder as getcwd() has it: through a symlink, the real one.
    fs.mkdirSync(path.join(dir, 'real-app'));
    fs.symlinkSync(path.join(dir, 'real-app'), path.join(dir, 'linked-app'));
    fs.writeFileSync(path.join(day, `rollout-2026-11-30T11-00-00-${id}.jsonl`), line(path.join(dir, 'real-app')));
    expect(await findKeyInFiles(codex, { ...search, cwd: path.join(dir, 'linked-app') })).toBe(id);
    expect(await findKeyInFiles(codex, { ...search, taken: new Set([id]) })).toBeNull();
    expect(await findKeyInFiles(codex, { ...search, owns: () => false })).toBeNull();
    expect(await findKeyInFiles(codex, { ...search, since: Date.now() + 60_000 })).toBeNull();
    expect(await findKeyInFiles(codex, { ...search, env: { HOME: home, CODEX_HOME: path.join(dir, 'elsewhere') } })).toBeNull();
    expect(expandPath('${CODEX_HOME:-~/.codex}/x', { HOME: '/h' })).toBe('/h/.codex/x');
    expect(expandPath('${CODEX_HOME:-~/.codex}/x', { HOME: '/h', CODEX_HOME: '/c' })).toBe('/c/x');
    expect(expandPath('$XDG_DATA_HOME/y', { XDG_DATA_HOME: '/d' })).toBe('/d/y');
  });
});

describe("the user's catalogue", () => {
  it('is merged over the shipped one field by field, and adds its own CLIs', () => {
    const catalogue = load(`
[defaults]
resume_grace = "2s"

[cli.claude]
command = "/opt/claude/bin/claude"
env = { CLAUDE_CODE_DISABLE_MOUSE = "1" }

[cli.mine]
label = "Mine"
command = "codex"
args = ["--name", "{name}", "--in", "{cwd}"]
resume = []
`);
    expect(catalogue.problems).toEqual([]);
    const claude = catalogue.clis.get('claude')!;
    expect(claude.command).toBe('/opt/claude/bin/claude');
    expect(claude.args).toEqual(['--session-id', '{id}']); // kept from the shipped entry
    expect(claude.env).toEqual({ CLAUDE_CODE_DISABLE_MOUSE: '1' });
    expect(claude.path).toBeNull();
    expect(catalogue.defaults.resumeGraceMs).toBe(2_000);
    const mine = catalogue.clis.get('mine')!;
    expect(mine.resume).toBeNull();
    expect(expandTemplate(mine.args, { name: 'n', cwd: '/w' })).toEqual(['--name', 'n', '--in', '/w']);
  });

  it('a TOML syntax error names the file, line and column, and the shipped catalogue still loads', () => {
    const catalogue = load('[cli.mine]\ncommand = "x"\nargs = ["a",\n  oops\n');
    expect(catalogue.problems).toEqual([
      { file: user(), line: 4, column: 3, message: `${user()}:4:3: invalid value` },
    ]);
    expect(catalogue.clis.has('claude')).toBe(true);
    expect(catalogue.clis.has('mine')).toBe(false);
  });

  it('a bad field names the CLI and the field; the other entries still load', () => {
    const catalogue = load(`
[cli.broken]
command = "codex"
color = "red"
boxed = "yes"

[cli.fine]
command = "codex"
`);
    expect(catalogue.problems.map((p) => p.message)).toEqual([
      `${user()}:4: cli "broken", field color: must be a colour like "#d97757"`,
      `${user()}:5: cli "broken", field boxed: Invalid input: expected boolean, received string`,
    ]);
    expect(catalogue.problems[0]).toMatchObject({ cli: 'broken', field: 'color' });
    expect(catalogue.clis.has('broken')).toBe(false);
    expect(catalogue.clis.has('fine')).toBe(true);
  });

  it('an unknown placeholder is an error that names it and the ones that exist', () => {
    const catalogue = load(`
[cli.a]
command = "codex"
args = ["--x", "{session}"]

[cli.b]
command = "codex"
args = ["{cli_session_id}"]
`);
    expect(catalogue.problems.map((p) => p.message)).toEqual([
      `${user()}:4: cli "a", field args[1]: unknown placeholder {session} (known: {id}, {name}, {cwd})`,
      `${user()}:8: cli "b", field args[0]: {cli_session_id} is known only when resuming; use it in resume`,
    ]);
    expect(catalogue.clis.size).toBe(7);
  });

  it("every problem of an entry is said at once: a placeholder's beside an unknown field's", () => {
    const catalogue = load(`
[cli.a]
command = "codex"
resum = ["x"]
args = ["--x", "{session}"]
`);
    expect(catalogue.problems.map((p) => p.message)).toEqual([
      `${user()}:4: cli "a", field resum: unknown field`,
      `${user()}:5: cli "a", field args[1]: unknown placeholder {session} (known: {id}, {name}, {cwd})`,
    ]);
    expect(catalogue.clis.has('a')).toBe(false);
  });

  it('an unknown field, a missing command, a bad regex and a bad duration are each reported', () => {
    const catalogue = load(`
[cli.typo]
command = "codex"
resum = ["x"]

[cli.nocommand]
label = "No command"

[cli.badregex]
command = "codex"
attention = ["(unclosed"]
key_from_output = "no group here"

[cli.badtime]
command = "codex"
idle_timeout = "soon"

[cli.badanswers]
command = "codex"
answers = { approve = "", deny = "a whole sentence", maybe = "m" }
`);
    const messages = catalogue.problems.map((p) => p.message);
    expect(messages).toContain(`${user()}:4: cli "typo", field resum: unknown field`);
    expect(messages).toContain(`${user()}:6: cli "nocommand", field command: Invalid input: expected string, received undefined`);
    expect(messages.some((m) => m.startsWith(`${user()}:11: cli "badregex", field attention[0]: not a valid regular expression:`))).toBe(true);
    expect(messages).toContain(`${user()}:12: cli "badregex", field key_from_output: needs a capture group for the id`);
    expect(messages).toContain(`${user()}:16: cli "badtime", field idle_timeout: not a duration: "soon" (use e.g. "5s", "8h", "off")`);
    expect(messages).toContain(`${user()}:20: cli "badanswers", field answers.approve: must not be empty`);
    expect(messages).toContain(`${user()}:20: cli "badanswers", field answers.deny: is one key (at most 8 characters)`);
    expect(messages).toContain(`${user()}:20: cli "badanswers", field answers.maybe: unknown field`);
  });

  it('every problem says the line it is on: in the defaults, a top-level key, a CLI name, a quoted table', () => {
    const catalogue = load(`# mine
[defaults]
idle_timeout = "soon"

[clis.typo]
command = "x"

[cli."bad name"]
command = "x"

[cli."quoted"]  # a comment
command = "codex"
  colour = "red"
`);
    expect(catalogue.problems.map((p) => [p.line, p.cli ?? p.field])).toEqual([
      [5, 'clis'],
      [8, 'bad name'],
      [3, 'defaults.idle_timeout'],
      [13, 'quoted'],
    ]);
    for (const problem of catalogue.problems) expect(problem.message.startsWith(`${user()}:${problem.line}: `), problem.message).toBe(true);
  });

  it('an entry is taken without zod only as zod takes it: every shipped entry, and none with a field wrong', () => {
    const shipped = parse(fs.readFileSync(SHIPPED_CATALOGUE, 'utf8')) as { defaults: Record<string, unknown>; cli: Record<string, Record<string, unknown>> };
    for (const raw of Object.values(shipped.cli)) expect(plainEntry(raw)).toEqual(catalogueSchemas().cli.parse(raw));
    expect(plainDefaults(shipped.defaults)).toEqual(catalogueSchemas().defaults.parse(shipped.defaults));
    const good = { command: 'x', args: ['-l'], resume: ['r', '{cli_session_id}'], label: 'X', color: '#A0b1c2', env: { A_1: 'v' }, boxed: true, attention: ['a|b'], ready: '\\$ ', answers: { approve: 'y\r', deny: '\u001b' }, key_from_output: 'id (\\w+)', key_from_file: { glob: '$HOME/*.log', pattern: '"cwd":"{cwd}".*"id":"(\\w+)"' }, dead_key: 'no {cli_session_id}', conversation: '~/c/{cli_session_id}.jsonl', sessions_db: { path: '/db', table: 't', id: 'i', folder: 'f', created: 'c' }, idle_timeout: 90, resume_grace: '1m30s' };
    expect(plainEntry(good)).toEqual(catalogueSchemas().cli.parse(good));
    expect(plainEntry({ command: 'x' })).toEqual(catalogueSchemas().cli.parse({ command: 'x' }));
    const wrong: Record<string, unknown>[] = [
      {}, { command: '' }, { command: 1 }, { command: 'x', label: '' }, { command: 'x', args: 'a' }, { command: 'x', args: [1] }, { command: 'x', resume: ['a', 2] },
      { command: 'x', color: 'red' }, { command: 'x', color: '#12345' }, { command: 'x', env: { '1A': 'v' } }, { command: 'x', env: { A: 1 } }, { command: 'x', env: [] },
      { command: 'x', boxed: 'yes' }, { command: 'x', attention: ['(unclosed'] }, { command: 'x', attention: 'a' }, { command: 'x', ready: '[' },
      { command: 'x', answers: { approve: '', deny: 'n' } }, { command: 'x', answers: { approve: 'y', deny: '123456789' } }, { command: 'x', answers: { approve: 'y' } }, { command: 'x', answers: { approve: 'y', deny: 'n', maybe: 'm' } },
      { command: 'x', key_from_output: 'no group' }, { command: 'x', key_from_output: '(' }, { command: 'x', key_from_file: { glob: 'rel/*', pattern: '(x)' } }, { command: 'x', key_from_file: { glob: '/a', pattern: 'x' } }, { command: 'x', key_from_file: { glob: '/a' } },
      { command: 'x', dead_key: '(' }, { command: 'x', conversation: '/a/b.jsonl' }, { command: 'x', conversation: 'a/{cli_session_id}' },
      { command: 'x', sessions_db: { path: '/db', table: 't t', id: 'i', folder: 'f', created: 'c' } }, { command: 'x', sessions_db: { path: '/db', table: 't', id: 'i', folder: 'f' } },
      { command: 'x', idle_timeout: 'soon' }, { command: 'x', resume_grace: -1 }, { command: 'x', idle_timeout: true }, { command: 'x', resum: ['x'] },
    ];
    for (const raw of wrong) {
      expect(plainEntry(raw), JSON.stringify(raw)).toBeNull();
      expect(catalogueSchemas().cli.safeParse(raw).success, JSON.stringify(raw)).toBe(false);
    }
    for (const raw of [{ idle_timeout: 'soon' }, { worktrees: 'rel' }, { worktree: '/w' }]) {
      expect(plainDefaults(raw), JSON.stringify(raw)).toBeNull();
      expect(catalogueSchemas().defaults.safeParse(raw).success, JSON.stringify(raw)).toBe(false);
    }
  });

  it("a user entry that breaks a shipped CLI keeps the shipped one and says so", () => {
    const catalogue = load('[cli.claude]\nargs = "--not-a-list"\n');
    expect(catalogue.problems.map((p) => p.message)).toEqual([
      `${user()}:2: cli "claude", field args: Invalid input: expected array, received string (using the shipped entry instead)`,
    ]);
    expect(catalogue.clis.get('claude')!.args).toEqual(['--session-id', '{id}']);
  });

  it('a missing user file is fine; an unreadable one is a problem', () => {
    expect(load().problems).toEqual([]);
    fs.mkdirSync(user());
    expect(load().problems[0]?.message).toBe(`${user()}: cannot read the file: EISDIR: illegal operation on a directory, read`);
  });
});

describe('a running engine', () => {
  it("reads the user's clis.toml again when it changes, and says what is wrong in it, without a restart", async () => {
    const rig = await makeRig();
    try {
      const engine = await rig.open({ catalogueIntervalMs: 20 });
      const names = async () => (await engine.listClis()).clis.map((c) => c.name);
      expect(await names()).not.toContain('added');
      const file = path.join(rig.home, 'clis.toml');
      fs.appendFileSync(file, '\n[cli.added]\nlabel = "Added Later"\ncommand = "faker"\n');
      await waitFor(async () => (await names()).includes('added'), 'the new entry to be read');
      expect((await engine.listClis()).problems).toEqual([]);
      const good = fs.readFileSync(file, 'utf8');
      fs.appendFileSync(file, '\n[cli.broken\n');
      await waitFor(async () => (await engine.listClis()).problems.length > 0, 'the broken file to be reported');
      expect((await engine.listClis()).problems[0]).toMatchObject({ file, line: expect.any(Number) });
      // The shipped catalogue still stands, and so does what the file held before the edit broke it.
      expect(await names()).toContain('claude');
      expect((await engine.listClis()).clis.find((c) => c.name === 'added')).toMatchObject({ label: 'Added Later' });
      expect((await engine.listClis()).problems.map((p) => p.message)).toContain(`${file}: cli "added" is kept as it was last read, until the problem above is mended`);
      // An entry an edit makes wrong keeps its last good definition; one removed is gone.
      fs.writeFileSync(file, good.replace('label = "Added Later"', 'label = "Added Later"\ncolour = "red"'));
      await waitFor(async () => (await engine.listClis()).problems.some((p) => p.field === 'colour'), 'the wrong field to be reported');
      expect((await engine.listClis()).clis.find((c) => c.name === 'added')).toMatchObject({ label: 'Added Later' });
      fs.writeFileSync(file, good.replace(/\[cli\.added\][^]*$/, ''));
      await waitFor(async () => !(await names()).includes('added'), 'the removed entry to go');
      expect((await engine.listClis()).problems).toEqual([]);
    } finally {
      await rig.cleanup();
    }
  });
});
