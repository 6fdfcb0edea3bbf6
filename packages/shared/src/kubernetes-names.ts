/** The ordinary Kubernetes name rules (DNS-1123), as the API server applies them. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

/** A valid name close to what was typed ("My_App" → "my-app"), or undefined if none is near. */
export function suggestName(value: string, kind: 'label' | 'subdomain'): string | undefined {
  const invalid = kind === 'label' ? /[^a-z0-9-]+/g : /[^a-z0-9.-]+/g;
  const limit = kind === 'label' ? 63 : 253;
  const candidate = value
    .toLowerCase()
    .replace(invalid, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, limit)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  const valid = kind === 'label' ? isDns1123Label(candidate) : isDns1123Subdomain(candidate);
  return valid && candidate !== value ? candidate : undefined;
}
