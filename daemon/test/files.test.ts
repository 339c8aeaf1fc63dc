// Previews of printed paths, on real files in a throwaway folder: what they show, and the fence
// (the session's folder and the temp folder, symlinks resolved, credentials refused anywhere).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCredential, type Fence } from '../fence';
import { cleanPath, previewPath, savePath, TEXT_CAP } from '../files';

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
  fence = { cwd: work, shared: [scratch], corralHome: path.join(root, 'corral'), userHome: home };
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

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
    expect(['notes.env.md', 'keyboard.ts', 'environment.ts', 'pem.md'].filter(isCredential)).toEqual([]);
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

  it('refuses a symlink that leads out, and leaves its target untouched', async () => {
    fs.symlinkSync(path.join(outside, 'private.txt'), path.join(work, 'esc'));
    await expect(savePath(fence, 'esc', 'hacked', '1:1')).rejects.toMatchObject({ code: 'forbidden' });
    expect(fs.readFileSync(path.join(outside, 'private.txt'), 'utf8')).toBe('out\n');
  });
});
