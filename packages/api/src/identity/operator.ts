import type { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigWithToken } from '@mgpu/kube-client';

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

/**
 * The console's own cluster (server, CA, TLS settings) with `token` as the only credential:
 * nothing of the console's account (its token, client certificate, exec plugin) is carried
 * over, so a call made with it is the operator's and only the operator's.
 */
export function operatorKubeConfig(console: KubeConfig, token: string): KubeConfig {
  const cluster = console.getCurrentCluster();
  if (!cluster) throw new Error("the console's kubeconfig has no current cluster");
  return kubeConfigWithToken({ ...cluster, name: 'console-cluster' }, token, {
    context: 'operator',
    user: 'operator',
  });
}

/** The bearer token an operator's calls carry (an OIDC sign-in's ID token, say). */
export const operatorToken = (operator: Operator): string | undefined =>
  operator.kubeConfig.getCurrentUser()?.token;
