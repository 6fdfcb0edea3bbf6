import { MAX_IMAGE_NAME, type RuleParams } from './rules.js';

/**
 * The container image reference grammar of github.com/distribution/reference (regexp.go), as
 * the kubelet's image pull parses it: `[domain[:port]/]path[:tag][@algorithm:hex]`.
 */
const alphanumeric = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainNameComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domainName = `${domainNameComponent}(?:\\.${domainNameComponent})*`;
const host = `(?:${domainName}|\\[[a-fA-F0-9:]+\\])`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const namePattern = `(?:${domainAndPort}/)?${remoteName}`;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const NAME = new RegExp(`^${namePattern}$`);

/** Characters that print as nothing but make the pull fail: zero-width, bidi and other format or control characters. */
const FORMAT_OR_CONTROL = /[\p{Cf}\p{Cc}]/u;
const LINE_OR_TAB = /^[\t\n\v\f\r]$/;
const isInvisible = (text: string) =>
  [...text].some((char) => FORMAT_OR_CONTROL.test(char) && !LINE_OR_TAB.test(char));
const WHITESPACE = /\s/u;

/** What is wrong with a non-empty image reference, or undefined when the grammar accepts it. */
export function imageReferenceProblem(
  image: string,
): RuleParams['image-reference']['problem'] | undefined {
  if (isInvisible(image)) return 'invisible';
  // Spaces, tabs, line breaks (and U+2028/2029): what an operator can see once told.
  if (WHITESPACE.test(image)) return 'whitespace';
  const at = image.indexOf('@');
  const beforeDigest = at === -1 ? image : image.slice(0, at);
  const digest = at === -1 ? undefined : image.slice(at + 1);
  const lastSlash = beforeDigest.lastIndexOf('/');
  const colon = beforeDigest.indexOf(':', lastSlash + 1);
  const name = colon === -1 ? beforeDigest : beforeDigest.slice(0, colon);
  const tag = colon === -1 ? undefined : beforeDigest.slice(colon + 1);
  if (!NAME.test(name)) {
    return NAME.test(name.toLowerCase()) ? 'uppercase' : 'bad-format';
  }
  if (name.length > MAX_IMAGE_NAME) return 'too-long';
  if (tag !== undefined && !TAG.test(tag)) return 'bad-tag';
  if (digest !== undefined && !DIGEST.test(digest)) return 'bad-digest';
  return undefined;
}
