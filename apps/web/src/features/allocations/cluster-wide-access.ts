/**
 * Whether a query failed because the signed-in operator may not `list nodes` (the BFF answers
 * the cluster-wide figures with FORBIDDEN then): the dashboard says so instead of an error.
 */
export function isClusterWideForbidden(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('data' in error)) return false;
  const data = (error as { data?: { code?: unknown } | null }).data;
  return data?.code === 'FORBIDDEN';
}
