// `npm start`: build, make sure Electron's binary is here (fetching it on first run), launch.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const electronDir = path.dirname(require.resolve('electron/package.json'));
/** The installed binary, or null (require('electron') would start a download of its own). */
const binary = () => {
  try {
    const file = path.join(electronDir, 'dist', fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim());
    return fs.existsSync(file) ? file : null;
  } catch {
    return null;
  }
};
if (!binary()) {
  // npm ci skipped Electron's install script (allowScripts); run it now.
  const fetched = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (fetched.status !== 0 || !binary()) {
    const lines = (fetched.stderr || '').split('\n').map((l) => l.trim()).filter(Boolean);
    const why = lines.find((l) => /error|fail/i.test(l) && !l.startsWith('at ')) ?? lines[0] ?? 'no binary after the install';
    console.error(`corral: Electron's binary could not be downloaded here (${why}); run \`npm run serve\` and open the link it prints instead.`);
    process.exit(1);
  }
}
const env = { ...process.env };
delete env.ELECTRON_RUN_AS_NODE;
const child = spawn(binary(), ['.', ...process.argv.slice(2)], { stdio: 'inherit', env });
child.on('exit', (code) => process.exit(code ?? 0));
