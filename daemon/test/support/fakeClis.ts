// The fake CLIs that tests, browser tests and the benchmark run instead of real agents: each
// program written once, each catalogue entry written once. A world (world.ts) installs the
// ones it names in its own bin and catalogue.

import path from 'node:path';

/** Where a world's fakes log their launches and keep their conversations. */
export interface FakePaths {
  /** One line per launch of a fake: "<program> <args…>". */
  argvLog: string;
  /** Every read the `agent` fakes got, one JSON string a line. */
  inputLog: string;
  /** A file here named after a key makes that conversation resumable. */
  conversations: string;
}

export const AGENT_SCRIPT = path.join(import.meta.dirname, 'fakes', 'agent.mjs');

const agent = (w: FakePaths) =>
  `#!/bin/sh\nexec '${process.execPath}' '${AGENT_SCRIPT}' --conversations '${w.conversations}' --log '${w.argvLog}' --input-log '${w.inputLog}' "$@"\n`;

/** The programs, by the file name a world's bin gets. */
export const FAKE_PROGRAMS = {
  /**
   * A fake agent: `fresh <id>` starts a conversation, saved at the first line typed; `resume
   * <key>` resumes one if it exists, else says so after FAKER_REFUSE_AFTER seconds (0.2). A
   * FRESH_FAILS file among the conversations makes a fresh start fail. At its prompt, "size"
   * prints the terminal's size, "ask" asks a question, "answer" clears the screen, "crash" exits with code 2 ("crash-later" once a CRASH_NOW file is among the conversations), "many" prints 60 lines, "flood" 40,000 (2.5 MB), "colors" the 16 ANSI colours (and dim), "links" two OSC 8 hyperlinks (https: and javascript:), "bidi" a name reordered by a right-to-left override.
   */
  faker: (w: FakePaths) => `#!/bin/bash
echo "faker $*" >> '${w.argvLog}'
if [ "$1" = "resume" ]; then
  if [ -e '${w.conversations}'/"$2" ]; then
    echo "RESUMED $2"
  else
    sleep "\${FAKER_REFUSE_AFTER:-0.2}"
    echo "No conversation found with session ID: $2"
    exit 1
  fi
else
  if [ -e '${w.conversations}/FRESH_FAILS' ]; then echo "fresh start failed"; exit 3; fi
  echo "FRESH START $2"
fi
key="$2"
# An echoing prompt. Like a real agent, the conversation is saved at the first message.
while IFS= read -r line; do
  [ "$1" = "fresh" ] && touch '${w.conversations}'/"$key"
  case "$line" in
    size) echo "size: $(stty size)";;
    ask) echo "Do you want to proceed?";;
    answer) printf '\\033[2J\\033[H'; echo "answered";;
    crash) echo "crashing"; exit 2;;
    crash-later) until [ -e '${w.conversations}/CRASH_NOW' ]; do sleep 0.05; done; echo "crashing"; exit 2;;
    many) seq 1 60 | sed 's/^/line /';;
    flood) seq -f 'flood line %06g the quick brown fox jumps over the lazy dog' 1 40000;;
    colors) for c in 30 31 32 33 34 35 36 37 90 91 92 93 94 95 96 97; do printf '\\033[%sm colour %s \\033[2m dim \\033[0m\\n' "$c" "$c"; done;;
    bidi) printf 'run "\\342\\200\\256hs.fdp\\342\\200\\254" now\\n';;
    links) printf '\\033]8;;https://example.com/osc8\\033\\\\a web link\\033]8;;\\033\\\\ and \\033]8;;javascript:alert(1)\\033\\\\a script link\\033]8;;\\033\\\\\\n';;
    *) echo "echo: $line";;
  esac
done
exec sleep 600
`,
  /**
   * An agent that changes its folder as it starts (src/app.js edited, added.txt and a binary
   * logo.bin added, README.md deleted, and EDITED said), then echoes every line it reads, as the
   * faker does.
   */
  editor: () => `#!/bin/bash
printf 'one\\nTWO\\nthree\\n' > src/app.js
echo new > added.txt
printf 'PNG\\000\\001' > logo.bin
rm -f README.md
echo EDITED
while IFS= read -r line; do echo "echo: $line"; done
exec sleep 600
`,
  /** Fakes that behave like the real CLIs where Corral has been caught out (fakes/agent.mjs). */
  agent,
  keeper: agent,
  /** Prints a line, then `cat`s what it is sent: the desktop app's test agent. */
  'hello-agent': () => '#!/bin/bash\necho "HELLO FROM THE AGENT"\nexec cat\n',
  /** Takes every key without echo: the benchmark's echo latency agent (the terminal echoes). */
  echoer: () => '#!/bin/bash\nstty -icanon\nexec cat > /dev/null\n',
  /** Like yes(1), but every line numbered: a terminal redrawing old lines is not new output. */
  yesagent: () => `#!/bin/bash\nexec perl -e '$|=1; my $i = 0; while (1) { print ++$i, " the quick brown fox jumps over the lazy dog\\n" }'\n`,
  /** Says READY at once: the benchmark's time to a live tab. */
  ready: () => '#!/bin/bash\necho READY\nexec cat\n',
  /** About 250 KB/s of lines stamped with the time in ms: the benchmark's busy agents. */
  busy: () => `#!/bin/bash\nexec perl -MTime::HiRes=time -e '$|=1; while (1) { printf("%.3f %s\\n", time()*1000, "x" x 60) for 1..40; select(undef,undef,undef,0.01) }'\n`,
  /** Every resume is dead; both it and the fresh start print the time in ms: the benchmark's fallback. */
  stamper: () => '#!/bin/bash\nif [ "$1" = resume ]; then echo "DEAD $(date +%s%3N)"; exit 1; fi\necho "FRESH $(date +%s%3N)"\nexec cat\n',
} satisfies Record<string, (w: FakePaths) => string>;

/** The benchmark's flood: waits for a line, then `cat`s the file, then stays (as an agent does). */
export const floodProgram = (file: string) => `#!/bin/bash\nread -r go\ncat '${file}'\nexec cat\n`;

/** The catalogue entries, by CLI name. */
export const FAKE_CLIS = {
  faker: () => `
[cli.faker]
label   = "Faker"
command = "faker"
args    = ["fresh", "{id}"]
resume  = ["resume", "{cli_session_id}"]
color   = "#d97757"
`,
  /** The faker, whose question is one that needs you. */
  asker: () => `
[cli.asker]
label   = "Asker"
command = "faker"
args    = ["fresh", "{id}"]
resume  = ["resume", "{cli_session_id}"]
color   = "#4285f4"
attention = ['Do you want to proceed\\?']
`,
  /** The `agent` fake with its approval question ("ask") as one that needs you, answered with Claude Code's keys. */
  approver: () => `
[cli.approver]
label   = "Approver"
command = "agent"
args    = ["fresh", "{id}"]
color   = "#d97757"
attention = ['Do you want to proceed\\?']
answers = { approve = "1", deny = "\\u001b" }
`,
  editor: () => `
[cli.editor]
label   = "Editor"
command = "editor"
color   = "#3fb950"
`,
  /** A CLI that is not installed. */
  ghost: () => `
[cli.ghost]
label   = "Ghost Agent"
command = "no-such-agent-on-this-machine"
`,
  /**
   * `agent` knows a dead key only by its words, which come after FAKE_DEAD_AFTER seconds (9 by
   * default, as slow as the real ones); `keeper` also tells Corral where it keeps its
   * conversations, so a dead key is known at once.
   */
  agent: () => `
[cli.agent]
label    = "Agent"
command  = "agent"
args     = ["fresh", "{id}"]
resume   = ["resume", "{cli_session_id}"]
dead_key = 'No conversation found with session ID: {cli_session_id}'
`,
  keeper: (w: FakePaths) => `
[cli.keeper]
label    = "Keeper"
command  = "keeper"
args     = ["fresh", "{id}"]
resume   = ["resume", "{cli_session_id}"]
dead_key = 'No conversation found with session ID: {cli_session_id}'
conversation = "${w.conversations}/{cli_session_id}"
`,
  hello: () => '\n[cli.hello]\nlabel = "Hello"\ncommand = "hello-agent"\n',
  flood: () => '\n[cli.flood]\ncommand = "flood"\n',
  echoer: () => '\n[cli.echoer]\ncommand = "echoer"\n',
  yes: () => '\n[cli.yes]\ncommand = "yesagent"\n',
  ready: () => '\n[cli.ready]\ncommand = "ready"\n',
  busy: () => '\n[cli.busy]\ncommand = "busy"\n',
  stamper: () => '\n[cli.stamper]\ncommand = "stamper"\nargs = ["fresh", "{id}"]\nresume = ["resume", "{cli_session_id}"]\n',
} satisfies Record<string, (w: FakePaths) => string>;

export type FakeProgram = keyof typeof FAKE_PROGRAMS;
export type FakeCli = keyof typeof FAKE_CLIS;

/** A catalogue (clis.toml) of the named fake CLIs. */
export function fakeCatalogue(w: FakePaths, clis: readonly FakeCli[]): string {
  return clis.map((name) => FAKE_CLIS[name](w)).join('');
}
