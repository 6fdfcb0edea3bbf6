/**
 * The tables of Kubernetes' `pkg/controller/deployment/rolling_test.go` (and `ResolveFenceposts`
 * of `deployment_util_test.go`), run against the pure arithmetic the deployment controller uses.
 */
import { describe, expect, it } from 'vitest';
import {
  cleanupUnhealthyReplicas,
  type IntOrPercent,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  resolveFenceposts,
  scaleDownOldReplicaSetsForRollingUpdate,
} from './rolling-update.js';

describe('resolveFenceposts', () => {
  it.each([
    { maxSurge: '0%', maxUnavailable: '0%', desired: 0, surge: 0, unavailable: 1 },
    { maxSurge: '39%', maxUnavailable: '39%', desired: 10, surge: 4, unavailable: 3 },
    { maxSurge: 0, maxUnavailable: '39%', desired: 10, surge: 0, unavailable: 3 },
    { maxSurge: '39%', maxUnavailable: 0, desired: 10, surge: 4, unavailable: 0 },
    { maxSurge: 0, maxUnavailable: 0, desired: 10, surge: 0, unavailable: 1 },
    { maxSurge: undefined, maxUnavailable: undefined, desired: 10, surge: 3, unavailable: 2 },
  ] satisfies {
    maxSurge: IntOrPercent;
    maxUnavailable: IntOrPercent;
    desired: number;
    surge: number;
    unavailable: number;
  }[])(
    'maxSurge $maxSurge, maxUnavailable $maxUnavailable of $desired → $surge, $unavailable',
    (test) => {
      expect(resolveFenceposts(test.maxSurge, test.maxUnavailable, test.desired)).toEqual({
        maxSurge: test.surge,
        maxUnavailable: test.unavailable,
      });
    },
  );
});

describe('reconcileNewReplicaSet (TestDeploymentController_reconcileNewReplicaSet)', () => {
  it.each([
    { deploymentReplicas: 10, maxSurge: 0, oldReplicas: 10, newReplicas: 0, expected: undefined },
    { deploymentReplicas: 10, maxSurge: 2, oldReplicas: 10, newReplicas: 0, expected: 2 },
    { deploymentReplicas: 10, maxSurge: 2, oldReplicas: 5, newReplicas: 0, expected: 7 },
    { deploymentReplicas: 10, maxSurge: 2, oldReplicas: 10, newReplicas: 2, expected: undefined },
    // Should scale down.
    { deploymentReplicas: 10, maxSurge: 2, oldReplicas: 2, newReplicas: 11, expected: 10 },
  ])(
    'desired $deploymentReplicas, surge $maxSurge, old $oldReplicas, new $newReplicas → $expected',
    (test) => {
      const { maxSurge } = resolveFenceposts(test.maxSurge, 0, test.deploymentReplicas);
      const newSet = { replicas: test.newReplicas, availableReplicas: 0 };
      const oldSet = { replicas: test.oldReplicas, availableReplicas: 0 };
      expect(
        reconcileNewReplicaSet(test.deploymentReplicas, maxSurge, [newSet, oldSet], newSet),
      ).toBe(test.expected);
    },
  );
});

describe('reconcileOldReplicaSets (TestDeploymentController_reconcileOldReplicaSets)', () => {
  it.each([
    {
      deploymentReplicas: 10,
      maxUnavailable: 0,
      oldReplicas: 10,
      newReplicas: 0,
      readyPodsFromOldRS: 10,
      readyPodsFromNewRS: 0,
      expectedOldReplicas: 9,
    },
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      oldReplicas: 10,
      newReplicas: 0,
      readyPodsFromOldRS: 10,
      readyPodsFromNewRS: 0,
      expectedOldReplicas: 8,
    },
    // Unhealthy replicas of the old set are cleaned up.
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      oldReplicas: 10,
      newReplicas: 0,
      readyPodsFromOldRS: 8,
      readyPodsFromNewRS: 0,
      expectedOldReplicas: 8,
    },
    // One unhealthy replica cleaned up, and one ready pod scaled down.
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      oldReplicas: 10,
      newReplicas: 0,
      readyPodsFromOldRS: 9,
      readyPodsFromNewRS: 0,
      expectedOldReplicas: 8,
    },
    // The new set's unavailable pods leave no room to scale the old one down further.
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      oldReplicas: 8,
      newReplicas: 2,
      readyPodsFromOldRS: 8,
      readyPodsFromNewRS: 0,
      expectedOldReplicas: 8,
    },
  ])(
    'desired $deploymentReplicas, maxUnavailable $maxUnavailable, old $oldReplicas ($readyPodsFromOldRS ready), new $newReplicas ($readyPodsFromNewRS ready) → old $expectedOldReplicas',
    (test) => {
      const { maxUnavailable } = resolveFenceposts(0, test.maxUnavailable, test.deploymentReplicas);
      const result = reconcileOldReplicaSets(
        test.deploymentReplicas,
        maxUnavailable,
        [{ replicas: test.oldReplicas, availableReplicas: test.readyPodsFromOldRS }],
        { replicas: test.newReplicas, availableReplicas: test.readyPodsFromNewRS },
      );
      expect(result.replicas).toEqual([test.expectedOldReplicas]);
      expect(result.scaledDown > 0).toBe(test.expectedOldReplicas !== test.oldReplicas);
    },
  );
});

describe('cleanupUnhealthyReplicas (TestDeploymentController_cleanupUnhealthyReplicas)', () => {
  it.each([
    { oldReplicas: 10, readyPods: 8, maxCleanupCount: 1, cleanupCountExpected: 1 },
    { oldReplicas: 10, readyPods: 8, maxCleanupCount: 3, cleanupCountExpected: 2 },
    { oldReplicas: 10, readyPods: 8, maxCleanupCount: 0, cleanupCountExpected: 0 },
    { oldReplicas: 10, readyPods: 10, maxCleanupCount: 3, cleanupCountExpected: 0 },
  ])(
    'old $oldReplicas with $readyPods ready, at most $maxCleanupCount → $cleanupCountExpected',
    (test) => {
      const result = cleanupUnhealthyReplicas(
        [{ replicas: test.oldReplicas, availableReplicas: test.readyPods }],
        test.maxCleanupCount,
      );
      expect(result.cleanedUp).toBe(test.cleanupCountExpected);
      expect(result.replicas).toEqual([test.oldReplicas - test.cleanupCountExpected]);
    },
  );
});

describe('scaleDownOldReplicaSetsForRollingUpdate (TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate)', () => {
  it.each([
    {
      deploymentReplicas: 10,
      maxUnavailable: 0,
      readyPods: 10,
      oldReplicas: 10,
      expectedOldReplicas: 9,
    },
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      readyPods: 10,
      oldReplicas: 10,
      expectedOldReplicas: 8,
    },
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      readyPods: 8,
      oldReplicas: 10,
      expectedOldReplicas: 10,
    },
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      readyPods: 10,
      oldReplicas: 0,
      expectedOldReplicas: 0,
    },
    {
      deploymentReplicas: 10,
      maxUnavailable: 2,
      readyPods: 1,
      oldReplicas: 10,
      expectedOldReplicas: 10,
    },
  ])(
    'desired $deploymentReplicas, maxUnavailable $maxUnavailable, old $oldReplicas with $readyPods ready → $expectedOldReplicas',
    (test) => {
      const { maxUnavailable } = resolveFenceposts(0, test.maxUnavailable, test.deploymentReplicas);
      const oldSet = { replicas: test.oldReplicas, availableReplicas: test.readyPods };
      const result = scaleDownOldReplicaSetsForRollingUpdate(
        test.deploymentReplicas,
        maxUnavailable,
        [oldSet],
        [oldSet],
      );
      expect(result.replicas).toEqual([test.expectedOldReplicas]);
      expect(result.scaledDown).toBe(test.oldReplicas - test.expectedOldReplicas);
    },
  );

  it('scales the oldest set first, then the next, within what availability allows', () => {
    const oldest = { replicas: 2, availableReplicas: 2 };
    const older = { replicas: 5, availableReplicas: 5 };
    const newSet = { replicas: 5, availableReplicas: 5 };
    const result = scaleDownOldReplicaSetsForRollingUpdate(
      10,
      2,
      [oldest, older, newSet],
      [oldest, older],
    );
    expect(result).toEqual({ replicas: [0, 3], scaledDown: 4 });
  });
});
