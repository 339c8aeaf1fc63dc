// `npm run test:real`: the lifecycle against the real agent CLIs, not fakes. Not part of
// `npm test`: it installs pinned versions from npm (about 1.2 GB) into a cache outside the
// repository, then runs daemon/test/real/*.real.ts with a throwaway HOME for each CLI and no
// network (a proxy that answers nothing). Where npm cannot be reached it says so in one line.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PINS = {
  '@anthropic-ai/claude-code': '2.1.332',
  '@openai/codex': '0.171.0',
  '@google/gemini-cli': '0.61.0',
  '@qwen-code/qwen-code': '0.15.10',
  'opencode-ai': '1.18.33',
};

const cache = process.env.CORRAL_REAL_CLIS ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'corral', 'real-clis');

function installed() {
  return Object.entries(PINS).every(([name, version]) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(cache, 'node_modules', name, 'package.json'), 'utf8')).version === version;
    } catch {
      return false;
    }
  });
}

if (!installed()) {
  fs.mkdirSync(cache, { recursive: true });
  console.log(`test:real: installing ${Object.entries(PINS).map(([n, v]) => `${n}@${v}`).join(' ')} into ${cache}`);
  const npm = spawnSync('npm', ['install', '--prefix', cache, '--no-audit', '--no-fund', '--no-save', ...Object.entries(PINS).map(([n, v]) => `${n}@${v}`)], {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (npm.status !== 0 || !installed()) {
    const why = (npm.stderr ?? '').split('\n').find((line) => /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|E404|ERR!/.test(line))?.trim() ?? `npm exited with ${npm.status}`;
    console.error(`test:real: the real CLIs could not be installed from npm (${why}); nothing was run.`);
    process.exit(2);
  }
}

const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'vitest.real.config.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, CORRAL_REAL_CLIS: cache },
});
process.exit(run.status ?? 1);
