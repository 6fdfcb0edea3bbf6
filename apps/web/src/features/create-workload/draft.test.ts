import { checkRequest, newWorkloadRequest } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { errorsByPath, isFieldPath, mergeErrors } from './draft.js';

describe('mergeErrors', () => {
  it('keeps only cluster-aware rules from the preview and never repeats a rule on a path', () => {
    const local = checkRequest({ ...newWorkloadRequest(), name: 'demo' }, { lang: 'en' });
    const first = local.errors[0];
    if (!first) throw new Error('a new form has errors');
    const merged = mergeErrors(
      local,
      [first, { path: 'containers.0.gpu.model', rule: 'model-unknown', message: 'no such model' }],
      [{ path: 'name', rule: 'name-taken', message: 'taken' }],
    );
    expect(merged.filter((e) => e.rule === first.rule && e.path === first.path)).toHaveLength(1);
    expect(merged.map((e) => e.rule)).toContain('model-unknown');
    expect(errorsByPath(merged).get('name')?.[0]?.rule).toBe('name-taken');
  });

  it('knows which paths have an input', () => {
    expect(isFieldPath('containers.3.gpu.memoryGiB')).toBe(true);
    expect(isFieldPath('containers')).toBe(false);
  });
});
