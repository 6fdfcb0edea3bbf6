import { type Cluster, KubeConfig } from '@kubernetes/client-node';

/** An API server and the one credential a client shows it. */
export interface ServerAccess {
  /** `https://…`, or plain `http://` on loopback (the embedded API's in-process clients). */
  url: string;
  /** The bearer token, the only credential. */
  token: string;
  /** The PEM of the CA that signed an https server's certificate; the system's CAs if absent. */
  certificateAuthority?: string;
}

/** The kubeconfig's own names for the context and its user (kubectl shows them). */
export interface KubeConfigNames {
  context: string;
  user: string;
  /** The context's default namespace. */
  namespace?: string;
}

const DEFAULT_NAMES: KubeConfigNames = { context: 'api-server', user: 'bearer-token' };

/**
 * `cluster` (its server, CA and TLS settings as they are) with `token` as the only credential:
 * nothing of another user (a token, a client certificate, an exec plugin) comes along.
 */
export function kubeConfigWithToken(
  cluster: Cluster,
  token: string,
  names: KubeConfigNames = DEFAULT_NAMES,
): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ name: names.user, token }],
    contexts: [
      {
        name: names.context,
        cluster: cluster.name,
        user: names.user,
        ...(names.namespace !== undefined ? { namespace: names.namespace } : {}),
      },
    ],
    currentContext: names.context,
  });
  return kubeConfig;
}

/**
 * A kubeconfig for the API server at `server.url` with its bearer token, the cluster named as
 * the context. An https server is verified against `certificateAuthority`; client-node 1.x
 * refuses plain http unless TLS verification is (vacuously) skipped.
 */
export function kubeConfigForServer(
  server: ServerAccess,
  names: KubeConfigNames = DEFAULT_NAMES,
): KubeConfig {
  const plainHttp = new URL(server.url).protocol === 'http:';
  const cluster: Cluster = {
    name: names.context,
    server: server.url,
    skipTLSVerify: plainHttp,
    ...(server.certificateAuthority !== undefined
      ? { caData: Buffer.from(server.certificateAuthority).toString('base64') }
      : {}),
  };
  return kubeConfigWithToken(cluster, server.token, names);
}
