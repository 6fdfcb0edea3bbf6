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
}

export const EMPTY_LOG: LogView = { lines: [], unavailable: undefined, ended: undefined };

/** One `pod.logs` event applied to the view: a pure step, the component only holds the state. */
export function applyLogEvent(view: LogView, event: PodLogEvent): LogView {
  switch (event.type) {
    case 'lines':
      return {
        lines: appendLogLines(event.reset ? [] : view.lines, event.lines),
        unavailable: undefined,
        ended: undefined,
      };
    case 'unavailable':
      return { ...view, unavailable: event.reason };
    case 'ended':
      return { ...view, ended: event.reason };
  }
}
