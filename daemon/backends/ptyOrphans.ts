// The pty backend's agents end with the daemon that owns them. A daemon that dies without
// ending them (kill -9, a crash) leaves any that ignore the terminal's hangup running, with
// nobody to see or stop them (a real Gemini CLI does: a node parent and child). So each agent
// is written down as it starts, and the next daemon ends whatever of them is still running:
// never a session shown as stopped while its agent runs on, never two copies after a start.
//
// An agent is known by its process id together with its start time (so a reused pid is never
// mistaken for it), and ended with every process of its terminal session (node-pty starts it
// as a session leader). Linux only (/proc); elsewhere nothing is recorded or ended.

import fs from 'node:fs';
import path from 'node:path';

export interface RecordedAgent {
  id: string;
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/PID/stat field 22). */
  start: string;
}

const ENDING_WAIT_MS = 3_000;

export class AgentRegistry {
  private readonly agents = new Map<string, RecordedAgent>();

  constructor(private readonly file: string | null) {}

  /** Agents a daemon before this one started and did not see end. */
  leftBehind(): RecordedAgent[] {
    if (!this.file) return [];
    try {
      const listed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as RecordedAgent[];
      return listed.filter((agent) => processStart(agent.pid) === agent.start);
    } catch {
      return [];
    }
  }

  add(id: string, pid: number): void {
    const start = processStart(pid);
    if (start === null) return;
    this.agents.set(id, { id, pid, start });
    this.save();
  }

  remove(id: string): void {
    if (this.agents.delete(id)) this.save();
  }

  /** Forgets what earlier daemons left (once it has been dealt with). */
  reset(): void {
    this.save();
  }

  private save(): void {
    if (!this.file || process.platform !== 'linux') return;
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify([...this.agents.values()]), { mode: 0o600 });
    fs.renameSync(temp, this.file);
  }
}

/** Ends every process of the agent's terminal session: politely, then for good. Returns their pids. */
export async function endAgent(agent: RecordedAgent): Promise<number[]> {
  const members = sessionMembers(agent.pid);
  for (const pid of members) signal(pid, 'SIGTERM');
  const deadline = Date.now() + ENDING_WAIT_MS;
  while (Date.now() < deadline && members.some(alive)) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const pid of members.filter(alive)) signal(pid, 'SIGKILL');
  return members;
}

function processStart(pid: number): string | null {
  const stat = readStat(pid);
  return stat ? (stat[19] ?? null) : null;
}

/** The fields of /proc/PID/stat after the command name (which may hold spaces): [0] is the state. */
function readStat(pid: number): string[] | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Processes whose session id is the leader's pid (stat field 6). */
function sessionMembers(leader: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat[3] === String(leader) && stat[0] !== 'Z') members.push(Number(entry));
  }
  return members;
}

function alive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== null && stat[0] !== 'Z';
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone meanwhile
  }
}
