import { AuthenticationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { operatorKubeConfig } from '@mgpu/api';
import { toKubeError } from '@mgpu/kube-client';

/** Who the API server says a bearer token is, or why it would not say. */
export type TokenReview =
  | { ok: true; username: string; groups: string[] }
  /** The API server does not accept the token (401), or authenticated nobody. */
  | { ok: false; reason: 'refused' }
  /** The API server could not be asked (no answer, 5xx, neither review served). */
  | { ok: false; reason: 'unavailable'; message: string };

/**
 * Asks the API server whether `token` is good before any session exists. A SelfSubjectReview
 * made with the token itself (authentication.k8s.io/v1, GA since 1.28): the API server's own
 * authenticators answer, so a token it would refuse on a create is refused here. Only where
 * that API is not served (404) does the console's own account ask with a TokenReview, which
 * needs `create tokenreviews` in the console's RBAC.
 */
export async function reviewToken(console: KubeConfig, token: string): Promise<TokenReview> {
  try {
    const self = operatorKubeConfig(console, token).makeApiClient(AuthenticationV1Api);
    const review = await self.createSelfSubjectReview({
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    const user = review.status?.userInfo;
    if (!user?.username) return { ok: false, reason: 'refused' };
    return { ok: true, username: user.username, groups: user.groups ?? [] };
  } catch (error) {
    const kube = toKubeError(error);
    if (kube.code === 401) return { ok: false, reason: 'refused' };
    if (kube.code !== 404) return { ok: false, reason: 'unavailable', message: kube.message };
  }
  try {
    const review = await console.makeApiClient(AuthenticationV1Api).createTokenReview({
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    const user = review.status?.user;
    if (!review.status?.authenticated || !user?.username) return { ok: false, reason: 'refused' };
    return { ok: true, username: user.username, groups: user.groups ?? [] };
  } catch (error) {
    return { ok: false, reason: 'unavailable', message: toKubeError(error).message };
  }
}
