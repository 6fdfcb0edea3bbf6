/** The ordinary Kubernetes name rules (DNS-1123, DNS-1035), as the API server applies them. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

/** A DNS-1035 label (a Service's name): a DNS-1123 label that starts with a letter. */
export function isDns1035Label(value: string): boolean {
  return value.length <= 63 && DNS1035_LABEL.test(value);
}

/**
 * A valid name close to what was typed ("My_App" → "my-app"), or undefined if none is near;
 * `limit` shortens it further (a StatefulSet's name, say).
 */
export function suggestName(
  value: string,
  kind: 'label' | 'subdomain' | 'dns-1035',
  limit = kind === 'subdomain' ? 253 : 63,
): string | undefined {
  const invalid = kind === 'subdomain' ? /[^a-z0-9.-]+/g : /[^a-z0-9-]+/g;
  const candidate = value
    .toLowerCase()
    .replace(invalid, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, limit)
    .replace(kind === 'dns-1035' ? /^[^a-z]+/ : /^[^a-z0-9]+/, '')
    .replace(/[^a-z0-9]+$/, '');
  const valid =
    kind === 'label'
      ? isDns1123Label(candidate)
      : kind === 'subdomain'
        ? isDns1123Subdomain(candidate)
        : isDns1035Label(candidate);
  return valid && candidate !== value ? candidate : undefined;
}
