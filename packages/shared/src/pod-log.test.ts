import { describe, expect, it } from 'vitest';
import {
  appendLogLines,
  LogLineSplitter,
  LogResumeCursor,
  logLineTime,
  POD_LOG_MAX_LINE,
  podLogUnavailableOf,
} from './pod-log.js';

const status = (code: number, message = '') => ({ code, reason: '', message, causes: [] });

describe('a log stream into lines', () => {
  it('joins a line split across two reads and keeps the unfinished one until its end', () => {
    const splitter = new LogLineSplitter();
    expect(splitter.push('step 1 do')).toEqual([]);
    expect(splitter.push('ne\nstep 2')).toEqual(['step 1 done']);
    expect(splitter.push(' done\n')).toEqual(['step 2 done']);
    expect(splitter.flush()).toEqual([]);
  });

  it('cuts a line longer than the bound, so what waits for a newline stays bounded', () => {
    const splitter = new LogLineSplitter();
    const [cut] = splitter.push('x'.repeat(POD_LOG_MAX_LINE + 10));
    expect(cut).toHaveLength(POD_LOG_MAX_LINE);
    expect(splitter.flush()).toEqual([]);
  });

  it('gives the last line when the log ends without a newline', () => {
    const splitter = new LogLineSplitter();
    splitter.push('a\nb');
    expect(splitter.flush()).toEqual(['b']);
  });
});

describe('the view buffer', () => {
  it('keeps only the newest lines', () => {
    expect(appendLogLines(['1', '2', '3'], ['4', '5'], 4)).toEqual(['2', '3', '4', '5']);
    expect(appendLogLines([], ['a'], 4)).toEqual(['a']);
  });
});

describe('a refused log call', () => {
  it('is unavailable, not an error, where kube-apiserver could not reach a kubelet', () => {
    expect(podLogUnavailableOf(status(500, 'dial tcp: lookup node-1: no such host'))).toBe(
      'no-kubelet',
    );
    // kube-apiserver's own words (its transport error to the kubelet, quoted in a 500).
    expect(
      podLogUnavailableOf(
        status(
          500,
          'Get "https://mgpu-a100-0:10250/containerLogs/default/p/worker?follow=true": dial tcp: lookup mgpu-a100-0 on 127.0.0.53:53: server misbehaving',
        ),
      ),
    ).toBe('no-kubelet');
    expect(
      podLogUnavailableOf(status(500, 'no preferred addresses found; known addresses: []')),
    ).toBe('no-kubelet');
    // The embedded cluster's API server when it runs without node agents.
    expect(podLogUnavailableOf(status(500, 'no kubelet answers for node mgpu-a100-0'))).toBe(
      'no-kubelet',
    );
  });

  it('stays an error, with its message, when the API server fails for another reason', () => {
    expect(podLogUnavailableOf(status(502))).toBeUndefined();
    expect(podLogUnavailableOf(status(500, 'etcdserver: request timed out'))).toBeUndefined();
    expect(
      podLogUnavailableOf(status(503, 'the server is currently unable to handle the request')),
    ).toBeUndefined();
  });

  it('is "not started" for a pod with no node (204) or a container waiting to start', () => {
    expect(podLogUnavailableOf(status(204))).toBe('not-started');
    expect(
      podLogUnavailableOf(
        status(400, 'container "main" in pod "p" is waiting to start: ContainerCreating'),
      ),
    ).toBe('not-started');
    expect(podLogUnavailableOf(status(404, 'pods "p" not found'))).toBe('pod-gone');
  });

  it('stays an error when RBAC refuses it or the container is unknown', () => {
    expect(podLogUnavailableOf(status(403, 'forbidden'))).toBeUndefined();
    expect(podLogUnavailableOf(status(400, 'container x is not valid for pod p'))).toBeUndefined();
  });
});

describe("a follow reopened from the last line's time", () => {
  it('reads the time of a timestamped line, comparable as text', () => {
    expect(logLineTime('2026-12-06T03:00:01.5Z a')).toBe('2026-12-06T03:00:01.500000000Z');
    expect(logLineTime('2026-12-06T03:00:01Z a')).toBe('2026-12-06T03:00:01.000000000Z');
    expect(logLineTime('no time here')).toBeUndefined();
  });

  it("asks from the last line's second and drops what the reopened call sends again", () => {
    const cursor = new LogResumeCursor();
    expect(cursor.sinceTime()).toBeUndefined();
    const first = [
      '2026-12-06T03:00:00.100Z a',
      '2026-12-06T03:00:01.200Z b',
      '2026-12-06T03:00:01.200Z c',
    ];
    expect(cursor.fresh(first)).toEqual(first);
    expect(cursor.sinceTime()).toBe('2026-12-06T03:00:01Z');
    cursor.resume();
    expect(
      cursor.fresh([
        '2026-12-06T03:00:01.000Z older in that second',
        '2026-12-06T03:00:01.200Z b',
        '2026-12-06T03:00:01.200Z c',
        '2026-12-06T03:00:01.200Z d at the same time, new',
        '2026-12-06T03:00:02Z e',
      ]),
    ).toEqual(['2026-12-06T03:00:01.200Z d at the same time, new', '2026-12-06T03:00:02Z e']);
  });
});
