import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { createServer, type Plugin } from 'vite';

/**
 * After the build, renders /workloads/new (zh-CN) into a copy of index.html beside it, with
 * `.br` and `.gz` as the other pages have: the BFF sends it for that route, so the form paints
 * as soon as the HTML and stylesheet arrive instead of after the script has run (~1 s here).
 * The markup comes from `src/prerender.tsx`, loaded through Vite's SSR module loader so it is
 * the same source the client bundle is built from.
 */
export function prerenderCreateWorkloadPage(): Plugin {
  let root = '';
  let outDir = '';
  let configFile: string | undefined;
  return {
    name: 'mgpu:prerender-create-workload',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = resolve(config.root, config.build.outDir);
      configFile = config.configFile;
    },
    async closeBundle() {
      const server = await createServer({
        root,
        configFile,
        logLevel: 'error',
        appType: 'custom',
        server: { middlewareMode: true, hmr: false, ws: false },
      });
      try {
        const entry = (await server.ssrLoadModule('/src/prerender.tsx')) as {
          renderCreateWorkloadPage(): string;
        };
        const paths = (await server.ssrLoadModule('/src/prerendered.ts')) as {
          PRERENDERED_FILE: string;
        };
        const index = await readFile(resolve(outDir, 'index.html'), 'utf8');
        const empty = '<div id="root"></div>';
        if (!index.includes(empty)) throw new Error(`index.html has no ${empty} to fill`);
        const html = Buffer.from(
          index.replace(empty, `<div id="root">${entry.renderCreateWorkloadPage()}</div>`),
        );
        const file = resolve(outDir, paths.PRERENDERED_FILE);
        await writeFile(file, html);
        await writeFile(
          `${file}.br`,
          brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        await writeFile(`${file}.gz`, gzipSync(html, { level: 9 }));
      } finally {
        await server.close();
      }
    },
  };
}
