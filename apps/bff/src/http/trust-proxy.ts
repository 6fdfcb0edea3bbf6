import { compile } from '@fastify/proxy-addr';

/**
 * `--trust-proxy` (spec §9): which proxies' `X-Forwarded-For` / `-Proto` / `-Host` the console
 * believes — a number of hops in front of it (`1` behind one Ingress controller), or the
 * addresses and CIDRs of the proxies (`10.0.0.0/8,fd00::/8`; proxy-addr's `loopback`,
 * `linklocal` and `uniquelocal` too). Absent: none, and `request.ip` is the peer, so one client
 * cannot pose as another to the sign-in throttle or make its cookies Secure by saying so.
 */
export type TrustProxy = number | readonly string[];

/** The flag's text read, or an Error saying what is wrong with it. */
export function parseTrustProxy(text: string): TrustProxy {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops < 1 || hops > 10) throw new Error(`--trust-proxy hops must be 1 to 10, not ${hops}`);
    return hops;
  }
  const entries = trimmed
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0)
    throw new Error('--trust-proxy needs a number of hops or the proxies’ addresses/CIDRs');
  // Read by the same code Fastify will trust them with, so what starts is what it believes.
  try {
    compile(entries);
  } catch (error) {
    throw new Error(
      `--trust-proxy: ${error instanceof Error ? error.message : String(error)} (an address, a CIDR such as 10.0.0.0/8, or loopback/linklocal/uniquelocal)`,
    );
  }
  return entries;
}

/** As Fastify takes it: hops as proxy-addr's "the first n hops" function (its types take no number). */
export function fastifyTrustProxy(
  trust: TrustProxy,
): string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}
