/**
 * The console's one i18n mechanism (issue 15), for all three catalogs: the web app's strings,
 * the dashboard's (loaded with its chunk) and the rule messages here in shared. A catalog maps
 * keys to messages; a message is a template with `{name}` placeholders or, where the wording
 * needs logic (lists, choices, numbers in words), a function of typed parameters. The types are
 * read from the source language's catalog (`as const`): an unknown key, a missing or misspelt
 * parameter, and a translation that lacks a key or has other placeholders do not compile.
 * Pure types plus one `replace`: nothing of a library reaches the bundle.
 */

/** The placeholder names of a template: `'{pods} Pod，{cards} 卡'` → `'pods' | 'cards'`. */
export type Placeholders<Template extends string> =
  Template extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/**
 * A template, or a function of its parameters for wording a template cannot say (`never`: any
 * one-parameter function is one; each message types its own parameter).
 */
export type Message = string | ((params: never) => unknown);

export type Catalog = { readonly [key: string]: Message };

/** The value a placeholder takes. */
export type TemplateValue = string | number;

/** What a message is given: its placeholders' values, or its function's parameter. */
export type ParamsOf<M> = M extends (params: infer P) => unknown
  ? P
  : M extends string
    ? { readonly [Name in Placeholders<M>]: TemplateValue }
    : never;

/** What a message gives: a template gives a string, a function what it returns. */
export type TextOf<M> = M extends (params: never) => infer Text ? Text : string;

type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;

/**
 * A known key takes exactly its message's parameters (none when the template has none). A key
 * computed at run time (a union, e.g. `rejection.${code}`) takes the parameters of any of them:
 * which placeholders it needs is only known then, and the catalog tests compare them.
 */
type ArgsOf<C extends Catalog, K extends keyof C> =
  true extends IsUnion<K>
    ? [params?: Partial<ParamsOf<C[K]>> | Readonly<Record<string, TemplateValue>>]
    : C[K] extends string
      ? [Placeholders<C[K]>] extends [never]
        ? []
        : [params: ParamsOf<C[K]>]
      : [params: ParamsOf<C[K]>];

export type Translate<C extends Catalog> = <K extends keyof C & string>(
  key: K,
  ...params: ArgsOf<C, K>
) => TextOf<C[K]>;

type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * A translation of `Source`: every key, each template with the same placeholders (a literal
 * string, so they can be read), each function taking the same parameters. A text whose
 * placeholders differ is typed `never`, so the compiler points at its key.
 */
export type TranslationOf<Source extends Catalog, Translated> = {
  readonly [K in keyof Source]: Source[K] extends string
    ? K extends keyof Translated
      ? Translated[K] extends string
        ? SameSet<Placeholders<Source[K]>, Placeholders<Translated[K]>> extends true
          ? Translated[K]
          : never
        : string
      : string
    : Source[K];
};

/**
 * Checks a catalog against its source language's: `translationOf<typeof zhCN>()({ … })`. Curried
 * so the source is given and the translation's literal texts are inferred.
 */
export function translationOf<Source extends Catalog>() {
  return <const Translated extends TranslationOf<Source, Translated>>(
    catalog: Translated,
  ): Translated => catalog;
}

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * A template split once into its text and placeholder names (odd indexes), so filling it is a
 * join: the placement preview words a rejection for each of 1,000 nodes, and a regex replace
 * per message made that five times slower. Only the catalogs' own, fixed templates get here.
 */
const PARSED = new Map<string, readonly string[]>();

function parseTemplate(template: string): readonly string[] {
  let parts = PARSED.get(template);
  if (parts === undefined) {
    parts = template.split(PLACEHOLDER);
    PARSED.set(template, parts);
  }
  return parts;
}

/** A template with its placeholders filled; one without a value stays as written. */
export function fillTemplate(
  template: string,
  params: Readonly<Record<string, TemplateValue | undefined>> | undefined,
): string {
  if (!params) return template;
  const parts = parseTemplate(template);
  let text = parts[0] ?? '';
  for (let index = 1; index < parts.length; index += 2) {
    const name = parts[index] ?? '';
    const value = params[name];
    text += (value === undefined ? `{${name}}` : String(value)) + (parts[index + 1] ?? '');
  }
  return text;
}

/** Any language's catalog of `Source`'s keys: what a translator takes, whichever language. */
export type Translation<Source extends Catalog> = {
  readonly [K in keyof Source]: Source[K] extends string ? string : Source[K];
};

/**
 * The translator of one language's catalog, typed by the source language's: the same calls
 * compile whichever language is current. `translator<typeof zhCN>(CATALOGS[lang])`.
 */
export function translator<Source extends Catalog>(
  catalog: Translation<Source>,
): Translate<Source> {
  const messages: Catalog = catalog;
  return ((key: string, params?: Readonly<Record<string, TemplateValue>>) => {
    const message = messages[key];
    // The types gave this message its own parameters; here they are only passed on.
    if (typeof message === 'function')
      return (message as (given: typeof params) => unknown)(params);
    return fillTemplate(message ?? key, params);
  }) as Translate<Source>;
}
