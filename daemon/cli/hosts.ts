// `corral hosts add|ls|rm`: the remote hosts of this home's daemon, and how each link is doing.

import type { Contract } from '../contract/contract';
import { hostStateWords } from '../contract/hosts';
import { terminalJson, terminalSafe } from './terminalText';

interface Tools {
  print(text: string): number;
  UsageError: new (message: string) => Error;
}

export async function hostsCommand(args: string[], options: { corral?: string; json: boolean }, daemon: () => Promise<Contract>, { print, UsageError }: Tools): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === 'add') {
    if (rest.length !== 2) throw new UsageError('hosts add needs NAME and [user@]host[:port]');
    const host = await (await daemon()).addHost({ name: rest[0]!, target: rest[1]!, ...(options.corral === undefined ? {} : { corral: options.corral }) });
    return print(`${host.name}: added (${host.target}); \`corral hosts ls\` shows how its link is doing`);
  }
  if (options.corral !== undefined) throw new UsageError('--corral goes with hosts add');
  if (verb === 'ls' && rest.length === 0) {
    const { hosts } = await (await daemon()).listHosts();
    if (options.json) return print(terminalJson(hosts));
    if (hosts.length === 0) return print('no hosts (add one: corral hosts add NAME [user@]host[:port])');
    const rows = hosts.map((h) => [h.name, h.target, hostStateWords(h)].map((cell) => terminalSafe(cell, { lines: false })));
    const widths = [0, 1].map((i) => Math.max(...[['NAME', 'TARGET'], ...rows].map((r) => r[i]!.length)));
    const lines = [['NAME', 'TARGET', 'STATE'], ...rows].map((r) => `${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`);
    // What is missing, with the command that installs it, under the table.
    for (const h of hosts) if (h.state === 'missing' && h.message) lines.push('', h.message);
    return print(lines.join('\n'));
  }
  if (verb === 'rm' && rest.length === 1) {
    await (await daemon()).removeHost({ name: rest[0]! });
    return print(`${rest[0]}: removed (its sessions keep running there)`);
  }
  throw new UsageError(verb === undefined ? 'hosts needs add, ls or rm' : `unknown or incomplete: hosts ${args.join(' ')}`);
}
