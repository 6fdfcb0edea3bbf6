/** The one page the build prerenders (zh-CN), and the file the BFF sends for it. */
export const PRERENDERED_PATH = '/workloads/new';
export const PRERENDERED_FILE = 'workloads-new.html';
