// A fake agent that behaves like the real CLIs where Corral has been caught out by them
// (shared/reference/agent-clis.md, "Measured here"):
// - a dead resume key is refused slowly (real CLIs take 5-12 s), after an optional trust prompt;
// - it asks its terminal questions at start (device attributes, background colour) and logs
//   every byte it receives, so a test can see what reached it;
// - text and Enter in one read is a paste: the text stays in the box; Enter alone submits.
// At its prompt, "?" asks the terminal again, "#" prints the terminal's size and "!" floods
// (about 500 KB of lines, then "after the flood"); the message "ask" asks for approval as
// Claude Code does ("1" or Enter approves, Esc denies; any other key is ignored).
// Usage: agent.mjs --conversations DIR --log FILE [--input-log FILE] fresh <id> | resume <key>
// Env: FAKE_DEAD_AFTER (seconds before the dead-key words, default 9), FAKE_TRUST=1 (a trust
//      prompt first), FAKE_QUERIES=1 (ask the terminal), FAKE_EXIT_CODE (of a dead resume, 1),
//      FAKE_BUSY (seconds it reads nothing once its first prompt shows, as Codex at its start:
//      what is typed meanwhile waits in the terminal, and comes in one read after),
//      FAKE_SILENT_UNTIL (a file: it draws nothing until the file is there, as Claude Code offline
//      draws nothing for 18 s).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  if (at < 0) return null;
  const [, value] = argv.splice(at, 2);
  return value;
};
const conversations = option('--conversations');
const log = option('--log');
const inputLog = option('--input-log');
const [mode, key] = argv;
if (log) fs.appendFileSync(log, `agent ${argv.join(' ')}\n`);

const out = (text) => process.stdout.write(text.replace(/\n/g, '\r\n'));
const conversation = key ? path.join(conversations, key) : null;
if (process.stdin.isTTY) process.stdin.setRawMode(true);

/** Each read, as it came: what a real CLI's input loop sees. */
const reads = [];
let wake = null;
// Decoded across reads, as Ink and readline decode: a character split between two reads is whole.
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  if (inputLog) fs.appendFileSync(inputLog, JSON.stringify(text) + '\n');
  reads.push(text);
  wake?.();
});
const nextRead = () => (reads.length ? Promise.resolve(reads.shift()) : new Promise((resolve) => (wake = () => ((wake = null), resolve(reads.shift())))));

async function main() {
  while (process.env.FAKE_SILENT_UNTIL && !fs.existsSync(process.env.FAKE_SILENT_UNTIL)) await new Promise((resolve) => setTimeout(resolve, 50));
  const ask = () => process.stdout.write('\x1b[c\x1b]11;?\x1b\\');
  if (process.env.FAKE_QUERIES === '1') ask();
  if (process.env.FAKE_TRUST === '1') {
    // As Claude Code's: "No" is selected; Enter alone leaves, Down then Enter trusts.
    out('Quick safety check: Is this a project you created or one you trust?\n❯ No, exit\n  Yes, I trust this folder\nEnter to confirm · Esc to cancel\n');
    let trusting = false;
    for (;;) {
      const read = await nextRead();
      if (read === '\x1b[B') trusting = true;
      else if (read === '\x1b[A') trusting = false;
      else if (read.includes('\r')) {
        // Trusted: the question is erased line by line, as Claude Code's renderer erases a dialog it is
        // done with (so it goes from the screen without being scrolled into the history).
        if (trusting) {
          process.stdout.write('\x1b[2K\x1b[1A'.repeat(4) + '\x1b[2K\r');
          break;
        }
        out("Claude Code didn't start because this folder isn't trusted.\n");
        process.exit(1);
      }
    }
  }
  if (mode === 'resume') {
    if (!fs.existsSync(conversation)) {
      await new Promise((resolve) => setTimeout(resolve, Number(process.env.FAKE_DEAD_AFTER ?? 9) * 1000));
      out(`No conversation found with session ID: ${key}\n`);
      process.exit(Number(process.env.FAKE_EXIT_CODE ?? 1));
    }
    out(`RESUMED ${key}\n`);
  } else {
    out(`FRESH START ${key}\n`);
  }
  let box = '';
  out('> ');
  if (process.env.FAKE_BUSY) {
    process.stdin.pause();
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.FAKE_BUSY) * 1000));
    process.stdin.resume();
  }
  for (;;) {
    const read = await nextRead();
    if (read === '\r') {
      // The first message saves the conversation, as real CLIs do.
      if (mode === 'fresh') fs.writeFileSync(conversation, '');
      out(`\nsubmitted: ${box}\n`);
      if (box === 'ask') out(`answer: ${await approval()}\n`);
      out('> ');
      box = '';
    } else if (read.length > 1 && read.includes('\r')) {
      box += read.replace(/\r/g, '\n');
      out(`[Pasted text, ${read.length} characters]`);
    } else if (read.startsWith('\x1b')) {
      // A terminal's answer (or a special key): taken in, never shown as typing.
    } else if (read === '?') {
      ask();
    } else if (read === '!') {
      for (let i = 0; i < 6_000; i++) process.stdout.write(`flood line ${i} ${'x'.repeat(70)}\r\n`);
      out('after the flood\n> ');
    } else if (read === '#') {
      // Asked of the terminal now: Node's rows and columns wait for its SIGWINCH handler, which
      // may run after a key typed right after the resize.
      const size = execFileSync('stty', ['size'], { stdio: ['inherit', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
      out(`\nsize: ${size}\n> `);
    } else if (read === '\x7f') {
      box = box.slice(0, -1);
      out('\b \b');
    } else if (read === '\x03') {
      process.exit(130);
    } else {
      box += read;
      out(read);
    }
  }
}
/** Claude Code's approval menu, laid out as it is: "1" or Enter picks "Yes", Esc is "No"; the screen is cleared after. */
async function approval() {
  out('\n Bash command\n\n   npm run deploy\n   Deploy the app\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. No (esc)\n');
  for (;;) {
    const read = await nextRead();
    const answer = read === '1' || read === '\r' ? 'approved' : read === '\x1b' ? 'denied' : null;
    if (!answer) continue;
    process.stdout.write('\x1b[2J\x1b[H');
    return answer;
  }
}

main();
