// A session's branch as a pull request: pushed to the repository's remote, then opened with
// GitHub's own `gh`, when it is installed and logged in; when it is not, the refusal says what to
// do instead. Corral keeps no credentials: git and gh use the person's own.

import { execFile } from 'node:child_process';
import { CorralError } from '../contract/errors';
import { git, read } from './git';

export const GH_TIMEOUT_MS = 60_000;

export interface PullRequest {
  url: string;
  remote: string;
}

/** Pushes `branch` and opens a pull request into `base`. `gh` is the executable found on PATH, or null. */
export async function openPullRequest(options: {
  folder: string;
  branch: string;
  base: string;
  gh: string | null;
  title?: string;
  body?: string;
  env: NodeJS.ProcessEnv;
}): Promise<PullRequest> {
  const { folder, branch, env } = options;
  const gh = await ghReady(options.gh, folder, branch, env);
  const remotes = (await read(['remote'], { cwd: folder, env })).split('\n').filter(Boolean);
  const remote = remotes.includes('origin') ? 'origin' : remotes[0];
  if (!remote) throw new CorralError('bad_request', `the repository of ${folder} has no remote to push ${branch} to`);
  await git(['push', '--set-upstream', remote, `${branch}:${branch}`], { cwd: folder, env, wholeEnv: true, timeoutMs: GH_TIMEOUT_MS });
  const args = ['pr', 'create', '--head', branch, '--base', options.base];
  if (options.title) args.push('--title', options.title, '--body', options.body ?? '');
  else args.push('--fill');
  const made = await run(gh, args, folder, env);
  if (made.code !== 0) throw new CorralError('git_failed', `gh pr create failed: ${made.stderr.trim().split('\n')[0] || `exit code ${made.code}`}`);
  const url = made.stdout.trim().split('\n').reverse().find((line) => /^https?:\/\//.test(line.trim()));
  if (!url) throw new CorralError('git_failed', `gh pr create did not say where the pull request is: ${made.stdout.trim().slice(0, 200)}`);
  return { url: url.trim(), remote };
}

/** `gh`, installed and logged in; else a refusal that says what to do instead. */
export async function ghReady(gh: string | null, folder: string, branch: string, env: NodeJS.ProcessEnv): Promise<string> {
  const pushYourself = `push it yourself: git -C ${folder} push -u origin ${branch}`;
  if (!gh) throw new CorralError('gh_unavailable', `gh (GitHub's command-line tool) is not installed: install it (https://cli.github.com) and run \`gh auth login\`, or ${pushYourself}`);
  const auth = await run(gh, ['auth', 'status'], folder, env);
  if (auth.code !== 0) throw new CorralError('gh_unavailable', `gh is not logged in: run \`gh auth login\`, or ${pushYourself}`);
  return gh;
}

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { ...env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' }, timeout: GH_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}
