import { describe, expect, it } from 'vitest';
import { parseExposition } from '../test-support/prometheus-text.js';
import { exporterText } from './exporter-text.js';

describe('exporterText', () => {
  it('escapes label values as the format wants, so any model name reads back as it was', () => {
    const model = 'Acme "X1" \\ 80GB\nrev2';
    const text = exporterText({
      at: 0,
      simulated: true,
      cards: [
        {
          node: 'n-0',
          card: 0,
          uuid: 'GPU-0',
          model,
          memoryMiB: null,
          utilizationPercent: 12.5,
          memoryUsedMiB: null,
          memoryFreeMiB: null,
        },
      ],
      instances: [],
    });
    const families = parseExposition(text);
    const [sample] = families.get('DCGM_FI_DEV_GPU_UTIL')?.samples ?? [];
    expect(sample).toEqual({
      labels: { gpu: '0', UUID: 'GPU-0', modelName: model, Hostname: 'n-0' },
      value: 12.5,
    });
    expect(families.get('DCGM_FI_PROF_GR_ENGINE_ACTIVE')?.samples[0]?.value).toBe(0.125);
    // A card whose memory is unknown has no memory series at all, rather than a 0.
    expect(families.get('DCGM_FI_DEV_FB_USED')?.samples).toEqual([]);
  });
});
