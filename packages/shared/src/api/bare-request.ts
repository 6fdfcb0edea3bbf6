/**
 * A request as spec §7 sends it to the BFF: the workload request itself, optionally with the
 * message language and a client request id beside its fields. The form sends the same values
 * wrapped as `{ request, lang, clientRequestId }`; both shapes are accepted and normalised:
 * the bare shape is turned into the wrapped one before validation, so issues keep their paths.
 */
export const wrapBare = (input: unknown): unknown => {
  if (typeof input !== 'object' || input === null || 'request' in input) return input;
  const { lang, clientRequestId, ...request } = input as Record<string, unknown>;
  return { request, lang, clientRequestId };
};
