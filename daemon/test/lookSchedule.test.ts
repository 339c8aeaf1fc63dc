import { describe, expect, it } from 'vitest';
import { IDLE_LOOK_MS, LookSchedule } from '../engine/lookSchedule';

// The rule itself, on an injected clock; the git watcher and the worktree looks are tested with
// real git in knowing.test.ts and worktreeSessions.test.ts.
describe('when a thing is looked at again', () => {
  /** The ticks (ms) at which `key` is due, for stamps and work given per tick. */
  function dueAt(schedule: LookSchedule<string>, ticks: { at: number; stamp?: string; working?: boolean }[]): number[] {
    const due: number[] = [];
    for (const tick of ticks) {
      schedule.startTick(tick.at);
      if (tick.working) schedule.sawWork('a', true);
      if (schedule.due('a', tick.stamp ?? 's1')) due.push(tick.at);
    }
    return due;
  }

  it('looks first, then when the stamp changes, and otherwise only every IDLE_LOOK_MS', () => {
    const ticks = [
      { at: 0, stamp: 's1' },
      { at: 5_000, stamp: 's1' },
      { at: 10_000, stamp: 's2' }, // a commit
      { at: 15_000, stamp: 's2' },
      { at: 5_000 + IDLE_LOOK_MS, stamp: 's2' },
      { at: 10_000 + IDLE_LOOK_MS, stamp: 's2' }, // a file edited by hand shows in no stamp
      { at: 15_000 + IDLE_LOOK_MS, stamp: 's2' },
    ];
    expect(dueAt(new LookSchedule(0), ticks)).toEqual([0, 10_000, 10_000 + IDLE_LOOK_MS]);
  });

  it('while at work looks at every tick, or every workingEveryMs, and once more after the work', () => {
    const ticks = [0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000].map((at) => ({ at, working: at <= 20_000 }));
    expect(dueAt(new LookSchedule(0), ticks)).toEqual([0, 5_000, 10_000, 15_000, 20_000, 25_000]);
    // Every 15 s at work: 0 and 15 000; at 25 000 the work (last seen at 20 000) is after the last look.
    expect(dueAt(new LookSchedule(15_000), ticks)).toEqual([0, 15_000, 25_000]);
  });

  it('looks once after work seen between two ticks', () => {
    const schedule = new LookSchedule<string>(15_000);
    schedule.startTick(0);
    expect(schedule.due('a', 's')).toBe(true);
    schedule.startTick(5_000);
    expect(schedule.due('a', 's')).toBe(false);
    // Seen at work at 7 000 by another watcher, quiet again by the tick at 10 000.
    schedule.startTick(10_000);
    schedule.sawWork('a', false, 7_000);
    expect(schedule.due('a', 's')).toBe(true);
    schedule.startTick(15_000);
    schedule.sawWork('a', false, 7_000);
    expect(schedule.due('a', 's')).toBe(false);
  });

  it('counts a look from when it began: work seen before it is work it saw', () => {
    const schedule = new LookSchedule<string>(15_000);
    // The tick begins at 0; the looks before this one take 3 s.
    schedule.startTick(0);
    expect(schedule.due('a', 's', 3_000)).toBe(true);
    schedule.startTick(5_000);
    schedule.sawWork('a', false, 2_000);
    expect(schedule.due('a', 's', 5_000)).toBe(false);
    schedule.sawWork('a', false, 4_000);
    expect(schedule.due('a', 's', 5_000)).toBe(true);
    // At work at the tick: its work goes on past a look that began later, so it is looked at
    // once more when it has gone quiet.
    const busy = new LookSchedule<string>(0);
    busy.startTick(0);
    busy.sawWork('b', true);
    expect(busy.due('b', 's', 3_000)).toBe(true);
    busy.startTick(5_000);
    expect(busy.due('b', 's', 5_000)).toBe(true);
    busy.startTick(10_000);
    expect(busy.due('b', 's', 10_000)).toBe(false);
  });

  it('takes at most three idle looks a tick, and the rest at the next', () => {
    const schedule = new LookSchedule<string>(0);
    const keys = ['a', 'b', 'c', 'd', 'e'];
    schedule.startTick(0);
    for (const key of keys) expect(schedule.due(key, 's')).toBe(true);
    schedule.startTick(IDLE_LOOK_MS);
    expect(keys.filter((key) => schedule.due(key, 's'))).toEqual(['a', 'b', 'c']);
    schedule.startTick(IDLE_LOOK_MS + 5_000);
    expect(keys.filter((key) => schedule.due(key, 's'))).toEqual(['d', 'e']);
  });

  it('a look made outside a tick counts; a forgotten thing is looked at next', () => {
    const schedule = new LookSchedule<string>(0);
    schedule.startTick(0);
    expect(schedule.due('a', 's1')).toBe(true);
    schedule.lookedAt('a', 1_000, 's2');
    schedule.startTick(5_000);
    expect(schedule.due('a', 's2')).toBe(false);
    schedule.forget('a');
    expect(schedule.due('a', 's2')).toBe(true);
    schedule.sawWork('a', true);
    schedule.drop('a');
    schedule.startTick(10_000);
    expect(schedule.due('a', 's2')).toBe(true);
    schedule.startTick(15_000);
    expect(schedule.due('a', 's2')).toBe(false);
  });
});
