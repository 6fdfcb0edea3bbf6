import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigMapHistoryStore, type HistoryStore } from '@mgpu/api';
import { isNotFound, LeaderElector, makeClients, toKubeError } from '@mgpu/kube-client';
import type { BffOptions } from '../bff-options.js';
import type { SessionSeal } from '../identity/session-seal.js';
import type { ConsoleObjects } from './console-objects.js';

/** The replicas' election and what only its leader does (today: the pool history's sampling). */
export interface Election {
  elector: LeaderElector;
  /** Where the leader publishes the history for the others. */
  store: HistoryStore;
  /** This replica's name in the Lease and in the published history. */
  replica: string;
}

/**
 * With a shared session key there may be other replicas: work done once per cluster goes to
 * the holder of the Lease `<instance>-leader`, as kube-controller-manager's does. An account
 * that may not read the Lease (RBAC written before replicas) would never lead, and then no
 * replica would sample at all: each samples its own history then, as one console does, and
 * the log says why. Without a key, one console: no election.
 */
export async function electionFor(
  options: BffOptions,
  seal: SessionSeal,
  objects: ConsoleObjects,
  log: { info(message: string): void; warn(message: string): void },
): Promise<Election | undefined> {
  if (!seal.shared) return undefined;
  const { kubeConfig } = options.connection;
  const { namespace, lease } = objects;
  try {
    await makeClients(kubeConfig).coordination.readNamespacedLease({ name: lease, namespace });
  } catch (error) {
    const kube = toKubeError(error);
    // Not there yet is the first start; no answer says nothing about the account.
    if (!isNotFound(error) && (kube.code === 401 || kube.code === 403)) {
      log.warn(
        `the console's account may not read Lease ${namespace}/${lease} (${kube.message}): no leader is chosen, and every replica samples a pool history of its own, kept in its memory`,
      );
      return undefined;
    }
  }
  const replica = `${hostname()}_${randomUUID()}`;
  return {
    elector: new LeaderElector({
      kubeConfig,
      namespace,
      name: lease,
      identity: replica,
      ...options.leaderElection,
      log: (message) => log.info(message),
    }),
    store: new ConfigMapHistoryStore(kubeConfig, namespace, objects.poolHistory),
    replica,
  };
}
