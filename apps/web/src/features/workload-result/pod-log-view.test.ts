import { POD_LOG_TAIL_MAX } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { applyLogEvent, EMPTY_LOG } from './pod-log-view.js';

describe('the log view', () => {
  it('follows: new lines go after the tail; a reconnect starts over with the tail', () => {
    let view = applyLogEvent(EMPTY_LOG, { type: 'lines', reset: true, lines: ['a', 'b'] });
    view = applyLogEvent(view, { type: 'lines', reset: false, lines: ['c'] });
    expect(view.lines).toEqual(['a', 'b', 'c']);
    view = applyLogEvent(view, { type: 'lines', reset: true, lines: [] });
    expect(view.lines).toEqual([]);
  });

  it(`holds at most ${POD_LOG_TAIL_MAX} lines, the newest`, () => {
    const many = Array.from({ length: POD_LOG_TAIL_MAX }, (_, index) => `line ${index}`);
    let view = applyLogEvent(EMPTY_LOG, { type: 'lines', reset: true, lines: many });
    view = applyLogEvent(view, { type: 'lines', reset: false, lines: ['newest'] });
    expect(view.lines).toHaveLength(POD_LOG_TAIL_MAX);
    expect(view.lines[0]).toBe('line 1');
    expect(view.lines.at(-1)).toBe('newest');
  });

  it('counts every line that came, also once full: the view keeps scrolling to the newest', () => {
    const many = Array.from({ length: POD_LOG_TAIL_MAX }, (_, index) => `line ${index}`);
    const full = applyLogEvent(EMPTY_LOG, { type: 'lines', reset: true, lines: many });
    const next = applyLogEvent(full, { type: 'lines', reset: false, lines: ['newest'] });
    expect(next.lines).toHaveLength(full.lines.length);
    expect(next.appended).toBeGreaterThan(full.appended);
  });

  it('says why there is no log until lines come, and keeps the lines when the stream ends', () => {
    let view = applyLogEvent(EMPTY_LOG, { type: 'unavailable', reason: 'not-started', detail: '' });
    expect(view.unavailable).toBe('not-started');
    view = applyLogEvent(view, { type: 'lines', reset: true, lines: ['started'] });
    expect(view.unavailable).toBeUndefined();
    view = applyLogEvent(view, { type: 'ended', reason: 'closed' });
    expect(view).toMatchObject({ lines: ['started'], unavailable: undefined, ended: 'closed' });
  });
});
