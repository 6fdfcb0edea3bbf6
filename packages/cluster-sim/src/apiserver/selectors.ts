/**
 * Label and field selectors with the grammar of k8s.io/apimachinery/pkg/labels and
 * pkg/fields; a selector that does not parse is a 400 BadRequest, as on a real server.
 */
import { badRequest } from './status.js';

export type LabelRequirement =
  | { key: string; operator: 'equals' | 'notEquals'; value: string }
  | { key: string; operator: 'in' | 'notIn'; values: string[] }
  | { key: string; operator: 'exists' | 'doesNotExist' }
  | { key: string; operator: 'greaterThan' | 'lessThan'; value: number };

export type LabelSelector = LabelRequirement[];

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function isQualifiedName(key: string): boolean {
  const slash = key.indexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (slash !== -1) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0 || prefix.length > 253 || !LABEL_PREFIX.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && LABEL_NAME.test(name);
}

export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** Splits on commas that are not inside `in (…)` parentheses. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

function checkKey(key: string, whole: string): string {
  if (!isQualifiedName(key)) {
    throw badRequest(
      `unable to parse requirement: values[0][${key}]: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (in selector "${whole}")`,
    );
  }
  return key;
}

function checkValue(value: string, whole: string): string {
  if (!isLabelValue(value)) {
    throw badRequest(
      `unable to parse requirement: values[0][${value}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (in selector "${whole}")`,
    );
  }
  return value;
}

export function parseLabelSelector(selector: string | undefined): LabelSelector {
  if (selector === undefined || selector.trim() === '') return [];
  const requirements: LabelSelector = [];
  for (const rawPart of splitTopLevel(selector)) {
    const part = rawPart.trim();
    if (part === '') throw badRequest(`found '', expected: identifier in selector "${selector}"`);
    const setMatch = /^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part);
    if (setMatch) {
      const key = checkKey(setMatch[1] ?? '', selector);
      const values = (setMatch[3] ?? '')
        .split(',')
        .map((value) => checkValue(value.trim(), selector));
      requirements.push({ key, operator: setMatch[2] === 'in' ? 'in' : 'notIn', values });
      continue;
    }
    const notExists = /^!\s*([^\s!=<>(),]+)$/.exec(part);
    if (notExists) {
      requirements.push({ key: checkKey(notExists[1] ?? '', selector), operator: 'doesNotExist' });
      continue;
    }
    const comparison = /^([^\s!=<>(),]+)\s*(==|=|!=|<|>)\s*([^\s!=<>(),]*)$/.exec(part);
    if (comparison) {
      const key = checkKey(comparison[1] ?? '', selector);
      const operator = comparison[2];
      const value = comparison[3] ?? '';
      if (operator === '<' || operator === '>') {
        const bound = Number(value);
        if (!/^-?\d+$/.test(value)) {
          throw badRequest(
            `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer (in selector "${selector}")`,
          );
        }
        requirements.push({
          key,
          operator: operator === '>' ? 'greaterThan' : 'lessThan',
          value: bound,
        });
      } else {
        requirements.push({
          key,
          operator: operator === '!=' ? 'notEquals' : 'equals',
          value: checkValue(value, selector),
        });
      }
      continue;
    }
    if (/^[^\s!=<>(),]+$/.test(part)) {
      requirements.push({ key: checkKey(part, selector), operator: 'exists' });
      continue;
    }
    throw badRequest(
      `unable to parse requirement: couldn't parse the selector string "${selector}"`,
    );
  }
  return requirements;
}

export function matchesLabels(
  selector: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  const present = labels ?? {};
  return selector.every((requirement) => {
    const has = Object.hasOwn(present, requirement.key);
    const value = present[requirement.key];
    switch (requirement.operator) {
      case 'equals':
        return has && value === requirement.value;
      case 'notEquals':
        return !has || value !== requirement.value;
      case 'in':
        return has && value !== undefined && requirement.values.includes(value);
      case 'notIn':
        return !has || value === undefined || !requirement.values.includes(value);
      case 'exists':
        return has;
      case 'doesNotExist':
        return !has;
      case 'greaterThan':
        return has && Number(value) > requirement.value;
      case 'lessThan':
        return has && Number(value) < requirement.value;
    }
    return false;
  });
}

/** The `matchLabels` / `matchExpressions` of a LabelSelector object, as requirements. */
export function selectorFromLabelSelectorObject(selector: unknown): LabelSelector | undefined {
  if (typeof selector !== 'object' || selector === null) return undefined;
  const requirements: LabelSelector = [];
  const { matchLabels, matchExpressions } = selector as {
    matchLabels?: unknown;
    matchExpressions?: unknown;
  };
  if (typeof matchLabels === 'object' && matchLabels !== null) {
    for (const [key, value] of Object.entries(matchLabels)) {
      requirements.push({ key, operator: 'equals', value: String(value) });
    }
  }
  if (Array.isArray(matchExpressions)) {
    for (const expression of matchExpressions) {
      const { key, operator, values } = expression as {
        key?: unknown;
        operator?: unknown;
        values?: unknown;
      };
      if (typeof key !== 'string') continue;
      const list = Array.isArray(values) ? values.map(String) : [];
      if (operator === 'In') requirements.push({ key, operator: 'in', values: list });
      else if (operator === 'NotIn') requirements.push({ key, operator: 'notIn', values: list });
      else if (operator === 'Exists') requirements.push({ key, operator: 'exists' });
      else if (operator === 'DoesNotExist') requirements.push({ key, operator: 'doesNotExist' });
    }
  }
  return requirements;
}

/** `app=demo,tier in (web)` — the string form used in Scale.status.selector. */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector
    .map((requirement) => {
      switch (requirement.operator) {
        case 'equals':
          return `${requirement.key}=${requirement.value}`;
        case 'notEquals':
          return `${requirement.key}!=${requirement.value}`;
        case 'in':
          return `${requirement.key} in (${requirement.values.join(',')})`;
        case 'notIn':
          return `${requirement.key} notin (${requirement.values.join(',')})`;
        case 'exists':
          return requirement.key;
        case 'doesNotExist':
          return `!${requirement.key}`;
        case 'greaterThan':
          return `${requirement.key}>${requirement.value}`;
        case 'lessThan':
          return `${requirement.key}<${requirement.value}`;
      }
      return '';
    })
    .join(',');
}

export interface FieldRequirement {
  field: string;
  operator: 'equals' | 'notEquals';
  value: string;
}

/** Field selectors: `a=b`, `a==b`, `a!=b`, comma-separated; values may escape `\,` `\=` `\\`. */
export function parseFieldSelector(
  selector: string | undefined,
  supportedFields: ReadonlySet<string>,
): FieldRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  const requirements: FieldRequirement[] = [];
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < selector.length; i += 1) {
    const char = selector[i];
    if (char === '\\' && i + 1 < selector.length) {
      current += char + selector[i + 1];
      i += 1;
    } else if (char === ',') {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  for (const part of parts) {
    const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (!match) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const field = match[1] ?? '';
    if (!supportedFields.has(field)) throw badRequest(`field label not supported: ${field}`);
    requirements.push({
      field,
      operator: match[2] === '!=' ? 'notEquals' : 'equals',
      value: (match[3] ?? '').replace(/\\(.)/g, '$1'),
    });
  }
  return requirements;
}

export function matchesFields(
  requirements: readonly FieldRequirement[],
  fieldValue: (field: string) => string,
): boolean {
  return requirements.every((requirement) => {
    const actual = fieldValue(requirement.field);
    return requirement.operator === 'equals'
      ? actual === requirement.value
      : actual !== requirement.value;
  });
}
