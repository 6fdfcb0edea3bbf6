import type { KubeConfig } from '@kubernetes/client-node';

/**
 * The signed-in operator of a request, with per-user auth on (`--auth kubernetes` or `oidc`).
 * Every Kubernetes call made for them goes through `kubeConfig`, which carries their own
 * bearer token, so their RBAC decides; the console's own account only feeds the shared
 * informers. Absent when the console runs without per-user auth (loopback or `--token`).
 */
export interface Operator {
  username: string;
  groups: readonly string[];
  /** The console's cluster, with the operator's own bearer token as the only credential. */
  kubeConfig: KubeConfig;
}
