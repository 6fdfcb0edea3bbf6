import { describe, expect, it } from 'vitest';
import { type Placeholders, translationOf, translator } from './i18n.js';

const zh = {
  plain: '刷新',
  title: '负载 {namespace}/{name}',
  cards: ({ count }: { count: number }) => (count === 1 ? '1 张卡' : `${count} 张卡`),
} as const;

const en = translationOf<typeof zh>()({
  plain: 'Refresh',
  title: 'Workload {namespace}/{name}',
  cards: ({ count }: { count: number }) => (count === 1 ? '1 card' : `${count} cards`),
});

describe('the i18n mechanism', () => {
  it('fills each placeholder, whichever order the language puts them in', () => {
    const t = translator<typeof zh>(en);
    expect(t('title', { namespace: 'default', name: 'demo' })).toBe('Workload default/demo');
    expect(translator<typeof zh>(zh)('title', { name: 'demo', namespace: 'default' })).toBe(
      '负载 default/demo',
    );
    expect(t('plain')).toBe('Refresh');
    expect(t('cards', { count: 2 })).toBe('2 cards');
  });

  it('keeps a placeholder that has no value as written', () => {
    const t = translator<typeof zh>(zh);
    const key = 'title' as 'title' | 'plain';
    expect(t(key, { namespace: 'default' })).toBe('负载 default/{name}');
  });

  it('reads the parameters from the template and checks calls and translations at compile time', () => {
    const names: Placeholders<'{a} and {b}, {a}'>[] = ['a', 'b'];
    expect(names).toEqual(['a', 'b']);
    const t = translator<typeof zh>(zh);
    // @ts-expect-error a parameter is missing
    t('title', { namespace: 'default' });
    // @ts-expect-error a template without placeholders takes none
    t('plain', { x: 1 });
    // @ts-expect-error not a key of the catalog
    t('absent');
    // @ts-expect-error a function message takes its own parameter type
    t('cards', { count: 'two' });
    translationOf<typeof zh>()({
      plain: 'Refresh',
      // @ts-expect-error a translation must keep the source's placeholders
      title: 'Workload {ns}/{name}',
      cards: ({ count }: { count: number }) => `${count} cards`,
    });
    // @ts-expect-error a translation must have every key
    translationOf<typeof zh>()({ plain: 'Refresh', cards: () => '' });
  });
});
