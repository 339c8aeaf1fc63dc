// Previews of printed paths, on real files in a throwaway folder: what they show, and the fence
// (the session's folder and the temp folder, checked on what was opened; system folders,
// Corral's home and credentials refused anywhere). Swaps happen in the open's test seams.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCredential, type Fence } from '../files/fence';
import { cleanPath, previewPath, savePath, TEXT_CAP } from '../files/files';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108020000009077' + '53de0000000c49444154789c636060000000040001f61738550000000049454e44ae426082',
  'hex',
);

let root: string;
let work: string;
let outside: string;
let scratch: string;
let home: string;
let fence: Fence;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'corral-files-')));
  work = path.join(root, 'work');
  outside = path.join(root, 'outside');
  scratch = path.join(root, 'scratch');
  home = path.join(root, 'home');
  for (const dir of [work, outside, scratch, home, path.join(work, 'sub')]) fs.mkdirSync(dir);
  fs.writeFileSync(path.join(work, 'note.md'), 'hello\n');
  fs.writeFileSync(path.join(work, 'shot.png'), PNG);
  fs.writeFileSync(path.join(work, 'bin.dat'), Buffer.from([0, 1, 2]));
  fs.writeFileSync(path.join(work, 'sub', 'child.md'), 'nested\n');
  fs.writeFileSync(path.join(work, 'big.txt'), 'x'.repeat(TEXT_CAP + 8));
  fs.writeFileSync(path.join(outside, 'private.txt'), 'out\n');
  fs.writeFileSync(path.join(scratch, 'run.log'), 'scratch\n');
  // The temp folder stand-in is `scratch`: the real temp folder holds these fixtures too. The
  // person's home and Corral's are throwaway folders: nothing here reads the real ones.
  fence = { cwd: work, shared: [scratch], corralHome: path.join(root, 'corral'), worktrees: path.join(root, 'corral', 'worktrees'), userHome: home };
});
afterEach(() => {
  // A reader or writer stuck on a test's FIFO (a regression) is let go, so it fails, not hangs.
  for (const file of fifos.splice(0)) if (fs.existsSync(file)) fs.closeSync(fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_NONBLOCK));
  fs.rmSync(root, { recursive: true, force: true });
});

const fifos: string[] = [];
function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
  fifos.push(file);
}

describe('a printed path', () => {
  it('is cleaned of what surrounds it', () => {
    expect(cleanPath('src/app.js:42:7')).toEqual({ path: 'src/app.js', line: 42 });
    expect(cleanPath('docs/foo.md.')).toEqual({ path: 'docs/foo.md', line: null });
    expect(cleanPath('(./x.ts:3)')).toEqual({ path: './x.ts', line: 3 });
    expect(cleanPath('src/a.cs(12,5)')).toEqual({ path: 'src/a.cs', line: 12 });
    expect(cleanPath('.')).toEqual({ path: '.', line: null });
    expect(cleanPath('..')).toEqual({ path: '..', line: null });
  });

  it('shows text, with the line it pointed at', async () => {
    expect(await previewPath(fence, 'note.md')).toMatchObject({ kind: 'text', text: 'hello\n', path: path.join(work, 'note.md'), truncated: false, line: null });
    expect(await previewPath(fence, 'note.md:12')).toMatchObject({ kind: 'text', line: 12 });
    expect(await previewPath(fence, `${work}/sub/child.md`)).toMatchObject({ kind: 'text', text: 'nested\n' });
  });

  it('shows an image by its bytes, calls a NUL binary, and caps long text', async () => {
    expect(await previewPath(fence, 'shot.png')).toMatchObject({ kind: 'image', mime: 'image/png', base64: PNG.toString('base64') });
    expect(await previewPath(fence, 'bin.dat')).toMatchObject({ kind: 'binary', size: 3 });
    const big = await previewPath(fence, 'big.txt');
    expect(big.kind === 'text' && big.truncated && big.text.length === TEXT_CAP).toBe(true);
  });

  it('lists a folder, climbing no higher than the fence', async () => {
    const sub = await previewPath(fence, 'sub');
    if (sub.kind !== 'folder') throw new Error(`expected a folder, got ${sub.kind}`);
    expect(sub.entries.map((e) => e.name)).toEqual(['..', 'child.md']);
    expect(sub.entries.every((e) => e.path.startsWith(work))).toBe(true);
    const top = await previewPath(fence, '.');
    if (top.kind !== 'folder') throw new Error(`expected a folder, got ${top.kind}`);
    expect(top.entries.map((e) => e.name)).not.toContain('..');
    expect(top.entries.map((e) => e.name)).toContain('note.md');
    expect(top.entries[0]).toMatchObject({ name: 'sub', folder: true });
  });

  it('says missing for what is not there', async () => {
    expect(await previewPath(fence, 'nope.md')).toEqual({ kind: 'missing', path: path.join(work, 'nope.md') });
  });

  it('reads the temp folder from any session', async () => {
    expect(await previewPath({ ...fence, cwd: path.join(work, 'sub') }, `${scratch}/run.log`)).toMatchObject({ kind: 'text', text: 'scratch\n' });
  });

  it('refuses .. out of the folder, absolute paths elsewhere, and symlinks that lead out', async () => {
    expect(await previewPath({ ...fence, cwd: path.join(work, 'sub') }, '../note.md')).toMatchObject({ kind: 'refused' });
    expect(await previewPath(fence, `${outside}/private.txt`)).toMatchObject({ kind: 'refused', reason: "outside the session's folder and the temp folder" });
    expect(await previewPath(fence, '/etc/hostname')).toMatchObject({ kind: 'refused' });
    fs.symlinkSync(path.join(outside, 'private.txt'), path.join(work, 'escape'));
    expect(await previewPath(fence, 'escape')).toMatchObject({ kind: 'refused', reason: "a link that leads outside the session's folder and the temp folder" });
    // A link that stays inside is fine.
    fs.symlinkSync(path.join(work, 'note.md'), path.join(work, 'alias.md'));
    expect(await previewPath(fence, 'alias.md')).toMatchObject({ kind: 'text', text: 'hello\n' });
  });

  it.each(['.env', '.env.local', 'server.pem', 'tls.key', 'id_rsa', 'id_ed25519.pub', '.npmrc', '.netrc', '.bw-session', 'credentials.json', '.ssh/config'])(
    'refuses the credential file %s, even inside the folder',
    async (name) => {
      fs.mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
      fs.writeFileSync(path.join(work, name), 'SECRET=1\n');
      expect(await previewPath(fence, name)).toMatchObject({ kind: 'refused', reason: 'this looks like a credential file, which Corral never opens' });
    },
  );

  it('refuses a harmless name that links to a credential', async () => {
    fs.writeFileSync(path.join(work, '.env'), 'SECRET=1\n');
    fs.symlinkSync(path.join(work, '.env'), path.join(work, 'settings.txt'));
    expect(await previewPath(fence, 'settings.txt')).toMatchObject({ kind: 'refused', reason: 'this leads to a credential file, which Corral never opens' });
  });

  it('knows credential names from ordinary ones', () => {
    expect(['notes.env.md', 'keyboard.ts', 'environment.ts', 'pem.md', 'src/auth.json', 'hosts.yml', 'gh/README.md', 'config.json', 'docs/gcloud/setup.md'].filter(isCredential)).toEqual([]);
  });
});

describe("never shown, whatever the session's folder", () => {
  // Under a throwaway home that is also the session's folder, the worst case: a session in ~.
  it.each([
    '.claude/.credentials.json',
    '.codex/auth.json',
    '.gemini/oauth_creds.json',
    '.qwen/oauth_creds.json',
    '.local/share/opencode/auth.json',
    '.config/gh/hosts.yml',
    '.vault-token',
    '.ssh/id_ed25519',
    '.aws/credentials',
    '.netrc',
    '.npmrc',
    '.pypirc',
    '.docker/config.json',
    '.kube/config',
    '.config/gcloud/application_default_credentials.json',
    '.bash_history',
    '.zsh_history',
    '.config/hub',
    '.config/github-copilot/apps.json',
    '.terraform.d/credentials.tfrc.json',
    '.cache/huggingface/token',
    '.s3cfg',
    '.local/share/keyrings/login.keyring',
    '.config/google-chrome/Default/Login Data',
    '.mozilla/firefox/x.default/logins.json',
  ])('refuses ~/%s, to read, through a link, or to save', async (name) => {
    const inHome = { ...fence, cwd: home };
    fs.mkdirSync(path.dirname(path.join(home, name)), { recursive: true });
    fs.writeFileSync(path.join(home, name), 'TOKEN=1\n');
    expect(await previewPath(inHome, `~/${name}`)).toMatchObject({ kind: 'refused', reason: 'this looks like a credential file, which Corral never opens' });
    fs.symlinkSync(path.join(home, name), path.join(home, 'harmless.txt'));
    expect(await previewPath(inHome, 'harmless.txt')).toMatchObject({ kind: 'refused', reason: 'this leads to a credential file, which Corral never opens' });
    const { mtimeMs, size } = fs.statSync(path.join(home, name));
    await expect(savePath(inHome, `~/${name}`, 'x', `${Math.trunc(mtimeMs * 1000)}:${size}`)).rejects.toMatchObject({ code: 'forbidden' });
    expect(fs.readFileSync(path.join(home, name), 'utf8')).toBe('TOKEN=1\n');
  });

  it("refuses Corral's own home, though it is in the temp folder, and as the session's folder", async () => {
    const corralHome = path.join(scratch, 'corral-home');
    fs.mkdirSync(corralHome);
    fs.writeFileSync(path.join(corralHome, 'endpoint.json'), '{"token":"secret"}');
    const withHome = { ...fence, corralHome };
    const reason = "this is Corral's own home (its tokens and database), which Corral never opens";
    expect(await previewPath(withHome, path.join(corralHome, 'endpoint.json'))).toMatchObject({ kind: 'refused', reason });
    expect(await previewPath(withHome, corralHome)).toMatchObject({ kind: 'refused', reason });
    expect(await previewPath({ ...withHome, cwd: corralHome }, 'endpoint.json')).toMatchObject({ kind: 'refused', reason });
    expect(await previewPath({ ...withHome, cwd: corralHome.toUpperCase() }, 'ENDPOINT.JSON')).toMatchObject({ kind: 'refused', reason });
    fs.symlinkSync(path.join(corralHome, 'endpoint.json'), path.join(work, 'endpoint.json'));
    expect(await previewPath(withHome, 'endpoint.json')).toMatchObject({ kind: 'refused', reason });
  });

  it("shows a worktree's files to its session though Corral keeps it in its own home; the rest of that home stays refused", async () => {
    const corralHome = path.join(scratch, 'corral-home-2');
    const tree = path.join(corralHome, 'worktrees', 'repo-1234abcd', 'corral-x');
    fs.mkdirSync(tree, { recursive: true });
    fs.writeFileSync(path.join(tree, 'notes.txt'), 'the agent wrote this\n');
    fs.writeFileSync(path.join(corralHome, 'endpoint.json'), '{"token":"secret"}');
    const inTree = { ...fence, corralHome, worktrees: path.join(corralHome, 'worktrees'), cwd: tree };
    expect(await previewPath(inTree, 'notes.txt')).toMatchObject({ kind: 'text', text: 'the agent wrote this\n' });
    const reason = "this is Corral's own home (its tokens and database), which Corral never opens";
    expect(await previewPath(inTree, path.join(corralHome, 'endpoint.json'))).toMatchObject({ kind: 'refused', reason });
    expect(await previewPath(inTree, '../../../endpoint.json')).toMatchObject({ kind: 'refused', reason });
    fs.symlinkSync(path.join(corralHome, 'endpoint.json'), path.join(tree, 'link.json'));
    expect(await previewPath(inTree, 'link.json')).toMatchObject({ kind: 'refused', reason });
    // A session whose folder is the worktrees' folder itself, or Corral's home, is still refused there.
    expect(await previewPath({ ...inTree, cwd: path.join(corralHome, 'worktrees') }, path.join(corralHome, 'worktrees'))).toMatchObject({ kind: 'refused', reason });
  });

  it('refuses system folders even to a session whose folder is / or /etc', async () => {
    const atRoot = { ...fence, cwd: '/' };
    // Nothing secret in the list: a regression would print what it read in the failure.
    for (const file of ['/etc/passwd', '/etc', '/proc/version', '/sys/kernel', '/dev/null', '/root', '/boot']) {
      expect(await previewPath(atRoot, file)).toMatchObject({ kind: 'refused', reason: `/${file.split('/')[1]} is a system folder, which Corral never opens` });
    }
    expect(await previewPath({ ...fence, cwd: '/etc' }, 'passwd')).toMatchObject({ kind: 'refused', reason: '/etc is a system folder, which Corral never opens' });
    // On a disk that ignores case (macOS), /ETC is /etc.
    expect(await previewPath(atRoot, '/ETC/passwd')).toMatchObject({ kind: 'refused', reason: '/etc is a system folder, which Corral never opens' });
    fs.symlinkSync('/etc/passwd', path.join(work, 'users.txt'));
    expect(await previewPath(atRoot, path.join(work, 'users.txt'))).toMatchObject({ kind: 'refused', reason: '/etc is a system folder, which Corral never opens' });
    // The rest of / is the session's to read.
    expect(await previewPath(atRoot, path.join(work, 'note.md'))).toMatchObject({ kind: 'text', text: 'hello\n' });
  });
});

describe('saving an edited file', () => {
  const versionOf = async (name: string) => {
    const preview = await previewPath(fence, name);
    if (preview.kind !== 'text') throw new Error(`expected text, got ${preview.kind}`);
    return preview.version;
  };

  it('writes an existing file in place and keeps its mode', async () => {
    fs.chmodSync(path.join(work, 'note.md'), 0o640);
    const saved = await savePath(fence, 'note.md', 'edited\n', await versionOf('note.md'));
    expect(saved.bytes).toBe(7);
    expect(fs.readFileSync(path.join(work, 'note.md'), 'utf8')).toBe('edited\n');
    expect(fs.statSync(path.join(work, 'note.md')).mode & 0o777).toBe(0o640);
  });

  it('refuses a file that changed since it was read, and leaves it alone', async () => {
    const version = await versionOf('note.md');
    fs.writeFileSync(path.join(work, 'note.md'), 'the agent wrote this meanwhile\n');
    await expect(savePath(fence, 'note.md', 'mine\n', version)).rejects.toMatchObject({ code: 'conflict', field: 'version' });
    expect(fs.readFileSync(path.join(work, 'note.md'), 'utf8')).toBe('the agent wrote this meanwhile\n');
  });

  it('refuses credentials, escapes, new files, folders, binaries and files shown only in part', async () => {
    fs.writeFileSync(path.join(work, '.env'), 'SECRET=1\n');
    await expect(savePath(fence, '.env', 'x', '1:1')).rejects.toMatchObject({ code: 'forbidden' });
    await expect(savePath({ ...fence, cwd: path.join(work, 'sub'), shared: [] }, '../note.md', 'x', '1:1')).rejects.toMatchObject({ code: 'forbidden' });
    await expect(savePath(fence, 'brand-new.md', 'x', '1:1')).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('saving never creates a file') });
    expect(fs.existsSync(path.join(work, 'brand-new.md'))).toBe(false);
    await expect(savePath(fence, 'sub', 'x', '1:1')).rejects.toMatchObject({ code: 'bad_request', message: expect.stringContaining('is not a file') });
    await expect(savePath(fence, 'big.txt', 'x', '1:1')).rejects.toMatchObject({ message: expect.stringContaining('only shown in part') });
    const binary = fs.statSync(path.join(work, 'bin.dat'));
    await expect(savePath(fence, 'bin.dat', 'x', `${Math.trunc(binary.mtimeMs * 1000)}:${binary.size}`)).rejects.toMatchObject({ message: expect.stringContaining('not a text file') });
    expect(fs.readFileSync(path.join(work, 'bin.dat'))).toEqual(Buffer.from([0, 1, 2]));
  });

  it('refuses a file with more than one hard link: its other name may be outside the fence', async () => {
    fs.linkSync(path.join(work, 'note.md'), path.join(outside, 'twin.md'));
    await expect(savePath(fence, 'note.md', 'hacked\n', await versionOf('note.md'))).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('has 2 hard links') });
    expect(fs.readFileSync(path.join(outside, 'twin.md'), 'utf8')).toBe('hello\n');
  });

  it('refuses a symlink that leads out, and leaves its target untouched', async () => {
    fs.symlinkSync(path.join(outside, 'private.txt'), path.join(work, 'esc'));
    await expect(savePath(fence, 'esc', 'hacked', '1:1')).rejects.toMatchObject({ code: 'forbidden' });
    expect(fs.readFileSync(path.join(outside, 'private.txt'), 'utf8')).toBe('out\n');
  });
});

describe('the fence checks what was opened, not the path', () => {
  /** Moves a folder of the fence aside and puts a link to `outside` in its place. */
  const swapForLinkOut = (folder: string) => () => {
    fs.renameSync(folder, `${folder}-moved`);
    fs.symlinkSync(outside, folder);
  };

  beforeEach(() => {
    // The same size and time inside and out: a save's version matches either file.
    fs.mkdirSync(path.join(work, 'd'));
    fs.writeFileSync(path.join(work, 'd', 'private.txt'), 'in!\n');
    const stamp = new Date(1_700_000_000_000);
    for (const file of [path.join(work, 'd', 'private.txt'), path.join(outside, 'private.txt')]) fs.utimesSync(file, stamp, stamp);
  });

  it('refuses a path whose parent folder is a link that leads out, to read or to save', async () => {
    fs.symlinkSync(outside, path.join(work, 'linked'));
    expect(await previewPath(fence, 'linked/private.txt')).toMatchObject({ kind: 'refused', reason: "a link that leads outside the session's folder and the temp folder" });
    const { mtimeMs, size } = fs.statSync(path.join(outside, 'private.txt'));
    await expect(savePath(fence, 'linked/private.txt', 'hacked', `${Math.trunc(mtimeMs * 1000)}:${size}`)).rejects.toMatchObject({ code: 'forbidden' });
    expect(fs.readFileSync(path.join(outside, 'private.txt'), 'utf8')).toBe('out\n');
  });

  it('refuses a folder swapped for a link out between the check and the open, and shows nothing of it', async () => {
    const shown = await previewPath(fence, 'd/private.txt', { beforeOpen: swapForLinkOut(path.join(work, 'd')) });
    expect(shown).toEqual({ kind: 'refused', path: path.join(work, 'd', 'private.txt'), reason: "a link that leads outside the session's folder and the temp folder" });
  });

  it('saves nothing through a folder swapped for a link out between the check and the open', async () => {
    const preview = await previewPath(fence, 'd/private.txt');
    if (preview.kind !== 'text') throw new Error(`expected text, got ${preview.kind}`);
    await expect(savePath(fence, 'd/private.txt', 'hacked', preview.version, { beforeOpen: swapForLinkOut(path.join(work, 'd')) })).rejects.toMatchObject({ code: 'forbidden' });
    expect(fs.readFileSync(path.join(outside, 'private.txt'), 'utf8')).toBe('out\n');
  });

  it('lists and saves through what it opened and checked, not through the path again', async () => {
    const folder = path.join(work, 'd');
    fs.writeFileSync(path.join(outside, 'only-outside.txt'), '');
    const swapAfterChecks = { afterChecks: swapForLinkOut(folder) };
    const listing = await previewPath(fence, 'd', swapAfterChecks);
    expect(listing.kind === 'folder' && listing.entries.map((e) => e.name)).toEqual(['..', 'private.txt']);
    fs.rmSync(folder);
    fs.renameSync(`${folder}-moved`, folder);
    const preview = await previewPath(fence, 'd/private.txt');
    if (preview.kind !== 'text') throw new Error(`expected text, got ${preview.kind}`);
    await savePath(fence, 'd/private.txt', 'edited\n', preview.version, swapAfterChecks);
    // The file that was checked got the text, wherever its folder went; the one outside did not.
    expect(fs.readFileSync(path.join(`${folder}-moved`, 'private.txt'), 'utf8')).toBe('edited\n');
    expect(fs.readFileSync(path.join(outside, 'private.txt'), 'utf8')).toBe('out\n');
  });

  it('refuses a FIFO at the path at once, without waiting for a writer', { timeout: 5_000 }, async () => {
    mkfifo(path.join(work, 'pipe'));
    expect(await previewPath(fence, 'pipe')).toMatchObject({ kind: 'refused', reason: 'not a file or a folder (a FIFO, socket or device), which Corral never opens' });
    await expect(savePath(fence, 'pipe', 'x', '1:1')).rejects.toMatchObject({ code: 'forbidden', field: 'path' });
  });

  it('refuses a FIFO swapped in after the check, without hanging the preview or the save', { timeout: 5_000 }, async () => {
    const note = path.join(work, 'note.md');
    const version = (await previewPath(fence, 'note.md')) as { version: string };
    const swapForFifo = {
      beforeOpen() {
        fs.rmSync(note);
        mkfifo(note);
      },
    };
    expect(await previewPath(fence, 'note.md', swapForFifo)).toMatchObject({ kind: 'refused' });
    fs.rmSync(note);
    fs.writeFileSync(note, 'hello\n');
    await expect(savePath(fence, 'note.md', 'x', version.version, swapForFifo)).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('turns a link swapped onto the last part (ELOOP) into a refusal, not an internal error', async () => {
    const note = path.join(work, 'note.md');
    const version = (await previewPath(fence, 'note.md')) as { version: string };
    // Even a link that stays inside: what was checked had no link there, so it changed.
    const swapForLink = {
      beforeOpen() {
        fs.renameSync(note, `${note}-moved`);
        fs.symlinkSync(`${note}-moved`, note);
      },
    };
    expect(await previewPath(fence, 'note.md', swapForLink)).toMatchObject({ kind: 'refused', reason: 'a link in its path loops, or appeared while Corral opened it' });
    fs.rmSync(note);
    fs.renameSync(`${note}-moved`, note);
    await expect(savePath(fence, 'note.md', 'x', version.version, swapForLink)).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('appeared while Corral opened it') });
  });

  it('refuses what cannot be opened with a reason: a loop of links, a socket, a file used as a folder', async () => {
    fs.symlinkSync(path.join(work, 'loop-b'), path.join(work, 'loop-a'));
    fs.symlinkSync(path.join(work, 'loop-a'), path.join(work, 'loop-b'));
    expect(await previewPath(fence, 'loop-a')).toMatchObject({ kind: 'refused', reason: 'a link in its path loops, or appeared while Corral opened it' });
    await expect(savePath(fence, 'loop-a', 'x', '1:1')).rejects.toMatchObject({ code: 'forbidden' });
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(work, 'sock'), resolve));
    try {
      expect(await previewPath(fence, 'sock')).toMatchObject({ kind: 'refused', reason: 'a socket or device, which Corral never opens' });
      await expect(savePath(fence, 'sock', 'x', '1:1')).rejects.toMatchObject({ code: 'forbidden' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await previewPath(fence, 'note.md/inner')).toMatchObject({ kind: 'missing' });
    await expect(savePath(fence, 'note.md/inner', 'x', '1:1')).rejects.toMatchObject({ code: 'not_found' });
  });

  it.skipIf(process.getuid?.() === 0)('refuses a file it may not read, with a reason', async () => {
    fs.chmodSync(path.join(work, 'note.md'), 0o000);
    expect(await previewPath(fence, 'note.md')).toMatchObject({ kind: 'refused', reason: 'Corral is not permitted to open it' });
  });
});
