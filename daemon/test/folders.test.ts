// The folder picker's listing: folders only, by name, hidden ones left out, links to folders
// followed, `~` as the home folder, and every refusal naming the path.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFolder } from '../engine/checks';
import { FOLDERS_MAX, expandHome, listFolders } from '../files/folders';

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-folders-'));
  for (const name of ['beta', 'alpha', '.hidden', 'Ünïcode']) fs.mkdirSync(path.join(root, name));
  fs.writeFileSync(path.join(root, 'a-file'), '');
  fs.symlinkSync(path.join(root, 'alpha'), path.join(root, 'link-to-alpha'));
  fs.symlinkSync(path.join(root, 'a-file'), path.join(root, 'link-to-file'));
  fs.symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('listing folders', () => {
  it('names the folders in a folder, sorted, and nothing else', async () => {
    expect(await listFolders(root)).toEqual({ path: root, parent: path.dirname(root), folders: ['alpha', 'beta', 'link-to-alpha', 'Ünïcode'], truncated: false });
    expect(await listFolders(`${root}/alpha/..`)).toMatchObject({ path: root });
    expect((await listFolders('/')).parent).toBeNull();
  });

  it('reads ~ as the home folder', async () => {
    expect(expandHome('~', root)).toBe(root);
    expect(expandHome('~/alpha', root)).toBe(path.join(root, 'alpha'));
    expect(await listFolders('~/', root)).toMatchObject({ path: root, folders: ['alpha', 'beta', 'link-to-alpha', 'Ünïcode'] });
    expect(await listFolders('', root)).toMatchObject({ path: root });
  });

  it('refuses a relative path, a missing folder and a file, naming the path', async () => {
    await expect(listFolders('src')).rejects.toMatchObject({ code: 'bad_request', field: 'path', message: 'path must be absolute or start with ~/, not "src"' });
    await expect(listFolders(path.join(root, 'gone'))).rejects.toMatchObject({ code: 'cwd_missing', field: 'path' });
    await expect(listFolders(path.join(root, 'a-file'))).rejects.toMatchObject({ code: 'cwd_not_folder', field: 'path' });
  });

  it(`cuts a huge folder at ${FOLDERS_MAX}, and says so`, async () => {
    const big = path.join(root, 'beta');
    for (let i = 0; i < FOLDERS_MAX + 3; i++) fs.mkdirSync(path.join(big, `d${String(i).padStart(4, '0')}`));
    const listed = await listFolders(big);
    expect(listed.folders).toHaveLength(FOLDERS_MAX);
    expect(listed.folders[0]).toBe('d0000');
    expect(listed.truncated).toBe(true);
  });
});

describe("a session's folder", () => {
  it('may be named from the home folder (~/), and is kept absolute', () => {
    expect(checkFolder('~', root)).toBe(root);
    expect(checkFolder('~/alpha', root)).toBe(path.join(root, 'alpha'));
    expect(checkFolder(`${root}/alpha/`, root)).toBe(path.join(root, 'alpha'));
    expect(() => checkFolder('alpha', root)).toThrow(expect.objectContaining({ code: 'bad_request', field: 'cwd', message: 'cwd must be an absolute path or start with ~/, not "alpha"' }));
    expect(() => checkFolder('~/gone', root)).toThrow(expect.objectContaining({ code: 'cwd_missing', field: 'cwd' }));
    expect(() => checkFolder('~/a-file', root)).toThrow(expect.objectContaining({ code: 'cwd_not_folder', field: 'cwd' }));
  });
});
