// Worktrees, changes and landing against real git repositories in temp folders: a worktree per
// session on a branch of its own, outside the repository; every change since its base, tracked
// or not; a merge that fast-forwards, makes a merge commit, or refuses a conflict and changes
// nothing; a removal that keeps what nobody chose to delete.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorralError } from '../contract/errors';
import { gitContext } from '../engine/git';
import { changedFiles, changesBase, fileDiff } from '../worktrees/changes';
import { whenIndexFree } from '../worktrees/git';
import { checkedOutAt, commitAll, mergeInto } from '../worktrees/landing';
import { copySetupFiles, readSetup } from '../worktrees/setup';
import { addWorktree, removeWorktree, repoOf, worktreesOf, worktreeState } from '../worktrees/worktrees';

const ENV = { PATH: process.env.PATH, HOME: os.tmpdir(), GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1' };

let root: string;
let project: string;
let home: string;

const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...ENV, GIT_CONFIG_GLOBAL: '/dev/null' }, encoding: 'utf8' }).trim();
const write = (folder: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
  fs.writeFileSync(path.join(folder, file), text);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-worktrees-'));
  project = path.join(root, 'my project');
  home = path.join(root, 'corral', 'worktrees');
  fs.mkdirSync(project);
  sh(project, 'init', '--quiet', '--initial-branch=main');
  write(project, 'README.md', 'hello\n');
  write(project, 'src/app.js', 'one\ntwo\nthree\n');
  write(project, '.gitignore', '.env\nnode_modules/\n');
  sh(project, 'add', '.');
  sh(project, 'commit', '--quiet', '-m', 'first');
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const env = { ...ENV, GIT_CONFIG_GLOBAL: '/dev/null' } as NodeJS.ProcessEnv;

describe('a worktree per session', () => {
  it('is made outside the repository, on a new branch named after the session, from HEAD', async () => {
    const repo = await repoOf(path.join(project, 'src'), env);
    expect(repo.root).toBe(project);
    const tree = await addWorktree({ repo, home, name: 'Fix the Login!', env });
    expect(tree.branch).toBe('corral/fix-the-login');
    expect(tree.base).toBe('main');
    expect(tree.baseCommit).toBe(sh(project, 'rev-parse', 'HEAD'));
    expect(tree.path.startsWith(worktreesOf(home, repo) + path.sep)).toBe(true);
    expect(path.basename(path.dirname(tree.path))).toMatch(/^my-project-[0-9a-f]{8}$/);
    expect(sh(tree.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('corral/fix-the-login');
    expect(fs.readFileSync(path.join(tree.path, 'src/app.js'), 'utf8')).toBe('one\ntwo\nthree\n');
    // The repository's own files are not touched.
    expect(sh(project, 'status', '--porcelain')).toBe('');
    expect(fs.readFileSync(path.join(project, '.gitignore'), 'utf8')).toBe('.env\nnode_modules/\n');
  });

  it('a second session of the same name gets a branch and a folder of its own', async () => {
    const repo = await repoOf(project, env);
    const first = await addWorktree({ repo, home, name: 'fix', env });
    const second = await addWorktree({ repo, home, name: 'fix', env });
    expect([first.branch, second.branch]).toEqual(['corral/fix', 'corral/fix-2']);
    expect(first.path).not.toBe(second.path);
  });

  it('takes a base, and refuses a base or a branch name that cannot be', async () => {
    const repo = await repoOf(project, env);
    sh(project, 'checkout', '--quiet', '-b', 'develop');
    write(project, 'dev.txt', 'dev\n');
    sh(project, 'add', '.');
    sh(project, 'commit', '--quiet', '-m', 'dev');
    sh(project, 'checkout', '--quiet', 'main');
    const tree = await addWorktree({ repo, home, name: 'x', base: 'develop', env });
    expect(tree.base).toBe('develop');
    expect(fs.existsSync(path.join(tree.path, 'dev.txt'))).toBe(true);
    await expect(addWorktree({ repo, home, name: 'y', base: 'no-such-branch', env })).rejects.toMatchObject({ code: 'bad_request', field: 'base' });
    await expect(addWorktree({ repo, home, name: 'y', branch: 'bad..name', env })).rejects.toMatchObject({ code: 'bad_request', field: 'branch' });
  });

  it('a folder outside any repository is said to be one', async () => {
    const plain = path.join(root, 'plain');
    fs.mkdirSync(plain);
    await expect(repoOf(plain, { ...env, GIT_CEILING_DIRECTORIES: root })).rejects.toMatchObject({ code: 'not_a_repository', field: 'cwd' });
  });
});

describe('the setup recipe', () => {
  it('copies the untracked files it names and says which were not there', async () => {
    write(project, '.corral/setup.toml', '[worktree]\ncopy = [".env", "config/local", ".env.missing"]\nsetup = "npm ci"\n');
    sh(project, 'add', '.corral');
    sh(project, 'commit', '--quiet', '-m', 'recipe');
    write(project, '.env', 'SECRET=1\n');
    write(project, 'config/local/a.json', '{}\n');
    const tree = await addWorktree({ repo: await repoOf(project, env), home, name: 's', env });
    const recipe = readSetup(tree.path);
    expect(recipe).toEqual({ copy: ['.env', 'config/local', '.env.missing'], setup: 'npm ci' });
    expect(copySetupFiles(project, tree.path, recipe.copy)).toEqual({ copied: ['.env', 'config/local'], missing: ['.env.missing'] });
    expect(fs.readFileSync(path.join(tree.path, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(fs.readFileSync(path.join(tree.path, 'config/local/a.json'), 'utf8')).toBe('{}\n');
  });

  it('copies nothing through a link that leads out of the repository or the worktree: the item is refused by name', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-outside-'));
    try {
      write(outside, 'secret.txt', 'TOPSECRET\n');
      // The branch has a link where the copy lands; the folder it was made from, a real file there.
      fs.symlinkSync(outside, path.join(project, 'cfg'));
      sh(project, 'add', 'cfg');
      sh(project, 'commit', '--quiet', '-m', 'a link out');
      const tree = await addWorktree({ repo: await repoOf(project, env), home, name: 'links', env });
      fs.rmSync(path.join(project, 'cfg'));
      write(project, 'cfg/authorized_keys', 'ssh-ed25519 AAAA someone\n');
      expect(() => copySetupFiles(project, tree.path, ['cfg/authorized_keys'])).toThrow(
        expect.objectContaining({ code: 'bad_request', field: 'setup', message: '.corral/setup.toml: copy: "cfg/authorized_keys" leads out of the repository through a link (its place in the worktree): nothing was made' }),
      );
      expect(fs.existsSync(path.join(outside, 'authorized_keys'))).toBe(false);
      // The other way: the folder it is made from reaches out through a link on the way.
      fs.rmSync(path.join(project, 'cfg'), { recursive: true });
      fs.symlinkSync(outside, path.join(project, 'leak'));
      expect(() => copySetupFiles(project, tree.path, ['leak/secret.txt'])).toThrow('"leak/secret.txt" leads out of the repository through a link (its copy from the folder the session was made from)');
      expect(fs.existsSync(path.join(tree.path, 'leak'))).toBe(false);
      // An item that is itself a link is copied as the link it is.
      expect(copySetupFiles(project, tree.path, ['leak'])).toEqual({ copied: ['leak'], missing: [] });
      expect(fs.readlinkSync(path.join(tree.path, 'leak'))).toBe(outside);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a bad recipe names the file, the line and what was wrong; paths may not leave the repository', () => {
    write(project, '.corral/setup.toml', '[worktree]\ncopy = [".env"\n');
    expect(() => readSetup(project)).toThrow(/^\.corral\/setup\.toml:3:\d+: /);
    write(project, '.corral/setup.toml', '[worktree]\ncopy = ["../outside"]\n');
    expect(() => readSetup(project)).toThrow('.corral/setup.toml:2: worktree.copy.0: must be a path inside the repository');
    write(project, '.corral/setup.toml', '# the recipe\n[worktree]\nsetup = "npm ci"\ncopies = []\n');
    expect(() => readSetup(project)).toThrow(/^\.corral\/setup\.toml:4: worktree: Unrecognized key/);
    write(project, '.corral/setup.toml', '[worktree]\n\n[extra]\n');
    expect(() => readSetup(project)).toThrow(/^\.corral\/setup\.toml:3: file: Unrecognized key/);
    fs.rmSync(path.join(project, '.corral'), { recursive: true });
    expect(readSetup(project)).toEqual({ copy: [], setup: null });
  });
});

describe('what a session changed', () => {
  it('lists committed, staged, unstaged, untracked, deleted and renamed files with their lines, and not the base moving on', async () => {
    const repo = await repoOf(project, env);
    const tree = await addWorktree({ repo, home, name: 'agent', env });
    // The agent commits one change...
    write(tree.path, 'src/app.js', 'one\n2\nthree\nfour\n');
    sh(tree.path, 'commit', '--quiet', '-am', 'agent work');
    // ...and leaves others.
    write(tree.path, 'src/new.js', 'a\nb\n');
    sh(tree.path, 'add', 'src/new.js');
    fs.rmSync(path.join(tree.path, 'README.md'));
    write(tree.path, 'notes.txt', 'x\ny\nz\n');
    fs.writeFileSync(path.join(tree.path, 'logo.bin'), Buffer.from([0, 1, 2, 3, 0]));
    write(tree.path, '.env', 'ignored\n');
    // Meanwhile the base moves on: not the session's change.
    write(project, 'other.txt', 'base work\n');
    sh(project, 'add', '.');
    sh(project, 'commit', '--quiet', '-m', 'base work');

    const from = await changesBase(tree.path, tree.base, env);
    expect(from).toBe(tree.baseCommit);
    expect(await changedFiles(tree.path, from, env)).toEqual([
      { path: 'README.md', kind: 'deleted', added: 0, removed: 1, binary: false },
      { path: 'logo.bin', kind: 'untracked', added: null, removed: 0, binary: true },
      { path: 'notes.txt', kind: 'untracked', added: 3, removed: 0, binary: false },
      { path: 'src/app.js', kind: 'modified', added: 2, removed: 1, binary: false },
      { path: 'src/new.js', kind: 'added', added: 2, removed: 0, binary: false },
    ]);
    const state = await worktreeState({ ...tree, repo: project }, env);
    expect(state).toEqual({ missing: false, uncommitted: 4, ahead: 1, behind: 1, detached: 0, detachedNewest: null });
  });

  it("gives each file's diff, a new file's too, and refuses a path with no changes", async () => {
    const tree = await addWorktree({ repo: await repoOf(project, env), home, name: 'agent', env });
    write(tree.path, 'src/app.js', 'one\nTWO\nthree\n');
    write(tree.path, 'fresh.md', 'brand new\n');
    const from = await changesBase(tree.path, tree.base, env);
    const modified = await fileDiff(tree.path, from, 'src/app.js', env);
    expect(modified.diff).toContain('-two\n+TWO\n');
    expect(modified.tooLarge).toBe(false);
    expect((await fileDiff(tree.path, from, 'fresh.md', env)).diff).toContain('+brand new\n');
    await expect(fileDiff(tree.path, from, 'README.md', env)).rejects.toMatchObject({ code: 'not_found', field: 'path' });
    await expect(fileDiff(tree.path, from, '../../etc/passwd', env)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a renamed file is one change, named with where it was', async () => {
    const tree = await addWorktree({ repo: await repoOf(project, env), home, name: 'agent', env });
    sh(tree.path, 'mv', 'src/app.js', 'src/main.js');
    const files = await changedFiles(tree.path, await changesBase(tree.path, tree.base, env), env);
    expect(files).toEqual([{ path: 'src/main.js', from: 'src/app.js', kind: 'renamed', added: 0, removed: 0, binary: false }]);
  });

  it("runs no command the folder's own git config names: a file-system monitor, a diff driver, a text conversion", async () => {
    const ran = path.join(root, 'ran.txt');
    const script = path.join(root, 'named-by-the-repository.sh');
    fs.writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${ran}\n`, { mode: 0o755 });
    sh(project, 'config', 'core.fsmonitor', script);
    sh(project, 'config', 'diff.named.command', script);
    sh(project, 'config', 'diff.named.textconv', script);
    write(project, '.gitattributes', '*.md diff=named\n');
    write(project, 'README.md', 'hello\nworld\n');
    const files = await changedFiles(project, await changesBase(project, null, env), env);
    expect(files.map((f) => f.path)).toEqual(['.gitattributes', 'README.md']);
    expect((await fileDiff(project, await changesBase(project, null, env), 'README.md', env)).diff).toContain('+world');
    expect(await gitContext(project, env)).toEqual({ branch: 'main', dirty: true });
    expect(fs.existsSync(ran) ? fs.readFileSync(ran, 'utf8') : '').toBe('');
  });

  it('a folder without a worktree shows what is not committed', async () => {
    write(project, 'README.md', 'hello\nworld\n');
    const files = await changedFiles(project, await changesBase(project, null, env), env);
    expect(files).toEqual([{ path: 'README.md', kind: 'modified', added: 1, removed: 0, binary: false }]);
  });
});

describe('landing a branch', () => {
  it('fast-forwards the base where it can, in the folder where it is checked out', async () => {
    const repo = await repoOf(project, env);
    const tree = await addWorktree({ repo, home, name: 'agent', env });
    write(tree.path, 'feature.txt', 'done\n');
    expect(await commitAll(tree.path, 'the feature', env)).toBe(true);
    expect(await checkedOutAt(repo, 'main', env)).toBe(project);
    const landed = await mergeInto(repo, tree.branch, 'main', env);
    expect(landed).toEqual({ how: 'fast-forward', commit: sh(tree.path, 'rev-parse', 'HEAD') });
    expect(fs.readFileSync(path.join(project, 'feature.txt'), 'utf8')).toBe('done\n');
    expect(sh(project, 'status', '--porcelain')).toBe('');
    expect(await mergeInto(repo, tree.branch, 'main', env)).toMatchObject({ how: 'up-to-date' });
    expect(await worktreeState({ ...tree, repo: project }, env)).toMatchObject({ ahead: 0, behind: 0, uncommitted: 0 });
  });

  it('makes a merge commit when the base moved on', async () => {
    const repo = await repoOf(project, env);
    const tree = await addWorktree({ repo, home, name: 'agent', env });
    write(tree.path, 'feature.txt', 'done\n');
    await commitAll(tree.path, 'the feature', env);
    write(project, 'other.txt', 'base\n');
    sh(project, 'add', '.');
    sh(project, 'commit', '--quiet', '-m', 'base');
    const landed = await mergeInto(repo, tree.branch, 'main', env);
    expect(landed.how).toBe('merge-commit');
    expect(sh(project, 'log', '-1', '--format=%P').split(' ')).toHaveLength(2);
    expect(sh(project, 'log', '-1', '--format=%s')).toBe(`Merge branch '${tree.branch}' into main`);
    expect(fs.existsSync(path.join(project, 'feature.txt'))).toBe(true);
  });

  it('merges a base nobody has checked out without any folder, moving the branch only if it has not moved', async () => {
    const repo = await repoOf(project, env);
    sh(project, 'branch', 'release');
    const tree = await addWorktree({ repo, home, name: 'agent', base: 'release', env });
    write(tree.path, 'fix.txt', 'fix\n');
    await commitAll(tree.path, 'fix', env);
    sh(project, 'commit', '--quiet', '--allow-empty', '-m', 'main moves, release does not');
    expect(await checkedOutAt(repo, 'release', env)).toBeNull();
    expect(await mergeInto(repo, tree.branch, 'release', env)).toMatchObject({ how: 'fast-forward' });
    expect(sh(project, 'rev-parse', 'release')).toBe(sh(tree.path, 'rev-parse', 'HEAD'));
  });

  it('reports a conflict with its files and leaves the base and every folder as they were', async () => {
    const repo = await repoOf(project, env);
    const tree = await addWorktree({ repo, home, name: 'agent', env });
    write(tree.path, 'src/app.js', 'one\nAGENT\nthree\n');
    await commitAll(tree.path, 'agent', env);
    write(project, 'src/app.js', 'one\nPERSON\nthree\n');
    sh(project, 'commit', '--quiet', '-am', 'person');
    const before = sh(project, 'rev-parse', 'HEAD');
    const refused = await mergeInto(repo, tree.branch, 'main', env).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CorralError);
    expect(refused).toMatchObject({ code: 'conflict' });
    expect((refused as Error).message).toBe(`${tree.branch} does not merge cleanly into main: a conflict in src/app.js. Nothing was changed.`);
    expect(sh(project, 'rev-parse', 'HEAD')).toBe(before);
    expect(sh(project, 'status', '--porcelain')).toBe('');
    expect(fs.existsSync(path.join(project, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(fs.readFileSync(path.join(project, 'src/app.js'), 'utf8')).toBe('one\nPERSON\nthree\n');
  });

  it("refuses to merge into a folder with changes of the person's own", async () => {
    const repo = await repoOf(project, env);
    const tree = await addWorktree({ repo, home, name: 'agent', env });
    write(tree.path, 'feature.txt', 'done\n');
    await commitAll(tree.path, 'feature', env);
    write(project, 'README.md', 'mine, not committed\n');
    await expect(mergeInto(repo, tree.branch, 'main', env)).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining(`main is checked out in ${project} with changes not committed there`) });
    expect(fs.readFileSync(path.join(project, 'README.md'), 'utf8')).toBe('mine, not committed\n');
    expect(fs.existsSync(path.join(project, 'feature.txt'))).toBe(false);
  });

  it("waits for the agent's own git: a held index lock refuses a change", async () => {
    const tree = await addWorktree({ repo: await repoOf(project, env), home, name: 'agent', env });
    const gitDir = sh(tree.path, 'rev-parse', '--absolute-git-dir');
    fs.writeFileSync(path.join(gitDir, 'index.lock'), '');
    await expect(whenIndexFree(tree.path, env)).rejects.toMatchObject({ code: 'conflict' });
    write(tree.path, 'x.txt', 'x\n');
    await expect(commitAll(tree.path, 'x', env)).rejects.toMatchObject({ code: 'conflict' });
    fs.rmSync(path.join(gitDir, 'index.lock'));
    expect(await commitAll(tree.path, 'x', env)).toBe(true);
  });
});

describe('removing a worktree', () => {
  it('keeps uncommitted work unless forced, and the branch unless asked', async () => {
    const repo = await repoOf(project, env);
    const tree = await addWorktree({ repo, home, name: 'agent', env });
    write(tree.path, 'wip.txt', 'work in progress\n');
    await expect(removeWorktree(repo, tree, { force: false, deleteBranch: false, env })).rejects.toMatchObject({ code: 'git_failed' });
    expect(fs.existsSync(path.join(tree.path, 'wip.txt'))).toBe(true);
    await removeWorktree(repo, tree, { force: true, deleteBranch: false, env });
    expect(fs.existsSync(tree.path)).toBe(false);
    expect(sh(project, 'branch', '--list', tree.branch)).toContain(tree.branch);
    expect(sh(project, 'worktree', 'list', '--porcelain')).not.toContain(tree.path);
  });

  it('a folder deleted by hand is noticed, and pruned from git on removal', async () => {
    const repo = await repoOf(project, env);
    const tree = await addWorktree({ repo, home, name: 'agent', env });
    fs.rmSync(tree.path, { recursive: true, force: true });
    expect(await worktreeState({ ...tree, repo: project }, env)).toEqual({ missing: true, uncommitted: 0, ahead: 0, behind: 0, detached: 0, detachedNewest: null });
    await removeWorktree(repo, tree, { force: false, deleteBranch: true, env });
    expect(sh(project, 'worktree', 'list', '--porcelain')).not.toContain(tree.path);
    expect(sh(project, 'branch', '--list', tree.branch)).toBe('');
  });
});
