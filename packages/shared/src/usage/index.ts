export * from './terms.js';
