// Sessions in worktrees of their own, through the engine, with real git repositories and fake
// agents that edit, add and delete files: made on a new branch with the recipe's files copied
// and its setup run in the session's terminal; its changes listed exactly; a comment typed into
// the agent; a merge that lands the change, or reports a conflict and leaves the base clean; a
// removal refused while it holds work; a restart that resumes in the same worktree.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TmuxBackend } from '../backends/tmuxBackend';
import type { Engine } from '../engine/engine';
import { IDLE_LOOK_MS } from '../engine/lookSchedule';
import { reviewMessage, WORKING_LOOK_MS } from '../engine/worktreeSessions';
import { countedGit } from './support/countedGit';
import { fakeCatalogue } from './support/fakeClis';
import { makeRig, type Rig } from './support/rig';
import type { Store } from '../store/store';
import { waitFor } from './support/wait';

const GIT_ENV = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/** An agent that changes its folder as soon as it starts: one file edited, one added, one deleted. */
const EDITOR = `#!/bin/bash
echo "PWD $(pwd)"
printf 'one\\nTWO\\nthree\\n' > src/app.js
echo new > added.txt
rm -f README.md
echo EDITED
exec cat
`;

describe('sessions in worktrees of their own', () => {
  let rig: Rig;
  let engine: Engine;
  let project: string;
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
  const write = (folder: string, file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    fs.writeFileSync(path.join(folder, file), text);
  };
  const screenHas = (id: string, text: string) => async () => (await engine.screen({ id, lines: 200 })).text.includes(text);

  beforeEach(async () => {
    rig = await makeRig();
    Object.assign(rig.env, GIT_ENV);
    rig.fake('editor', EDITOR);
    rig.writeCatalogue(fakeCatalogue(rig, ['faker']) + '\n[cli.editor]\ncommand = "editor"\n');
    project = path.join(rig.root, 'project');
    fs.mkdirSync(project);
    git(project, 'init', '--quiet', '--initial-branch=main');
    write(project, 'README.md', 'hello\n');
    write(project, 'src/app.js', 'one\ntwo\nthree\n');
    write(project, '.gitignore', '.env\n');
    write(project, '.corral/setup.toml', '[worktree]\ncopy = [".env"]\nsetup = "echo installing; echo done > setup.log"\n');
    git(project, 'add', '.');
    git(project, 'commit', '--quiet', '-m', 'first');
    write(project, '.env', 'TOKEN=local\n');
    engine = await rig.open({ backend: 'tmux', gitIntervalMs: 3_600_000 });
    // The person allowed this repository's setup before (the test below asks it first).
    (engine as unknown as { rt: { store: Store } }).rt.store.allowSetup(fs.realpathSync(project), 'echo installing; echo done > setup.log', 0);
  });
  afterEach(async () => {
    await rig.cleanup();
  });

  it("runs a branch's setup command only once it is allowed for its repository: refused with nothing made, then run and remembered, or skipped", async () => {
    write(project, '.corral/setup.toml', '[worktree]\nsetup = "echo from the branch > ran.txt"\n');
    git(project, 'commit', '--quiet', '-am', 'another setup');
    const worktrees = () => git(project, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree ')).length;
    const branches = () => git(project, 'branch', '--list').split('\n').length;
    const before = { worktrees: worktrees(), branches: branches(), sessions: (await engine.listSessions()).sessions.length };
    await expect(engine.createSession({ cli: 'faker', cwd: project, name: 'asked', worktree: {} })).rejects.toMatchObject({
      code: 'conflict',
      field: 'setup',
      message: `this branch's .corral/setup.toml runs \`echo from the branch > ran.txt\` before the agent starts, and you have not allowed that command for ${fs.realpathSync(project)}: run it (setup "run", remembered for this repository) or make the worktree without it (setup "skip")`,
    });
    expect({ worktrees: worktrees(), branches: branches(), sessions: (await engine.listSessions()).sessions.length }).toEqual(before);
    // Made without it: nothing runs before the agent.
    const skipped = await engine.createSession({ cli: 'faker', cwd: project, name: 'skipped', worktree: { setup: 'skip' } });
    await waitFor(screenHas(skipped.id, 'FRESH START'), 'the agent');
    expect(fs.existsSync(path.join(skipped.worktree!.path, 'ran.txt'))).toBe(false);
    expect(skipped.worktree?.settingUp).toBe(false);
    // Run: then it is the repository's allowed command, for the next worktree too.
    const ran = await engine.createSession({ cli: 'faker', cwd: project, name: 'ran', worktree: { setup: 'run' } });
    await waitFor(screenHas(ran.id, 'FRESH START'), 'the agent, after the setup');
    expect(fs.readFileSync(path.join(ran.worktree!.path, 'ran.txt'), 'utf8')).toBe('from the branch\n');
    const again = await engine.createSession({ cli: 'faker', cwd: project, name: 'again', worktree: {} });
    await waitFor(screenHas(again.id, 'FRESH START'), 'the agent, after the setup');
    expect(fs.existsSync(path.join(again.worktree!.path, 'ran.txt'))).toBe(true);
    // Another command is asked about again.
    write(project, '.corral/setup.toml', '[worktree]\nsetup = "echo changed > ran.txt"\n');
    git(project, 'commit', '--quiet', '-am', 'a changed setup');
    await expect(engine.createSession({ cli: 'faker', cwd: project, name: 'changed', worktree: {} })).rejects.toMatchObject({ code: 'conflict', field: 'setup' });
  });

  it('runs the agent in a new worktree with the recipe done, and lists exactly what it changed', async () => {
    const session = await engine.createSession({ cli: 'editor', cwd: project, name: 'Edit things', worktree: {} });
    expect(session.worktree).toMatchObject({ branch: 'corral/edit-things', base: 'main', missing: false });
    const tree = session.worktree!.path;
    expect(session.cwd).toBe(tree);
    expect(tree.startsWith(path.join(rig.home, 'worktrees') + path.sep)).toBe(true);
    expect(fs.readFileSync(path.join(tree, '.env'), 'utf8')).toBe('TOKEN=local\n');
    await waitFor(screenHas(session.id, 'EDITED'), 'the agent to edit');
    const screen = (await engine.screen({ id: session.id, lines: 50 })).text;
    // The setup ran first, in the session's own terminal, then the agent, in the worktree.
    expect(screen.indexOf('corral: setting up this worktree: echo installing')).toBeLessThan(screen.indexOf('installing\n'));
    expect(screen).toContain('corral: setup done');
    expect(screen).toContain(`PWD ${tree}`);
    expect((await engine.getSession({ id: session.id })).worktree?.settingUp).toBe(false);
    // The person's own folder is untouched.
    expect(git(project, 'status', '--porcelain')).toBe('');

    const changes = await engine.sessionChanges({ id: session.id });
    expect(changes).toMatchObject({ folder: tree, against: 'main', from: git(project, 'rev-parse', 'main') });
    expect(changes.files).toEqual([
      { path: 'README.md', kind: 'deleted', added: 0, removed: 1, binary: false },
      { path: 'added.txt', kind: 'untracked', added: 1, removed: 0, binary: false },
      { path: 'setup.log', kind: 'untracked', added: 1, removed: 0, binary: false },
      { path: 'src/app.js', kind: 'modified', added: 1, removed: 1, binary: false },
    ]);
    expect((await engine.sessionDiff({ id: session.id, path: 'src/app.js' })).diff).toContain('-two\n+TWO\n');
    // A key's diff would be the key: refused as its preview is, whoever asks.
    await expect(engine.sessionDiff({ id: session.id, path: '.env' })).rejects.toMatchObject({ code: 'forbidden', field: 'path', message: ".env looks like a credential file, whose content Corral never shows: see it in the session's terminal" });
    await engine.refreshWorktrees();
    expect((await engine.getSession({ id: session.id })).worktree?.state).toEqual({ ahead: 0, behind: 0, uncommitted: 4, changedFiles: 4 });
  });

  it('merges its work into the base once committed, and a conflict changes nothing', async () => {
    const session = await engine.createSession({ cli: 'editor', cwd: project, name: 'lander', worktree: {} });
    await waitFor(screenHas(session.id, 'EDITED'), 'the agent to edit');
    await expect(engine.mergeSession({ id: session.id })).rejects.toMatchObject({ code: 'conflict', field: 'message' });
    const landed = await engine.mergeSession({ id: session.id, message: 'the agent’s work' });
    expect(landed.how).toBe('fast-forward');
    expect(fs.readFileSync(path.join(project, 'src/app.js'), 'utf8')).toBe('one\nTWO\nthree\n');
    expect(fs.existsSync(path.join(project, 'README.md'))).toBe(false);
    expect((await engine.events({ id: session.id })).events.at(-1)).toMatchObject({ kind: 'merged', message: 'merged corral/lander into main (fast-forward)' });

    const second = await engine.createSession({ cli: 'editor', cwd: project, name: 'clash', worktree: {} });
    await waitFor(screenHas(second.id, 'EDITED'), 'the second agent to edit');
    // The base has the first agent's lines now: this agent changes the same line again.
    write(second.worktree!.path, 'src/app.js', 'one\nAGENT\nthree\n');
    write(project, 'src/app.js', 'one\nMINE\nthree\n');
    git(project, 'commit', '--quiet', '-am', 'the person’s own change');
    const base = git(project, 'rev-parse', 'HEAD');
    await expect(engine.mergeSession({ id: second.id, message: 'clashing work' })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('a conflict in src/app.js') });
    expect(git(project, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(project, 'status', '--porcelain')).toBe('');
  });

  it('looks at a worktree while its agent works, once after, when git says it changed, and otherwise seldom', async () => {
    // An engine on its own clock, with a git on its PATH that notes each time it runs.
    await engine.close();
    const counted = countedGit(rig.root, rig.env);
    const gitRuns = counted.runs;
    // The engine's clock starts behind the agent's output, so that it is at work for a while of it.
    let offset = -30_000;
    engine = await rig.open({ backend: 'tmux', env: counted.env, clock: { now: () => Date.now() + offset }, attentionIntervalMs: 3_600_000, gitIntervalMs: 3_600_000 });
    const session = await engine.createSession({ cli: 'faker', cwd: project, name: 'watched', worktree: {} });
    const tree = session.worktree!.path;
    const state = async () => (await engine.getSession({ id: session.id })).worktree?.state;
    await waitFor(screenHas(session.id, 'FRESH START'), 'the agent');
    await engine.watchAttention();
    expect((await engine.getSession({ id: session.id })).activity).toBe('working');
    await engine.refreshWorktrees();
    // The setup's log is its one change so far.
    expect(await state()).toEqual({ ahead: 0, behind: 0, uncommitted: 1, changedFiles: 1 });

    // At work: looked at again only once WORKING_LOOK_MS has passed.
    let before = gitRuns();
    offset = -30_000 + WORKING_LOOK_MS - 5_000;
    await engine.watchAttention();
    expect((await engine.getSession({ id: session.id })).activity).toBe('working');
    await engine.refreshWorktrees();
    expect(gitRuns()).toBe(before);
    offset = -30_000 + WORKING_LOOK_MS;
    await engine.watchAttention();
    expect((await engine.getSession({ id: session.id })).activity).toBe('working');
    await engine.refreshWorktrees();
    expect(gitRuns()).toBeGreaterThan(before);

    // Quiet now: looked at once more (the state the work left), then not while nothing changed.
    offset = 10_000;
    await engine.watchAttention();
    expect((await engine.getSession({ id: session.id })).activity).toBe('idle');
    before = gitRuns();
    await engine.refreshWorktrees();
    expect(gitRuns()).toBeGreaterThan(before);
    before = gitRuns();
    await engine.refreshWorktrees();
    offset = 15_000;
    await engine.refreshWorktrees();
    expect(gitRuns()).toBe(before);

    // A commit made by hand moves its branch: looked at at the next tick.
    write(tree, 'mine.txt', 'mine\n');
    git(tree, 'add', '.');
    git(tree, 'commit', '--quiet', '-m', 'by hand');
    await engine.refreshWorktrees();
    expect(await state()).toEqual({ ahead: 1, behind: 0, uncommitted: 0, changedFiles: 2 });

    // A file edited in place by hand changes nothing git keeps: seen at the slow look…
    write(tree, 'mine.txt', 'mine, edited\n');
    before = gitRuns();
    await engine.refreshWorktrees();
    expect(gitRuns()).toBe(before);
    expect((await state())?.uncommitted).toBe(0);
    offset = 15_000 + IDLE_LOOK_MS;
    await engine.refreshWorktrees();
    expect((await state())?.uncommitted).toBe(1);

    // …or at the tick after its changes were read for review.
    // (A new file at the top would change the folder itself: one further down does not.)
    write(tree, 'src/second.txt', 'two\n');
    await engine.refreshWorktrees();
    expect((await state())?.uncommitted).toBe(1);
    expect((await engine.sessionChanges({ id: session.id })).files.map((f) => f.path)).toEqual(['mine.txt', 'setup.log', 'src/second.txt']);
    await engine.refreshWorktrees();
    expect((await state())?.uncommitted).toBe(2);
  });

  it('a comment on the diff is typed into the agent as one message naming the file and lines', async () => {
    const session = await engine.createSession({ cli: 'faker', cwd: project, name: 'reviewed', worktree: {} });
    await waitFor(screenHas(session.id, 'FRESH START'), 'the agent');
    const comments = [
      { path: 'src/app.js', startLine: 2, endLine: 2, text: 'keep this lower case' },
      { path: 'README.md', startLine: 1, endLine: 3, text: 'why\ndelete it?' },
    ];
    await engine.commentOnChanges({ id: session.id, comments });
    const message = reviewMessage(comments);
    expect(message).toBe('Review comments: (1) src/app.js line 2: keep this lower case (2) README.md lines 1-3: why delete it?');
    await waitFor(screenHas(session.id, `echo: ${message}`), 'the agent to get the comments');
  });

  it('a removal is refused while the worktree holds work, and does what was chosen', async () => {
    const session = await engine.createSession({ cli: 'editor', cwd: project, name: 'holder', worktree: {} });
    await waitFor(screenHas(session.id, 'EDITED'), 'the agent to edit');
    const tree = session.worktree!.path;
    await expect(engine.removeSession({ id: session.id, force: true })).rejects.toMatchObject({ code: 'conflict', field: 'worktree', message: expect.stringContaining('4 changes not committed') });
    expect((await engine.getSession({ id: session.id })).state).toBe('running');
    await engine.removeSession({ id: session.id, force: true, worktree: 'remove' });
    expect(fs.existsSync(tree)).toBe(false);
    // The branch stays: it was not asked to go.
    expect(git(project, 'branch', '--list', 'corral/holder')).toContain('corral/holder');

    const kept = await engine.createSession({ cli: 'editor', cwd: project, name: 'kept', worktree: {} });
    await waitFor(screenHas(kept.id, 'EDITED'), 'the agent to edit');
    await engine.removeSession({ id: kept.id, force: true, worktree: 'keep' });
    expect(fs.readFileSync(path.join(kept.worktree!.path, 'added.txt'), 'utf8')).toBe('new\n');
  });

  it('a worktree deleted by hand is reported, and its session can still be removed', async () => {
    const session = await engine.createSession({ cli: 'faker', cwd: project, name: 'lost', worktree: {} });
    await waitFor(screenHas(session.id, 'FRESH START'), 'the agent');
    await engine.stopSession({ id: session.id });
    fs.rmSync(session.worktree!.path, { recursive: true, force: true });
    await engine.refreshWorktrees();
    expect((await engine.getSession({ id: session.id })).worktree).toMatchObject({ missing: true, state: null });
    await expect(engine.startSession({ id: session.id })).rejects.toMatchObject({
      code: 'cwd_missing',
      message: `the worktree of session "lost" (${session.worktree!.path}) was deleted: remove the session (its branch ${session.worktree!.branch} stays)`,
    });
    await engine.removeSession({ id: session.id });
    expect(git(project, 'worktree', 'list', '--porcelain')).not.toContain(session.worktree!.path);
  });

  it("a branch's commits are never lost to a removal: not when its folder checked out another branch, nor was deleted by hand, nor on a detached HEAD, nor only in its HEAD's history", async () => {
    const made = async (name: string) => {
      const session = await engine.createSession({ cli: 'faker', cwd: project, name, worktree: {} });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the agent');
      await engine.stopSession({ id: session.id });
      const tree = session.worktree!.path;
      write(tree, `${name}.txt`, 'work\n');
      git(tree, 'add', '.');
      git(tree, 'commit', '--quiet', '-m', `${name}'s work`);
      return { id: session.id, tree, branch: session.worktree!.branch };
    };
    const kept = (branch: string) => git(project, 'branch', '--list', branch);

    // Its folder switched to a branch of its own: the session's branch still holds the commit.
    const switched = await made('switched');
    git(switched.tree, 'switch', '--quiet', '-c', 'elsewhere', 'main');
    await engine.refreshWorktrees();
    expect((await engine.getSession({ id: switched.id })).worktree?.state).toMatchObject({ ahead: 1, uncommitted: 0 });
    await expect(engine.removeSession({ id: switched.id, deleteBranch: true })).rejects.toMatchObject({ code: 'conflict', field: 'worktree', message: expect.stringContaining('1 commit not on main') });
    await expect(engine.removeSession({ id: switched.id, worktree: 'remove', deleteBranch: true })).rejects.toMatchObject({ code: 'conflict', field: 'deleteBranch', message: `the worktree of session "switched": its branch ${switched.branch} has 1 commit not on main, which deleting it would lose: merge it first, or keep the branch (nothing was removed)` });
    expect(fs.existsSync(switched.tree)).toBe(true);
    await engine.removeSession({ id: switched.id, worktree: 'remove' });
    expect(kept(switched.branch)).toContain(switched.branch);

    // Its folder deleted by hand: the branch is still there, and still ahead.
    const deleted = await made('deleted');
    fs.rmSync(deleted.tree, { recursive: true, force: true });
    await expect(engine.removeSession({ id: deleted.id, deleteBranch: true })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('1 commit not on main') });
    await engine.removeSession({ id: deleted.id });
    expect(kept(deleted.branch)).toContain(deleted.branch);

    // A commit on a detached HEAD: on no branch, it would go with the folder.
    const detached = await made('detached');
    git(detached.tree, 'checkout', '--quiet', '--detach');
    write(detached.tree, 'precious.txt', 'precious\n');
    git(detached.tree, 'add', '.');
    git(detached.tree, 'commit', '--quiet', '-m', 'precious');
    await expect(engine.removeSession({ id: detached.id })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('1 commit on no branch (made on a detached HEAD') });
    await expect(engine.removeSession({ id: detached.id, worktree: 'remove' })).rejects.toMatchObject({ code: 'conflict', field: 'worktree', message: expect.stringContaining('which removing it would lose') });
    expect(git(detached.tree, 'log', '-1', '--format=%s')).toBe('precious');
    await engine.removeSession({ id: detached.id, worktree: 'keep' });
    expect(fs.existsSync(detached.tree)).toBe(true);

    // A commit on a detached HEAD, then back on its branch: only its HEAD's history (its reflog,
    // in its own git folder) holds that commit, and it would go with the worktree.
    const returned = await made('returned');
    git(returned.tree, 'checkout', '--quiet', '--detach');
    write(returned.tree, 'stray.txt', 'stray\n');
    git(returned.tree, 'add', '.');
    git(returned.tree, 'commit', '--quiet', '-m', 'stray');
    const stray = git(returned.tree, 'rev-parse', 'HEAD');
    git(returned.tree, 'checkout', '--quiet', returned.branch);
    // An amend is no such commit: the branch's own history, which stays, keeps what it replaced.
    git(returned.tree, 'commit', '--quiet', '--amend', '-m', 'amended');
    const strayHeld = `1 commit on no branch (made on a detached HEAD, or on a branch since deleted; the newest ${stray.slice(0, 12)})`;
    await expect(engine.removeSession({ id: returned.id, worktree: 'remove' })).rejects.toMatchObject({ code: 'conflict', field: 'worktree', message: expect.stringContaining(strayHeld) });
    // Its folder deleted by hand: its git folder still holds the commit until git prunes it.
    fs.rmSync(returned.tree, { recursive: true, force: true });
    await expect(engine.removeSession({ id: returned.id })).rejects.toMatchObject({ code: 'conflict', field: 'worktree', message: expect.stringContaining(strayHeld) });
    expect(git(project, 'cat-file', '-t', stray)).toBe('commit');
    // Put on a branch, as the message asks: the removal goes ahead.
    git(project, 'branch', 'kept-stray', stray);
    await engine.removeSession({ id: returned.id });
    expect(git(project, 'worktree', 'list', '--porcelain')).not.toContain(returned.tree);
    expect(git(project, 'log', '-1', '--format=%s', 'kept-stray')).toBe('stray');
  });

  it('a failed setup says so in the terminal, and the next start tries it again', async () => {
    write(project, '.corral/setup.toml', '[worktree]\nsetup = "test -e ready-now || { echo not ready; exit 7; }"\n');
    git(project, 'commit', '--quiet', '-am', 'a setup that fails');
    const session = await engine.createSession({ cli: 'faker', cwd: project, name: 'setup', worktree: { setup: 'run' } });
    await waitFor(async () => (await engine.getSession({ id: session.id })).state === 'exited', 'the failed setup to end the session');
    const view = await engine.getSession({ id: session.id });
    expect(view.lastExit?.code).toBe(7);
    expect(view.worktree?.settingUp).toBe(true);
    expect((await engine.screen({ id: session.id, lines: 50 })).text).toContain('corral: the setup command failed (exit code 7): test -e ready-now');
    expect(rig.launches()).toEqual([]);
    fs.writeFileSync(path.join(session.worktree!.path, 'ready-now'), '');
    await engine.startSession({ id: session.id });
    await waitFor(screenHas(session.id, 'FRESH START'), 'the agent, after the setup');
    expect((await engine.getSession({ id: session.id })).worktree?.settingUp).toBe(false);
  });

  it('after a daemon restart, the session resumes in the same worktree', async () => {
    const session = await engine.createSession({ cli: 'faker', cwd: project, name: 'durable', worktree: {} });
    await waitFor(screenHas(session.id, 'FRESH START'), 'the agent');
    await engine.write({ id: session.id, text: 'hello', submit: true });
    await waitFor(() => fs.existsSync(path.join(rig.conversations, session.id)), 'the conversation to be saved');
    await engine.stopSession({ id: session.id });
    await engine.close();
    engine = await rig.open({ backend: 'tmux', gitIntervalMs: 3_600_000 });
    expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
    await waitFor(screenHas(session.id, `RESUMED ${session.id}`), 'the resumed conversation');
    const pane = execFileSync('tmux', ['-L', rig.socket, 'display-message', '-p', '-t', `=${TmuxBackend.sessionName(session.id)}:`, '#{pane_current_path}'], { encoding: 'utf8' }).trim();
    expect(pane).toBe(session.worktree!.path);
  });

  it('a pull request: the branch pushed and gh asked to open it; without gh, or logged out, the refusal says what to do', async () => {
    const session = await engine.createSession({ cli: 'editor', cwd: project, name: 'pr', worktree: {} });
    await waitFor(screenHas(session.id, 'EDITED'), 'the agent to edit');
    // No gh on this machine's PATH: said so, with the push to do by hand.
    await expect(engine.openPullRequest({ id: session.id, message: 'work' })).rejects.toMatchObject({
      code: 'gh_unavailable',
      message: expect.stringContaining(`gh (GitHub's command-line tool) is not installed: install it (https://cli.github.com) and run \`gh auth login\`, or push it yourself: git -C ${session.worktree!.path} push -u origin corral/pr`),
    });
    const bare = path.join(rig.root, 'origin.git');
    git(rig.root, 'init', '--quiet', '--bare', bare);
    git(project, 'remote', 'add', 'origin', bare);
    const ghLog = path.join(rig.root, 'gh.log');
    rig.fake('gh', `#!/bin/bash\necho "$*" >> '${ghLog}'\nif [ "$1 $2" = "auth status" ]; then [ -e '${rig.root}/logged-in' ]; exit $?; fi\necho "Creating pull request"\necho "https://github.com/example/project/pull/7"\n`);
    await expect(engine.openPullRequest({ id: session.id, message: 'work' })).rejects.toMatchObject({ code: 'gh_unavailable', message: expect.stringContaining('gh is not logged in: run `gh auth login`') });
    fs.writeFileSync(path.join(rig.root, 'logged-in'), '');
    await expect(engine.openPullRequest({ id: session.id })).rejects.toMatchObject({ code: 'conflict', field: 'message' });
    const made = await engine.openPullRequest({ id: session.id, title: 'Edit things', body: 'As asked.', message: 'the agent’s work' });
    expect(made).toEqual({ url: 'https://github.com/example/project/pull/7', remote: 'origin' });
    expect(git(bare, 'rev-parse', 'corral/pr')).toBe(git(session.worktree!.path, 'rev-parse', 'HEAD'));
    expect(fs.readFileSync(ghLog, 'utf8').split('\n').at(-2)).toBe('pr create --head corral/pr --base main --title Edit things --body As asked.');
    expect((await engine.events({ id: session.id })).events.at(-1)).toMatchObject({ kind: 'pull-request' });
  });

  it('a folder outside a repository cannot have a worktree, and nothing is made', async () => {
    const plain = path.join(rig.root, 'plain');
    fs.mkdirSync(plain);
    await expect(engine.createSession({ cli: 'faker', cwd: plain, worktree: {} })).rejects.toMatchObject({ code: 'not_a_repository', field: 'cwd' });
    expect((await engine.listSessions()).sessions).toEqual([]);
  });
});
