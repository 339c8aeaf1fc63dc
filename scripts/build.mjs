// Builds what runs: the `corral` command (engine, API, MCP) into out/cli/ and the desktop
// app's main and preload into out/main/ and out/preload/ with esbuild, and the renderer into
// out/renderer/ with Vite. Dependencies stay in node_modules.
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';
import fs from 'node:fs';

await build({
  entryPoints: { corral: 'daemon/cli/corral.ts' },
  outdir: 'out/cli',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Client commands load only what they use: the engine arrives with `serve`.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Dependencies are bundled too: Node 20 has no compile cache, and loading a package's files
  // one by one (zod alone is 95) was most of a start. Native addons find their .node files from
  // where they lie, so they stay in node_modules.
  external: ['better-sqlite3', 'node-pty'],
  sourcemap: true,
  // Bundled CommonJS (ws) requires Node's own modules; ESM has no `require` of its own.
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __corralRequire } from 'node:module';\nconst require = __corralRequire(import.meta.url);" },
  logLevel: 'warning',
});
fs.chmodSync('out/cli/corral.mjs', 0o755);

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

await viteBuild({ logLevel: 'warn' });
