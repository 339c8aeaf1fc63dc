// electron-builder.yml and package.json agree with each other and with the build.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const builder = parse(fs.readFileSync('electron-builder.yml', 'utf8'));

beforeAll(() => {
  // The build of main and preload is part of the test run.
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}, 120_000);

describe('packaging', () => {
  it("the entry points exist after the build and are what package.json names", () => {
    expect(pkg.main).toBe('out/main/index.cjs');
    for (const file of [pkg.main, 'out/preload/index.cjs', 'out/renderer/index.html', pkg.bin.corral]) expect(fs.existsSync(file), file).toBe(true);
    const main = fs.readFileSync(pkg.main, 'utf8');
    // main finds its preload and renderer beside it, as the build lays them out.
    expect(main).toMatch(/join\(__dirname, "\.\.", "preload", "index\.cjs"\)/);
    expect(main).toMatch(/join\(__dirname, "\.\.", "renderer", "index\.html"\)/);
  });

  it("the page is React's production build, though this build ran under the tests' NODE_ENV", () => {
    expect(process.env.NODE_ENV).toBe('test');
    const page = fs.readdirSync('out/renderer/assets').filter((f) => /^index-.*\.js$/.test(f)).map((f) => fs.readFileSync(`out/renderer/assets/${f}`, 'utf8'));
    expect(page).toHaveLength(1);
    expect(page[0]!.includes('jsxDEV'), 'jsxDEV in the page').toBe(false);
    expect(page[0]!.includes('Download the React DevTools'), "React's development notice in the page").toBe(false);
  });

  it('the preload bundles everything but electron, and exposes the contract only', () => {
    const preload = fs.readFileSync('out/preload/index.cjs', 'utf8');
    const requires = [...preload.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    expect([...new Set(requires)]).toEqual(['electron']);
    expect(preload).toContain('exposeInMainWorld("corral"');
  });

  it('declares the corral protocol, the targets, and unpacks the native modules', () => {
    expect(builder.protocols).toEqual([{ name: 'Corral session link', schemes: ['corral'] }]);
    expect(builder.linux.target).toEqual(['AppImage', 'deb']);
    expect(builder.mac.target).toEqual(['dmg']);
    expect(builder.win.target).toEqual(['nsis']);
    expect(builder.asarUnpack).toEqual(expect.arrayContaining(['node_modules/node-pty/**', 'node_modules/better-sqlite3/**']));
    expect(builder.files).toEqual(expect.arrayContaining(['out/**', 'package.json']));
    expect(builder.appId).toBe('dev.corral.app');
    expect(builder.electronFuses).toMatchObject({ runAsNode: false, enableNodeOptionsEnvironmentVariable: false, enableNodeCliInspectArguments: false, onlyLoadAppFromAsar: true });
    expect(fs.existsSync('resources/icon.png')).toBe(true);
    expect(fs.readFileSync('resources/corral.desktop', 'utf8')).toContain('MimeType=x-scheme-handler/corral;');
  });

  it('npm ci leaves Electron\'s download to npm start, and allows the native builds', () => {
    expect(pkg.allowScripts).toMatchObject({ electron: false, 'node-pty': true, 'better-sqlite3': true });
    expect(pkg.scripts.start).toBe('node scripts/start.mjs');
    expect(pkg.scripts.dist).toContain('electron-builder');
  });
});
