// The rules of the file-preview fence: which real paths a preview or a save may touch. A path
// is allowed inside the session's folder and the shared (temp) folders, and never, wherever it
// is and whatever the session's folder is: a system folder, Corral's own home, or a secret.

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inside } from '../util/paths';

export interface Fence {
  /** The session's folder: relative paths start here. */
  cwd: string;
  /** Other folders any session may read (the temp folder). */
  shared: string[];
  /** Corral's own home (its database, the daemon's endpoint and token): never shown. */
  corralHome: string;
  /** Where Corral keeps the sessions' worktrees, which may be in its home: theirs, not its own. */
  worktrees: string;
  /** The person's home, where a printed `~/` starts. */
  userHome: string;
}

export function defaultSharedRoots(): string[] {
  return [...new Set([os.tmpdir(), '/tmp'])].filter((dir) => fs.existsSync(dir));
}

/**
 * Secrets, each with why. A rule is the last parts of a file's path, or for a `folder` rule a
 * run of parts anywhere in it (covering everything inside). Rules are not tied to one home, so
 * they hold whatever HOME, XDG_CONFIG_HOME or the session's folder is. A part is a name
 * (case ignored) or a pattern.
 */
const SECRETS: { parts: (string | RegExp)[]; folder?: true; why: string }[] = [
  // Files that are keys, tokens or passwords by their name alone.
  { parts: [/^\.env(\..*)?$/i], why: 'dotenv files hold API keys' },
  { parts: [/\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk|asc|gpg)$/i], why: 'private keys, keystores and password databases' },
  { parts: [/^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/i], why: 'SSH keys, wherever they are copied' },
  { parts: [/^\.(npmrc|netrc|pypirc|pgpass|git-credentials|bw-session|htpasswd|dockercfg|vault-token)$/i], why: 'registry, login and Vault tokens' },
  { parts: [/^(credentials|secrets?)(\.(json|ya?ml|toml|txt))?$/i], why: 'named for what they hold (~/.aws/credentials among them)' },
  { parts: [/^\.?authinfo(\.gpg)?$/i], why: "Emacs's and Gnus's passwords" },
  // Folders whose whole content is keys.
  { parts: [/^\.(ssh|gnupg|password-store)$/i], folder: true, why: 'SSH keys, GPG keys, pass(1) passwords' },
  { parts: ['.aws'], folder: true, why: "AWS's credentials and SSO tokens" },
  { parts: ['.azure'], folder: true, why: "the Azure CLI's tokens" },
  { parts: ['.docker'], folder: true, why: 'config.json holds registry logins' },
  { parts: ['.kube'], folder: true, why: 'config holds cluster tokens and client keys' },
  { parts: ['.config', 'gcloud'], folder: true, why: "gcloud's credentials and access tokens" },
  // The agents' own logins: a session must not show the token it runs with.
  { parts: ['.credentials.json'], why: "Claude Code's login (~/.claude/.credentials.json)" },
  { parts: ['.codex', 'auth.json'], why: "Codex's login" },
  { parts: ['oauth_creds.json'], why: "Gemini CLI's and Qwen Code's logins (~/.gemini, ~/.qwen)" },
  { parts: ['opencode', 'auth.json'], why: "opencode's provider keys (~/.local/share/opencode)" },
  { parts: ['gh', 'hosts.yml'], why: "the GitHub CLI's token (~/.config/gh/hosts.yml)" },
  { parts: ['.config', 'hub'], why: "hub's GitHub token" },
  { parts: ['.config', 'github-copilot'], folder: true, why: "Copilot's tokens" },
  { parts: ['.terraform.d', 'credentials.tfrc.json'], why: "Terraform Cloud's tokens" },
  { parts: [/^(\.cache|\.huggingface)$/i, /^(huggingface|token)$/i], folder: true, why: "Hugging Face's token (~/.cache/huggingface/token)" },
  { parts: [/^\.(s3cfg|boto)$/i], why: 'S3 and boto keys' },
  { parts: ['rclone.conf'], why: "rclone's remotes' keys" },
  // Keyrings and what a shell or a browser keeps: commands typed with a secret in them, cookies, passwords.
  { parts: ['.local', 'share', 'keyrings'], folder: true, why: "GNOME's keyrings" },
  { parts: [/^\.(bash|zsh|sh|python|node_repl|psql|mysql|sqlite|irb)_?history$/i], why: 'shell and REPL histories hold what was typed, secrets included' },
  { parts: ['fish_history'], why: "fish's history" },
  { parts: [/^(Cookies|Login Data|Web Data|cookies\.sqlite|logins\.json|key4\.db|signons\.sqlite)$/i], why: "a browser profile's cookies, passwords and keys" },
];

/** Never shown, whatever the session's folder is; the /private ones are macOS's real paths. */
const SYSTEM_FOLDERS = ['/etc', '/proc', '/sys', '/dev', '/root', '/boot', '/run/secrets', '/private/etc', '/private/var/root'];

export function isCredential(file: string): boolean {
  const parts = file.split(/[\\/]+/).filter(Boolean);
  const runAt = (rule: (typeof SECRETS)[number], start: number) => start >= 0 && rule.parts.every((want, i) => matches(parts[start + i], want));
  return SECRETS.some((rule) => (rule.folder ? parts.some((_, start) => runAt(rule, start)) : runAt(rule, parts.length - rule.parts.length)));
}

function matches(part: string | undefined, want: string | RegExp): boolean {
  if (part === undefined) return false;
  return typeof want === 'string' ? part.toLowerCase() === want.toLowerCase() : want.test(part);
}

/** A folder as named and as it resolves (the temp folder is a link on macOS). */
interface Root {
  lexical: string;
  real: string;
}

/** The fence with its folders resolved once per request. */
export class FenceRules {
  private constructor(
    private readonly roots: Root[],
    private readonly corralHome: Root,
    private readonly worktrees: Root,
  ) {}

  static async of(fence: Fence): Promise<FenceRules> {
    const [corralHome, worktrees, ...roots] = await Promise.all([fence.corralHome, fence.worktrees, fence.cwd, ...fence.shared].map(rootOf));
    return new FenceRules(roots, corralHome!, worktrees!);
  }

  /** In Corral's own home, and not in the sessions' worktrees it keeps there (their folders are the sessions'). */
  private inCorralHome(file: string): boolean {
    const within = (root: Root) => insideAnyCase(file, root.lexical) || insideAnyCase(file, root.real);
    return within(this.corralHome) && !(within(this.worktrees) && !sameAnyCase(file, this.worktrees));
  }

  /**
   * Why a path may not be shown, or null. `named` is a path as printed; `leads` is where it
   * resolved or what was opened, and says so in the reason.
   */
  refusal(file: string, how: 'named' | 'leads'): string | null {
    const system = SYSTEM_FOLDERS.find((dir) => insideAnyCase(file, dir));
    if (system) return `${system} is a system folder, which Corral never opens`;
    if (this.inCorralHome(file)) return "this is Corral's own home (its tokens and database), which Corral never opens";
    if (isCredential(file)) return how === 'named' ? 'this looks like a credential file, which Corral never opens' : 'this leads to a credential file, which Corral never opens';
    if (!this.rootOf(file, how)) return how === 'named' ? "outside the session's folder and the temp folder" : "a link that leads outside the session's folder and the temp folder";
    return null;
  }

  /** The fence folder a path is in (as it resolves): a folder listing climbs no higher. */
  rootOf(file: string, how: 'named' | 'leads' = 'leads'): string | null {
    const root = this.roots.find((r) => inside(file, r.real) || (how === 'named' && inside(file, r.lexical)));
    return root ? (inside(file, root.real) ? root.real : root.lexical) : null;
  }
}

async function rootOf(dir: string): Promise<Root> {
  const lexical = path.resolve(dir);
  return { lexical, real: await fsp.realpath(lexical).catch(() => lexical) };
}

const sameAnyCase = (file: string, root: Root) => [root.lexical, root.real].some((dir) => path.relative(dir.toLowerCase(), file.toLowerCase()) === '');

/** For what is never shown: macOS's disks ignore case, so /PRIVATE/ETC is /private/etc. */
function insideAnyCase(file: string, root: string): boolean {
  return inside(file.toLowerCase(), root.toLowerCase());
}
