import { useState, useSyncExternalStore } from 'react';
import type { AllocationModel } from './allocation-model.js';

/**
 * The model's version, re-rendering the caller on every applied batch (once per animation
 * frame at most): for the parts operators watch change by change, such as the rows.
 */
export function useModelVersion(model: AllocationModel): number {
  return useSyncExternalStore(model.subscribe, model.getVersion);
}

/**
 * The model's version, re-rendering the caller at most once per `intervalMs`: the first change
 * after a quiet spell shows in its own frame, later ones together with the next update, which
 * runs in an animation frame like the stream's batches. For summaries over the whole cluster,
 * whose every figure moves with every batch at 100 changes a second.
 */
export function useThrottledModelVersion(
  model: AllocationModel,
  intervalMs: number,
  /** Starts this much later in the interval, so two summaries do not redraw in the same frame. */
  phaseMs = 0,
): number {
  const [clock] = useState(() => throttledClock(model, intervalMs, phaseMs));
  return useSyncExternalStore(clock.subscribe, clock.getVersion);
}

function throttledClock(model: AllocationModel, intervalMs: number, phaseMs: number) {
  let shown = model.version;
  let shownAt = phaseMs > 0 ? performance.now() - intervalMs + phaseMs : Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let frame: number | undefined;
  let listener: (() => void) | undefined;

  const show = () => {
    frame = undefined;
    shown = model.version;
    shownAt = performance.now();
    listener?.();
  };
  const onChange = () => {
    if (timer !== undefined || frame !== undefined || model.version === shown) return;
    const wait = shownAt + intervalMs - performance.now();
    // Called from the stream's frame: show it in that frame.
    if (wait <= 0) show();
    else
      timer = setTimeout(() => {
        timer = undefined;
        // Hidden tabs get no frames: the stream's slow pace there is slow enough.
        if (document.hidden) show();
        else frame = requestAnimationFrame(show);
      }, wait);
  };

  return {
    subscribe(next: () => void): () => void {
      listener = next;
      const unsubscribe = model.subscribe(onChange);
      // A batch applied between the first render and this subscription.
      onChange();
      return () => {
        unsubscribe();
        listener = undefined;
        clearTimeout(timer);
        if (frame !== undefined) cancelAnimationFrame(frame);
        timer = undefined;
        frame = undefined;
      };
    },
    getVersion: () => shown,
  };
}
