// What a host is asked over ssh, in one `sh -c` script (one connection): whether node, tmux and
// the corral command are there, and if so, `corral endpoint`, which makes sure a daemon serves
// there and says how to reach it. Whatever the person's login shell, the script runs in sh.

import type { MissingPiece } from '../contract/hosts';

const MARK = 'corral-probe';

/** The remote command: a single-quoted `sh -c` script (no quote or backslash of its own inside). */
export function probeCommand(corral: string): string {
  const script = [
    'missing=""',
    'node --version >/dev/null 2>&1 || missing="$missing node"',
    'tmux -V >/dev/null 2>&1 || missing="$missing tmux"',
    `command -v ${corral} >/dev/null 2>&1 || missing="$missing corral"`,
    'pm=""',
    'for p in apt-get dnf yum pacman apk zypper brew; do command -v $p >/dev/null 2>&1 && { pm=$p; break; }; done',
    `if [ -n "$missing" ]; then echo "${MARK} missing$missing pm=$pm"; exit 0; fi`,
    `echo "${MARK} ok"`,
    `exec ${corral} endpoint`,
  ].join('\n');
  return `sh -c '${script}'`;
}

export type ProbeResult = { kind: 'missing'; missing: MissingPiece[] } | { kind: 'endpoint'; protocol: number; url: string; token: string } | { kind: 'unreadable'; output: string };

/** Reads what the probe printed (the login shell may print its own lines first). */
export function readProbe(output: string): ProbeResult {
  const lines = output.split('\n').map((line) => line.trim());
  const start = lines.findIndex((line) => line.startsWith(`${MARK} `));
  if (start < 0) return { kind: 'unreadable', output };
  const words = lines[start]!.split(/\s+/).slice(1);
  if (words[0] === 'missing') {
    const pm = words.find((w) => w.startsWith('pm='))?.slice(3) ?? '';
    const what = words.slice(1).filter((w): w is MissingPiece['what'] => w === 'node' || w === 'tmux' || w === 'corral');
    return { kind: 'missing', missing: what.map((piece) => ({ what: piece, install: installCommand(piece, pm) })) };
  }
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('{')) continue;
    try {
      const endpoint = JSON.parse(line) as { protocol?: unknown; url?: unknown; token?: unknown };
      if (typeof endpoint.url === 'string' && typeof endpoint.token === 'string' && /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+$/.test(endpoint.url)) {
        return { kind: 'endpoint', protocol: Number(endpoint.protocol ?? 0), url: endpoint.url, token: endpoint.token };
      }
    } catch {
      // not the endpoint line
    }
  }
  return { kind: 'unreadable', output: lines.slice(start + 1).join('\n') };
}

const PACKAGES: Record<string, { install: string; node: string }> = {
  'apt-get': { install: 'sudo apt-get install', node: 'nodejs' },
  dnf: { install: 'sudo dnf install', node: 'nodejs' },
  yum: { install: 'sudo yum install', node: 'nodejs' },
  pacman: { install: 'sudo pacman -S', node: 'nodejs' },
  apk: { install: 'sudo apk add', node: 'nodejs' },
  zypper: { install: 'sudo zypper install', node: 'nodejs' },
  brew: { install: 'brew install', node: 'node' },
};

/** The one command that installs a piece, with the host's own package manager when it has one. */
export function installCommand(piece: MissingPiece['what'], pm: string): string {
  if (piece === 'corral') return 'install Corral there (see its README: npm ci, then out/cli/corral.cjs on PATH as corral), or name its path: corral hosts add NAME TARGET --corral PATH';
  const manager = PACKAGES[pm] ?? PACKAGES['apt-get']!;
  return `${manager.install} ${piece === 'node' ? manager.node : 'tmux'}`;
}

/** "tmux is not installed on devbox: sudo apt-get install tmux" (one line per piece). */
export function missingMessage(host: string, missing: MissingPiece[]): string {
  return missing.map((piece) => `${piece.what} is not installed on ${host}: ${piece.install}`).join('\n');
}
