export * from './card-figures.js';
export * from './pool-usage.js';
export * from './prometheus-queries.js';
export * from './quiet-time.js';
export * from './readings.js';
export * from './terms.js';
export * from './verdicts.js';
