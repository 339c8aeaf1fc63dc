// `npm run bench [-- --quick|--tiny] [--loaded] [--runs N] [--only 7,10]`: builds Corral and the benchmark, then runs it.
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';

const cli = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (cli.status !== 0) process.exit(cli.status ?? 1);
await build({ entryPoints: ['bench/run.ts'], outfile: 'out/bench/run.mjs', bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
// Ctrl-C reaches the benchmark too, which cleans up (its daemons, tmux servers, load) before it
// exits: wait for it rather than leave it behind.
process.on('SIGINT', () => {});
const run = spawnSync(process.execPath, ['out/bench/run.mjs', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
