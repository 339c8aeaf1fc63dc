// Builds what runs: the `corral` command (engine, API, MCP) into out/cli/ with esbuild, and
// the renderer into out/renderer/ with Vite. Dependencies stay in node_modules.
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
  packages: 'external',
  sourcemap: true,
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
fs.chmodSync('out/cli/corral.mjs', 0o755);

if (!process.argv.includes('--cli-only')) await viteBuild({ logLevel: 'warn' });
