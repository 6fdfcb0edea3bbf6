import { describe, expect, it } from 'vitest';
import { SIMULATED_UTILIZATION_ANNOTATION, simulatedUtilizationOf } from './gpu-usage.js';

describe('simulatedUtilizationOf reads the simulated-utilization annotation', () => {
  const of = (value: string) =>
    simulatedUtilizationOf({ [SIMULATED_UTILIZATION_ANNOTATION]: value });

  it('takes a percent from 0 to 100, decimals too', () => {
    expect(SIMULATED_UTILIZATION_ANNOTATION).toBe('mgpu.console.io/simulated-utilization');
    expect(of('0')).toBe(0);
    expect(of('80')).toBe(80);
    expect(of(' 12.5 ')).toBe(12.5);
    expect(of('100')).toBe(100);
  });

  it('ignores what is absent or not a percent, so the workload keeps its profile', () => {
    expect(simulatedUtilizationOf(undefined)).toBeUndefined();
    expect(simulatedUtilizationOf({})).toBeUndefined();
    for (const text of ['', '101', '-1', '80%', 'busy', '1e2', 'NaN'])
      expect(of(text), text).toBeUndefined();
  });
});
