import {
  appendLogLines,
  type PodLogEnding,
  type PodLogEvent,
  type PodLogUnavailable,
} from '@mgpu/shared';

/** What the log view holds: the newest lines (bounded), or why there are none, and whether it ended. */
export interface LogView {
  lines: string[];
  unavailable: PodLogUnavailable | undefined;
  ended: PodLogEnding | undefined;
  /**
   * Lines received so far: the view scrolls to the newest on each change. Not `lines.length`,
   * which stays at the bound once the view is full while new lines keep coming.
   */
  appended: number;
}

export const EMPTY_LOG: LogView = {
  lines: [],
  unavailable: undefined,
  ended: undefined,
  appended: 0,
};

/** One `pod.logs` event applied to the view: a pure step, the component only holds the state. */
export function applyLogEvent(view: LogView, event: PodLogEvent): LogView {
  switch (event.type) {
    case 'lines':
      return {
        lines: appendLogLines(event.reset ? [] : view.lines, event.lines),
        unavailable: undefined,
        ended: undefined,
        appended: view.appended + event.lines.length,
      };
    case 'unavailable':
      return { ...view, unavailable: event.reason };
    case 'ended':
      return { ...view, ended: event.reason };
  }
}
