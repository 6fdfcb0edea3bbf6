import { makeClients } from '@mgpu/kube-client';
import type { BffOptions } from '../bff-options.js';
import type { SessionSeal } from '../identity/session-seal.js';
import {
  ClusterRevocations,
  type ClusterRevocationsOptions,
  LocalRevocations,
  type Revocations,
} from './revocations.js';

/**
 * The objects replicas share in the cluster, all in the console's namespace and named after its
 * instance (two releases in one namespace share nothing): the leader's Lease, the signed-out
 * sessions, the leader's published pool history.
 */
export interface ConsoleObjects {
  namespace: string;
  lease: string;
  revokedSessions: string;
  poolHistory: string;
}

export const DEFAULT_INSTANCE_NAME = 'mgpu-console';

/**
 * The console's namespace: named, else the kubeconfig context's — in a pod `loadFromCluster`
 * sets it to the pod's own —, else `default`.
 */
export function consoleObjectsOf(options: BffOptions): ConsoleObjects {
  const { kubeConfig } = options.connection;
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  const namespace = options.consoleNamespace ?? context?.namespace ?? 'default';
  const instance = options.instanceName ?? DEFAULT_INSTANCE_NAME;
  return {
    namespace,
    lease: `${instance}-leader`,
    revokedSessions: `${instance}-revoked-sessions`,
    poolHistory: `${instance}-pool-history`,
  };
}

/**
 * Sign-outs kept where the consoles that accept a session see them: in the cluster when the
 * session key is shared (`--session-key-file`), else in this process (no other console, and no
 * later start, accepts its sessions anyway).
 */
export function revocationsFor(
  options: BffOptions,
  seal: SessionSeal,
  objects: ConsoleObjects,
  log: ClusterRevocationsOptions['log'],
): Revocations {
  if (!seal.shared) return new LocalRevocations();
  return new ClusterRevocations({
    core: makeClients(options.connection.kubeConfig).core,
    namespace: objects.namespace,
    name: objects.revokedSessions,
    ...(options.revocationPollMs !== undefined ? { pollMs: options.revocationPollMs } : {}),
    log,
  });
}
