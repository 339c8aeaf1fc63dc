// Builds what runs: the `corral` command (engine, API, MCP) into out/cli/ and the desktop
// app's main and preload into out/main/ and out/preload/ with esbuild, and the renderer into
// out/renderer/ with Vite. The command carries its pure-JS dependencies; the app's stay in
// node_modules.
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// Dependencies are bundled too: Node 20 has no compile cache, and loading a package's files one
// by one (zod alone is 95) was most of a start. node-pty finds its .node files from where its
// JavaScript lies, so it stays in node_modules; better-sqlite3's JavaScript is bundled, and its
// addon is loaded from the installed package, found by its package.json (below).
const EXTERNAL = ['node-pty', 'better-sqlite3/package.json'];

// better-sqlite3 asks the `bindings` package for its addon, which finds the package's folder from
// its caller's file (inside a bundle, ours) and tries a dozen places in it: 6–8 ms of every start.
// This stands in for it: the addon where npm installs it, in the package as Node resolves it from
// the bundle; `bindings` itself, told the package's folder, only where it is not there.
const SQLITE_ADDON = `
const path = require('node:path');
module.exports = (name) => {
  const root = path.dirname(require.resolve('better-sqlite3/package.json'));
  try {
    return require(path.join(root, 'build', 'Release', name));
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') throw err;
    return require(require.resolve('bindings', { paths: [root] }))({ bindings: name, module_root: root });
  }
};
`;
const sqliteAddon = {
  name: 'sqlite-addon',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, (args) => (args.importer.includes(`${path.sep}better-sqlite3${path.sep}`) ? { path: 'bindings', namespace: 'sqlite-addon' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'sqlite-addon' }, () => ({ contents: SQLITE_ADDON, loader: 'js', resolveDir: process.cwd() }));
  },
};

// The command is CommonJS, as serve.cjs is: Node 20's ES module loader cost 25–30 ms of CPU of
// every command and of every start of `corral serve` (bench/README.md). The heavy parts a few
// commands use (the MCP server with its SDK and zod, attach with ws, tokens with the database)
// are files of their own, required by the command that uses them; the rest is one file.
const LAZY = ['mcp', 'attach', 'tokens'];
const commonCli = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  plugins: [sqliteAddon],
  // An import() of a file of ours or of a Node built-in becomes a require (no ES module loader).
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__importMetaUrl' },
  sourcemap: true,
  logLevel: 'warning',
  outExtension: { '.js': '.cjs' },
};
await build({
  ...commonCli,
  entryPoints: { corral: 'daemon/cli/corral.ts' },
  outdir: 'out/cli',
  banner: { js: "#!/usr/bin/env node\nconst __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [
    sqliteAddon,
    {
      name: 'lazy-commands',
      setup(b) {
        b.onResolve({ filter: new RegExp(`^\\./(${LAZY.join('|')})$`) }, (args) => (args.importer.endsWith(path.join('daemon', 'cli', 'main.ts')) ? { path: `${args.path}.cjs`, external: true } : undefined));
      },
    },
  ],
});
fs.chmodSync('out/cli/corral.cjs', 0o755);
// Each is a bundle of its own: its copies of shared modules hold nothing the command's code tells
// apart by identity (an error class of the command's reaches them as an argument).
await build({ ...commonCli, entryPoints: Object.fromEntries(LAZY.map((name) => [name, `daemon/cli/${name}.ts`])), outdir: 'out/cli', banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" } });
// What the ES module build of the command left.
for (const old of ['corral.mjs', 'corral.mjs.map', 'chunks']) fs.rmSync(path.join('out/cli', old), { recursive: true, force: true });

// zod (0.7 MB) runs its module at the first schema made, not with serve.cjs's top level: every schema
// is made at its first use (the contract's, the catalogue's for an entry with something wrong), so a
// start makes none before it answers /healthz. Our files' `z` stands in for zod's, which is required
// (bundled, and run then) at the first use of any of its exports.
const lateZod = {
  name: 'late-zod',
  setup(b) {
    // Required, zod's CommonJS build is bundled: its ES module build, wrapped to run later, would
    // define its functions and exports with serve.cjs's top level (7 ms more of a start, 6 less at zod's first use).
    b.onResolve({ filter: /^zod$/ }, (args) => (args.namespace === 'late-zod' ? undefined : { path: 'zod', namespace: 'late-zod' }));
    b.onLoad({ filter: /.*/, namespace: 'late-zod' }, () => ({ contents: "let zod; export const z = new Proxy({}, { get: (_, key) => (zod ??= require('zod')).z[key] });", loader: 'js', resolveDir: process.cwd() }));
  },
};

// `corral serve`: one CommonJS file, compiled with a V8 code cache made here from this very file
// (daemon/cli/codeCache.ts says why). A build that makes the same file again leaves the file and
// its cache as they are (the tests build in several processes at once, beside daemons starting
// from them); a new file's old cache goes before the file is written.
const serve = await build({
  entryPoints: { serve: 'daemon/cli/serve.ts' },
  outdir: 'out/cli',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  plugins: [sqliteAddon, lateZod],
  sourcemap: true,
  define: { 'import.meta.url': '__importMetaUrl' },
  // __builtin: see below.
  banner: {
    js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href; const __builtins = {}, __builtin = (name) => (__builtins[name] ??= __toESM(require(name), 1)), __lateBuiltin = (name) => new Proxy({}, { get: (_, key) => __builtin(name)[key] });",
  },
  logLevel: 'warning',
  write: false,
});
// esbuild gives every import of a Node built-in in serve.cjs a copy of the module's exports of its
// own (__toESM: 84 of them, 9–18 ms of every start); one for each module does, as they never change.
// Those a start needs nothing of before it answers /healthz load at their first use instead: the
// code reads an import's exports only where it uses them (`(0, import_x.spawn)(...)`), through a
// stand-in that requires the module then.
const LATE_BUILTINS = ['node:child_process', 'node:fs/promises', 'node:timers/promises', 'node:worker_threads'];
const serveFile = path.resolve('out/cli/serve.cjs');
const bundled = serve.outputFiles.find((file) => file.path === serveFile).text;
const builtinImport = /__toESM\(require\("(node:[\w/]+)"\), 1\)|require\("(node:[\w/]+)"\)/g;
if (!/__toESM\(require\("node:/.test(bundled)) throw new Error("build: no import of a Node built-in found in out/cli/serve.cjs: has esbuild's output changed?");
const importOf = (match, name, plain) => {
  if (LATE_BUILTINS.includes(name ?? plain)) return `__lateBuiltin("${name ?? plain}")`;
  return name === undefined ? match : `__builtin("${name}")`;
};
// The loader reads serve.cjs as Latin-1 (codeCache.ts: a third of the time UTF-8 takes), so it is
// ASCII only. esbuild escapes strings and names, not comments and regular expressions: what is left
// is written as \u escapes, the same characters in a regular expression and text in a comment.
const serveSource = bundled
  .replace(builtinImport, importOf)
  .replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const same = (file, text) => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text;
if (!same(serveFile, serveSource) || !fs.existsSync(`${serveFile}.cache`)) {
  fs.rmSync(`${serveFile}.cache`, { force: true });
  for (const file of serve.outputFiles) fs.writeFileSync(file.path, file.path === serveFile ? serveSource : file.contents);
  // The cache's maker, in a folder of this build's own, run in a process of its own: it runs the
  // file and a start (which load the native addons).
  const maker = `out/build-${process.pid}`;
  await build({ entryPoints: { codeCache: 'daemon/cli/codeCache.ts' }, outdir: maker, outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
  const cached = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { writeCodeCache } from ${JSON.stringify(pathToFileURL(`${maker}/codeCache.mjs`).href)}; await writeCodeCache('out/cli/serve.cjs', (serve) => serve.rehearse());`],
    // A rehearsal that never ends must not hold up the build.
    { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', timeout: 120_000 },
  );
  fs.rmSync(maker, { recursive: true, force: true });
  // Without a cache `serve` still runs, only slower to start (native addons built for Electron cannot load here, for one).
  if (cached.status !== 0) console.warn(`build: no code cache for out/cli/serve.cjs (it compiles at each start): ${cached.stderr.split('\n').find((line) => /Error/.test(line)) ?? cached.stderr.trim()}`);
  else process.stderr.write(cached.stderr);
}

if (process.argv.includes('--cli-only')) process.exit(0);

// The desktop app's main process and preload, as CommonJS for Electron. The preload runs
// sandboxed: everything but electron is bundled into it.
// import.meta appears only behind a check for __dirname (see daemon/home/resources.ts).
const electronCommon = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  logOverride: { 'empty-import-meta': 'silent' },
  outExtension: { '.js': '.cjs' },
};
await build({ ...electronCommon, entryPoints: { index: 'main/index.ts' }, outdir: 'out/main', packages: 'external' });
await build({ ...electronCommon, entryPoints: { index: 'preload/index.ts' }, outdir: 'out/preload', external: ['electron'] });

// Always React's production build: Vite keeps a NODE_ENV already set, and a build run from the
// tests (NODE_ENV=test) would otherwise ship React's development build to the browser tests after it.
process.env.NODE_ENV = 'production';
await viteBuild({ logLevel: 'warn', mode: 'production' });
