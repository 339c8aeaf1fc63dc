// A git that notes each time it runs, then is the real one: put its folder first on a daemon's
// PATH to count the git processes a watcher starts.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function countedGit(folder: string, env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; runs(): number } {
  const bin = path.join(folder, 'counted-bin');
  const log = path.join(folder, 'git-runs');
  fs.mkdirSync(bin);
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8', env }).trim();
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho ran >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
  return {
    env: { ...env, PATH: `${bin}:${env.PATH}` },
    runs: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').length - 1 : 0),
  };
}
