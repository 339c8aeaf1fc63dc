// The output pump between a session and one viewer: an echo goes out at once, a flood is sent
// in fewer, larger frames, and a viewer that falls behind pauses its source.

import { describe, expect, it, vi } from 'vitest';
import type { Attachment } from '../backends/backend';
import { FLOOD_GATHER_MS, HIGH_WATER, LOW_WATER, OutputPump, STEADY_GATHER_MS, TYPED_MS } from '../streams/outputPump';

const turn = () => new Promise((resolve) => setImmediate(resolve));
const text = (frame: Uint8Array) => new TextDecoder().decode(frame);

function source() {
  const calls: string[] = [];
  const attachment: Attachment = {
    write: () => {},
    resize: () => {},
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    close: () => {},
  };
  return { attachment, calls };
}

describe('the output pump', () => {
  it('sends what came in one turn of the event loop as one frame, at once', async () => {
    const frames: string[] = [];
    const pump = new OutputPump((frame) => frames.push(text(frame)));
    pump.typed();
    pump.push('e');
    pump.push('cho');
    expect(frames).toEqual([]);
    await turn();
    expect(frames).toEqual(['echo']);
    // A keystroke's echo right after another is not held back.
    pump.push('x');
    await turn();
    expect(frames).toEqual(['echo', 'x']);
  });

  it('gathers steady output of a session the viewer has not typed into lately, and sends it at once when the viewer types', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    try {
      const frames: string[] = [];
      const pump = new OutputPump((frame) => frames.push(text(frame)));
      vi.advanceTimersByTime(1_000);
      pump.push('first');
      vi.advanceTimersByTime(0);
      expect(frames).toEqual(['first']); // nothing went lately: at once
      pump.push('line 1\n');
      vi.advanceTimersByTime(2);
      pump.push('line 2\n');
      vi.advanceTimersByTime(2);
      expect(frames).toEqual(['first']);
      vi.advanceTimersByTime(STEADY_GATHER_MS);
      expect(frames).toEqual(['first', 'line 1\nline 2\n']);
      // A key: what was gathered goes at once, and so does the echo after it.
      pump.push('line 3\n');
      vi.advanceTimersByTime(1);
      pump.typed();
      expect(frames.at(-1)).toBe('line 3\n');
      pump.push('k');
      vi.advanceTimersByTime(0);
      expect(frames.at(-1)).toBe('k');
      // Long after the key, steady output is gathered again.
      vi.advanceTimersByTime(TYPED_MS + 1);
      pump.push('a');
      vi.advanceTimersByTime(0);
      pump.push('b');
      vi.advanceTimersByTime(1);
      expect(frames.at(-1)).toBe('a');
      vi.advanceTimersByTime(STEADY_GATHER_MS);
      expect(frames.at(-1)).toBe('b');
    } finally {
      vi.useRealTimers();
    }
  });

  it('under a flood, gathers output until a few milliseconds after the last frame', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    try {
      const frames: string[] = [];
      const pump = new OutputPump((frame) => frames.push(text(frame)));
      pump.push('a'.repeat(20_000));
      vi.advanceTimersByTime(1);
      expect(frames).toHaveLength(1);
      pump.push('b'.repeat(4_000));
      vi.advanceTimersByTime(1);
      pump.push('c'.repeat(4_000));
      vi.advanceTimersByTime(1);
      expect(frames).toHaveLength(1); // still gathering
      vi.advanceTimersByTime(FLOOD_GATHER_MS);
      expect(frames.slice(1)).toEqual(['b'.repeat(4_000) + 'c'.repeat(4_000)]);
      // Once the flood is over, output goes at once again.
      vi.advanceTimersByTime(50);
      pump.push('quiet');
      vi.advanceTimersByTime(0);
      expect(frames.at(-1)).toBe('quiet');
    } finally {
      vi.useRealTimers();
    }
  });

  it('pauses the source when the viewer is more than 350,000 behind, resumes under 250,000', async () => {
    const { attachment, calls } = source();
    const pump = new OutputPump(() => {});
    pump.attach(attachment);
    pump.push('x'.repeat(HIGH_WATER + 1));
    pump.flush();
    expect(calls).toEqual(['pause']);
    pump.ack(HIGH_WATER + 1 - LOW_WATER);
    expect(calls).toEqual(['pause']); // exactly 250,000 behind: not yet
    pump.ack(1);
    expect(calls).toEqual(['pause', 'resume']);
    pump.ack(-5);
    pump.ack(Number.NaN);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('sends a character split across two chunks of bytes whole, in the frame with its end', async () => {
    const frames: Uint8Array[] = [];
    const pump = new OutputPump((frame) => frames.push(frame));
    pump.typed(); // each turn's output at once
    const check = Buffer.from('ok ✓');
    pump.push(check.subarray(0, 4));
    await turn();
    expect(text(frames[0]!)).toBe('ok ');
    pump.push(check.subarray(4, 5));
    await turn();
    expect(frames).toHaveLength(1); // nothing whole yet
    pump.push(Buffer.concat([check.subarray(5), Buffer.from('é')]));
    pump.push('!');
    await turn();
    expect(frames.map(text)).toEqual(['ok ', '✓é!']);
    // A lead byte with no continuation is not held for ever: it goes with what follows it, as U+FFFD.
    pump.push(Buffer.from([0x61, 0xc3]));
    pump.push(Buffer.from('b'));
    await turn();
    expect(text(frames[2]!)).toBe('a\ufffdb');
  });

  it('sends a character its source cut short as U+FFFD, within a chunk or across two: every frame decodes', async () => {
    const frames: Uint8Array[] = [];
    const pump = new OutputPump((frame) => frames.push(frame));
    pump.typed(); // each turn's output at once
    // As tmux wrote to a client that read slowly: 本 (e6 9c ac) cut after two bytes, then its redraw.
    const cut = Buffer.from([0xe6, 0x9c]);
    const redraw = Buffer.from('\u001b[30;1H');
    pump.push(Buffer.concat([Buffer.from('日'), cut, redraw]));
    await turn();
    pump.push(Buffer.concat([Buffer.from('→'), cut]));
    pump.push(redraw);
    await turn();
    const strict = new TextDecoder('utf-8', { fatal: true });
    expect(frames.map((frame) => strict.decode(frame))).toEqual(['日\ufffd\u001b[30;1H', '→\ufffd\u001b[30;1H']);
  });

  it("sends what came last when its source ends, a character left unfinished as U+FFFD, and nothing after", async () => {
    const frames: Uint8Array[] = [];
    const pump = new OutputPump((frame) => frames.push(frame));
    // Output that would gather (the viewer has not typed), its last character cut short.
    pump.push(Buffer.concat([Buffer.from('last line 本'), Buffer.from([0xe6, 0x9c])]));
    pump.end();
    expect(frames.map(text)).toEqual(['last line 本\ufffd']);
    pump.end();
    await new Promise((resolve) => setTimeout(resolve, STEADY_GATHER_MS + 5));
    expect(frames).toHaveLength(1);
  });

  it('sends each frame with a buffer of its own, whatever the chunks were views of', async () => {
    const frames: Uint8Array[] = [];
    const pump = new OutputPump((frame) => frames.push(frame));
    pump.typed(); // each turn's output at once
    const shared = Buffer.from('one two');
    pump.push(shared.subarray(0, 3));
    await turn();
    const own = Buffer.from('x'.repeat(10_000));
    pump.push(own);
    await turn();
    expect(text(frames[0]!)).toBe('one');
    expect(frames[0]!.byteLength).toBe(frames[0]!.buffer.byteLength);
    expect(frames[1]).toBe(own); // a chunk that is its buffer's whole goes as it is
  });

  it('sends each frame as its UTF-8 bytes, and counts the viewer behind in bytes', () => {
    const { attachment, calls } = source();
    const frames: Uint8Array[] = [];
    const pump = new OutputPump((frame) => frames.push(frame));
    pump.attach(attachment);
    // Two bytes a character: fewer characters than the high-water mark, more bytes.
    pump.push('é'.repeat(HIGH_WATER / 2 + 1));
    pump.flush();
    expect(frames[0]).toHaveLength(HIGH_WATER + 2);
    expect(frames[0]!.byteLength).toBe(frames[0]!.buffer.byteLength);
    expect(text(frames[0]!)).toBe('é'.repeat(HIGH_WATER / 2 + 1));
    expect(calls).toEqual(['pause']);
    pump.ack(HIGH_WATER + 2 - LOW_WATER + 1);
    expect(calls).toEqual(['pause', 'resume']);
  });
});
