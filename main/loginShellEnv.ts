// GUI apps start with a thin PATH (macOS especially). Ask the user's login shell once for its
// environment, so `claude`, `codex` and friends are found; the catalogue's `env` still wins.

import { execFile } from 'node:child_process';

const MARK = '__CORRAL_ENV__';

/** Parses `env -0` output found between two marks (shell start-up noise is ignored). */
export function parseEnvOutput(output: string): Record<string, string> | null {
  const start = output.indexOf(MARK);
  const end = output.lastIndexOf(MARK);
  if (start < 0 || end <= start) return null;
  const env: Record<string, string> = {};
  for (const entry of output.slice(start + MARK.length, end).split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at).replace(/^\n/, '')] = entry.slice(at + 1);
  }
  return Object.keys(env).length > 0 ? env : null;
}

export type Runner = (file: string, args: string[], timeoutMs: number) => Promise<string>;

const run: Runner = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024, encoding: 'utf8', env: { ...process.env, CORRAL_RESOLVING_ENV: '1' } }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });

/** The login shell's environment over ours; ours alone when the shell fails or is slow. */
export async function loginShellEnv(shell: string | undefined, base: NodeJS.ProcessEnv, runner: Runner = run): Promise<{ env: NodeJS.ProcessEnv; problem: string | null }> {
  if (!shell) return { env: base, problem: 'no login shell is known' };
  try {
    const output = await runner(shell, ['-ilc', `printf '${MARK}'; env -0; printf '${MARK}'`], 5_000);
    const parsed = parseEnvOutput(output);
    if (!parsed) return { env: base, problem: `${shell} did not print its environment` };
    return { env: { ...base, ...parsed }, problem: null };
  } catch (err) {
    return { env: base, problem: `${shell} failed to give its environment: ${(err as Error).message.split('\n')[0]}` };
  }
}
